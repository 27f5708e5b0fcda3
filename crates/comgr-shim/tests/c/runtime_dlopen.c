/* The runtimes that dlopen COMGR, played against an installed tree:
 *   r1        the official ROCR: dlopen libamd_comgr.so.3 then libamd_comgr.so; required and
 *             optional symbols; rewrite_with_options when present, else rewrite; the cache
 *             identifier; size then bytes (the sizes must agree, 0 is a failure)
 *   r2        the cross-generation fork: with HSA_HOTSWAP_ENABLE, rewrite_with_options from
 *             gfx1250:gfx1250-b0-specific+ to the agent's full ISA name with {16, 0x1}
 *   upstream  upstream's own test cases, through dlopen
 * usage: runtime_dlopen <mode> <in.hsaco> <out.hsaco> <agent-isa>
 * Prints "ALL OK" and exits 0 when every check holds. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ctype.h>
#include "comgr_abi.h"

static void *lib;
static amd_comgr_status_t (*create_data)(int, amd_comgr_data_t *);
static amd_comgr_status_t (*release_data)(amd_comgr_data_t);
static amd_comgr_status_t (*set_data)(amd_comgr_data_t, size_t, const char *);
static amd_comgr_status_t (*get_data)(amd_comgr_data_t, size_t *, char *);
static amd_comgr_status_t (*get_isa)(amd_comgr_data_t, size_t *, char *);
static amd_comgr_status_t (*rewrite)(amd_comgr_data_t, const char *, const char *, amd_comgr_data_t *);
static amd_comgr_status_t (*rewrite_opts)(amd_comgr_data_t, const char *, const char *,
                                          const amd_comgr_hotswap_rewrite_options_t *, amd_comgr_data_t *);
static amd_comgr_status_t (*cache_id)(const char **);

static void *sym(const char *name, bool required) {
  void *p = dlsym(lib, name);
  if (!p && required) {
    fprintf(stderr, "required symbol %s missing: %s\n", name, dlerror());
    exit(1);
  }
  return p;
}

/* The library as R1 finds it: by name, first the SONAME, then the development name. */
static void open_comgr(void) {
  lib = dlopen("libamd_comgr.so.3", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libamd_comgr.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); exit(1); }
  *(void **)&create_data = sym("amd_comgr_create_data", true);
  *(void **)&release_data = sym("amd_comgr_release_data", true);
  *(void **)&set_data = sym("amd_comgr_set_data", true);
  *(void **)&get_data = sym("amd_comgr_get_data", true);
  *(void **)&get_isa = sym("amd_comgr_get_data_isa_name", true);
  *(void **)&rewrite = sym("amd_comgr_hotswap_rewrite", true);
  *(void **)&rewrite_opts = sym("amd_comgr_hotswap_rewrite_with_options", false);
  *(void **)&cache_id = sym("amd_comgr_get_cache_identifier", false);
}

static amd_comgr_data_t make_input(const char *bytes, size_t n) {
  amd_comgr_data_t d = {0};
  CHECK(create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &d) == AMD_COMGR_STATUS_SUCCESS, "create");
  CHECK(set_data(d, n, bytes) == AMD_COMGR_STATUS_SUCCESS, "set");
  return d;
}

/* R1's read of an output: size, then bytes; the two sizes must agree and not be 0. */
static char *read_output(amd_comgr_data_t out, size_t *len) {
  size_t n = 0;
  CHECK(get_data(out, &n, NULL) == AMD_COMGR_STATUS_SUCCESS && n > 0, "output size %zu", n);
  char *buf = malloc(n ? n : 1);
  size_t m = n;
  CHECK(get_data(out, &m, buf) == AMD_COMGR_STATUS_SUCCESS && m == n, "output bytes %zu != %zu", m, n);
  *len = n;
  return buf;
}

static void check_cache_identifier(void) {
  const char *a = NULL, *b = NULL;
  CHECK(cache_id(&a) == AMD_COMGR_STATUS_SUCCESS && a, "cache identifier");
  CHECK(cache_id(&b) == AMD_COMGR_STATUS_SUCCESS && b && strcmp(a, b) == 0, "identifier changes");
  CHECK(strlen(a) == 64, "identifier length %zu", strlen(a));
  for (const char *p = a; *p; p++) CHECK(isxdigit((unsigned char)*p) && !isupper((unsigned char)*p), "not lowercase hex: %s", a);
  CHECK(cache_id(NULL) == AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT, "NULL identifier");
  printf("cache identifier %s\n", a);
}

static int play_r1(const char *in, size_t n, const char *out_path, const char *agent) {
  amd_comgr_data_t d = make_input(in, n);
  size_t isa_len = 0;
  CHECK(get_isa(d, &isa_len, NULL) == AMD_COMGR_STATUS_SUCCESS && isa_len > 1, "isa size");
  char *src = calloc(isa_len, 1);
  CHECK(get_isa(d, &isa_len, src) == AMD_COMGR_STATUS_SUCCESS && src[isa_len - 1] == 0, "isa name");
  printf("source %s\n", src);
  if (cache_id) check_cache_identifier();
  amd_comgr_data_t out = {0x5e7};
  amd_comgr_status_t s;
  if (rewrite_opts) {
    amd_comgr_hotswap_rewrite_options_t o = {sizeof o, r1_env_on("HSA_HOTSWAP_STRICT_MODE") ? REWRITE_STRICT_MODE : 0};
    s = rewrite_opts(d, src, agent, &o, &out);
  } else {
    s = rewrite(d, src, agent, &out);
  }
  printf("rewrite status %d\n", s);
  if (s == AMD_COMGR_STATUS_SUCCESS) {
    size_t len = 0;
    char *bytes = read_output(out, &len);
    write_file(out_path, bytes, len);
    free(bytes);
    CHECK(release_data(out) == AMD_COMGR_STATUS_SUCCESS, "release output");
  } else {
    CHECK(out.handle == 0x5e7, "output written on failure");
  }
  /* The required plain rewrite answers the same. */
  amd_comgr_data_t out2 = {0};
  CHECK(rewrite(d, src, agent, &out2) == s, "rewrite and rewrite_with_options differ");
  if (s == AMD_COMGR_STATUS_SUCCESS) CHECK(release_data(out2) == AMD_COMGR_STATUS_SUCCESS, "release");
  CHECK(release_data(d) == AMD_COMGR_STATUS_SUCCESS, "release input");
  free(src);
  return s;
}

static int play_r2(const char *in, size_t n, const char *out_path, const char *agent) {
  if (!r1_env_on("HSA_HOTSWAP_ENABLE")) { printf("HotSwap not enabled\n"); return -1; }
  if (!rewrite_opts) { fprintf(stderr, "R2 requires amd_comgr_hotswap_rewrite_with_options\n"); exit(1); }
  amd_comgr_data_t d = make_input(in, n);
  amd_comgr_hotswap_rewrite_options_t o = {16, REWRITE_ENTRY_TRAMPOLINES};
  amd_comgr_data_t out = {0};
  amd_comgr_status_t s = rewrite_opts(d, "amdgcn-amd-amdhsa--gfx1250:gfx1250-b0-specific+", agent, &o, &out);
  printf("rewrite_with_options status %d\n", s);
  if (s == AMD_COMGR_STATUS_SUCCESS) {
    size_t len = 0;
    char *bytes = read_output(out, &len);
    write_file(out_path, bytes, len);
    free(bytes);
    CHECK(release_data(out) == AMD_COMGR_STATUS_SUCCESS, "release output");
  }
  CHECK(release_data(d) == AMD_COMGR_STATUS_SUCCESS, "release input");
  return s;
}

/* Upstream's cases: NULL and zero-size inputs, bad ISA names, the wrong kind, options checks,
 * symbol versions. (The family B cases run in runtime_linked.c.) */
static int upstream(const char *in, size_t n, const char *agent) {
  const char *SRC = "amdgcn-amd-amdhsa--gfx1250";
  amd_comgr_hotswap_rewrite_options_t o = {16, REWRITE_ENTRY_TRAMPOLINES};
  amd_comgr_data_t out = {0x77};
  const int INVALID = AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT;
  /* NULL (made-up) input handle. */
  CHECK(rewrite((amd_comgr_data_t){0}, SRC, agent, &out) == INVALID, "NULL input");
  CHECK(rewrite_opts((amd_comgr_data_t){0}, SRC, agent, &o, &out) == INVALID, "NULL input");
  /* Zero-size input. */
  amd_comgr_data_t empty = {0};
  CHECK(create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &empty) == AMD_COMGR_STATUS_SUCCESS, "create");
  CHECK(rewrite(empty, SRC, agent, &out) == INVALID, "zero-size input");
  CHECK(rewrite_opts(empty, SRC, agent, &o, &out) == INVALID, "zero-size input");
  release_data(empty);
  /* Wrong kind. */
  amd_comgr_data_t src_kind = {0};
  CHECK(create_data(AMD_COMGR_DATA_KIND_SOURCE, &src_kind) == AMD_COMGR_STATUS_SUCCESS, "create");
  CHECK(set_data(src_kind, n, in) == AMD_COMGR_STATUS_SUCCESS, "set");
  CHECK(rewrite_opts(src_kind, SRC, agent, &o, &out) == INVALID, "wrong kind");
  release_data(src_kind);
  amd_comgr_data_t d = make_input(in, n);
  /* NULL and unparsable ISA names, NULL output. */
  CHECK(rewrite_opts(d, NULL, agent, &o, &out) == INVALID, "NULL source");
  CHECK(rewrite_opts(d, SRC, NULL, &o, &out) == INVALID, "NULL target");
  CHECK(rewrite_opts(d, "not an isa", agent, &o, &out) == INVALID, "bad source");
  CHECK(rewrite_opts(d, SRC, "amdgcn-amd-amdhsa--gfx942:xnack", &o, &out) == INVALID, "bad target");
  CHECK(rewrite_opts(d, SRC, agent, &o, NULL) == INVALID, "NULL output");
  /* Options: NULL, too small, unknown bits. */
  CHECK(rewrite_opts(d, SRC, agent, NULL, &out) == INVALID, "NULL options");
  amd_comgr_hotswap_rewrite_options_t small = {8, 0};
  CHECK(rewrite_opts(d, SRC, agent, &small, &out) == INVALID, "size 8");
  amd_comgr_hotswap_rewrite_options_t unknown = {16, 0x4};
  CHECK(rewrite_opts(d, SRC, agent, &unknown, &out) == INVALID, "unknown flag");
  /* A parsable but unsupported pair is not an argument error: ERROR. */
  CHECK(rewrite_opts(d, SRC, "amdgcn-amd-amdhsa--gfx1100", &o, &out) == AMD_COMGR_STATUS_ERROR, "gfx1100 target");
  CHECK(out.handle == 0x77, "output written on failure");
  /* A supported pair with nothing to do: SUCCESS and the same bytes. */
  amd_comgr_data_t same = {0};
  CHECK(rewrite(d, SRC, "amdgcn-amd-amdhsa--gfx1250", &same) == AMD_COMGR_STATUS_SUCCESS, "same ISA");
  size_t len = 0;
  char *copy = read_output(same, &len);
  CHECK(len == n && memcmp(copy, in, n) == 0, "same ISA: not a byte-identical copy");
  free(copy);
  release_data(same);
  release_data(d);
  /* Stale handles. */
  CHECK(release_data(d) == INVALID, "release twice");
  CHECK(rewrite(d, SRC, agent, &out) == INVALID, "released input");
  /* Symbol versions and get_version. */
  CHECK(dlvsym(lib, "amd_comgr_hotswap_rewrite", "amd_comgr_3.2") == (void *)rewrite, "rewrite@amd_comgr_3.2");
  CHECK(dlvsym(lib, "amd_comgr_hotswap_rewrite_with_options", "amd_comgr_3.4") == (void *)rewrite_opts, "@amd_comgr_3.4");
  CHECK(dlvsym(lib, "amd_comgr_get_cache_identifier", "amd_comgr_3.6") == (void *)cache_id, "@amd_comgr_3.6");
  const char *b[] = {"amd_comgr_hotswap_transpile", "amd_comgr_hotswap_transpile_with_options",
                     "amd_comgr_hotswap_transpile_with_options_v2", "amd_comgr_destroy_hotswap_transpile_result",
                     "amd_comgr_hotswap_transpile_result_get_info", "amd_comgr_hotswap_transpile_result_get_string"};
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) CHECK(dlvsym(lib, b[i], "amd_comgr_3.2") != NULL, "%s@amd_comgr_3.2", b[i]);
  const char *v18[] = {"amd_comgr_create_data", "amd_comgr_release_data", "amd_comgr_set_data", "amd_comgr_get_data",
                       "amd_comgr_get_data_kind", "amd_comgr_set_data_name", "amd_comgr_get_data_name",
                       "amd_comgr_status_string", "amd_comgr_get_version"};
  for (size_t i = 0; i < sizeof v18 / sizeof *v18; i++) CHECK(dlvsym(lib, v18[i], "amd_comgr_1.8") != NULL, "%s@amd_comgr_1.8", v18[i]);
  CHECK(dlvsym(lib, "amd_comgr_get_data_isa_name", "amd_comgr_2.0") == (void *)get_isa, "get_data_isa_name@amd_comgr_2.0");
  CHECK(dlvsym(lib, "amd_comgr_hotswap_rewrite", "amd_comgr_3.4") == NULL, "rewrite is not in 3.4");
  amd_comgr_status_t (*version)(size_t *, size_t *);
  *(void **)&version = sym("amd_comgr_get_version", true);
  size_t major = 0, minor = 0;
  CHECK(version(&major, &minor) == AMD_COMGR_STATUS_SUCCESS && major == 3 && minor >= 6, "version %zu.%zu", major, minor);
  CHECK(version(NULL, &minor) == INVALID, "NULL major");
  check_cache_identifier();
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 5) { fprintf(stderr, "usage: runtime_dlopen <r1|r2|upstream> <in> <out> <agent-isa>\n"); return 2; }
  size_t n = 0;
  char *in = read_file(argv[2], &n);
  open_comgr();
  Dl_info info;
  if (dladdr((void *)rewrite, &info)) printf("loaded %s\n", info.dli_fname);
  int s;
  if (strcmp(argv[1], "r1") == 0) s = play_r1(in, n, argv[3], argv[4]);
  else if (strcmp(argv[1], "r2") == 0) s = play_r2(in, n, argv[3], argv[4]);
  else if (strcmp(argv[1], "upstream") == 0) s = upstream(in, n, argv[4]);
  else { fprintf(stderr, "unknown mode %s\n", argv[1]); return 2; }
  printf("status %d\n%s\n", s, failures ? "FAILED" : "ALL OK");
  free(in);
  return failures ? 1 : 0;
}
