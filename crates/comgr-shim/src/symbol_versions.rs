// Included by text into src/abi.rs and build.rs (which makes the versioned aliases from it).

/// Every COMGR entry point this library exports, with the symbol version official COMGR gives it
/// (its version script: the data API in amd_comgr_1.8, `get_data_isa_name` in amd_comgr_2.0,
/// the HotSwap family in 3.2, 3.4 and 3.6). A program linked against COMGR records these versions
/// and its loader requires them. build.rs makes the `<name>@@<version>` aliases from this list
/// (it includes this file by text), in this order of versions, each node inheriting the last.
pub const VERSIONED: &[(&str, &str)] = &[
    ("amd_comgr_create_data", "amd_comgr_1.8"),
    ("amd_comgr_release_data", "amd_comgr_1.8"),
    ("amd_comgr_get_data_kind", "amd_comgr_1.8"),
    ("amd_comgr_set_data", "amd_comgr_1.8"),
    ("amd_comgr_get_data", "amd_comgr_1.8"),
    ("amd_comgr_set_data_name", "amd_comgr_1.8"),
    ("amd_comgr_get_data_name", "amd_comgr_1.8"),
    ("amd_comgr_status_string", "amd_comgr_1.8"),
    ("amd_comgr_get_version", "amd_comgr_1.8"),
    ("amd_comgr_get_data_isa_name", "amd_comgr_2.0"),
    ("amd_comgr_hotswap_rewrite", "amd_comgr_3.2"),
    ("amd_comgr_hotswap_transpile", "amd_comgr_3.2"),
    ("amd_comgr_hotswap_transpile_with_options", "amd_comgr_3.2"),
    ("amd_comgr_hotswap_transpile_with_options_v2", "amd_comgr_3.2"),
    ("amd_comgr_destroy_hotswap_transpile_result", "amd_comgr_3.2"),
    ("amd_comgr_hotswap_transpile_result_get_info", "amd_comgr_3.2"),
    ("amd_comgr_hotswap_transpile_result_get_string", "amd_comgr_3.2"),
    ("amd_comgr_hotswap_rewrite_with_options", "amd_comgr_3.4"),
    ("amd_comgr_get_cache_identifier", "amd_comgr_3.6"),
];
