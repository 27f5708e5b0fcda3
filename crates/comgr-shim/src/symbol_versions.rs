// Included by text into src/abi.rs and build.rs (which makes the versioned aliases from it).

/// The entry points exported with a symbol version, and the version: build.rs makes the
/// `<name>@@<version>` aliases from this list (it includes this file's copy by text), and the
/// tests check the library against it.
pub const VERSIONED: &[(&str, &str)] = &[
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
