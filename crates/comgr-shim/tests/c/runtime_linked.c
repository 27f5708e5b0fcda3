/* The runtimes that link COMGR at build time (DT_NEEDED libamd_comgr.so.3), played against an
 * installed tree:
 *   r3        the IR-raiser fork: transpile_with_options with v1 options filled from its
 *             environment, then every info 0-5 and string 0-8 (any non-SUCCESS fails the load)
 *   r3b       its lazy variant: transpile_with_options_v2 per kernel (USE_KERNEL_NAME), info 6
 *             read as an int64 dispatch scale factor initialised to 1; writes <out>.<kernel>
 *   upstream  upstream's family B cases: headers-only ELF (ERROR), cache miss then hit, opt level
 *             in the key, v2 argument checks (no result made), NULL options, the 56-byte revision
 * usage: runtime_linked <mode> <in.hsaco> <out> <agent-isa> [kernel...] */
#include "comgr_abi.h"

amd_comgr_status_t amd_comgr_create_data(int kind, amd_comgr_data_t *data);
amd_comgr_status_t amd_comgr_release_data(amd_comgr_data_t data);
amd_comgr_status_t amd_comgr_set_data(amd_comgr_data_t data, size_t size, const char *bytes);
amd_comgr_status_t amd_comgr_get_data(amd_comgr_data_t data, size_t *size, char *bytes);
amd_comgr_status_t amd_comgr_get_data_isa_name(amd_comgr_data_t data, size_t *size, char *isa_name);
amd_comgr_status_t amd_comgr_hotswap_transpile(amd_comgr_data_t input, const char *source_isa_name,
                                               const char *target_isa_name, amd_comgr_data_t *output);
amd_comgr_status_t amd_comgr_hotswap_transpile_with_options(amd_comgr_data_t input, const char *source_isa_name,
                                                            const char *target_isa_name,
                                                            const amd_comgr_hotswap_transpile_options_t *options,
                                                            amd_comgr_data_t *output,
                                                            amd_comgr_hotswap_transpile_result_t *result);
amd_comgr_status_t amd_comgr_hotswap_transpile_with_options_v2(amd_comgr_data_t input, const char *source_isa_name,
                                                               const char *target_isa_name,
                                                               const amd_comgr_hotswap_transpile_options_v2_t *options,
                                                               amd_comgr_data_t *output,
                                                               amd_comgr_hotswap_transpile_result_t *result);
amd_comgr_status_t amd_comgr_destroy_hotswap_transpile_result(amd_comgr_hotswap_transpile_result_t result);
amd_comgr_status_t amd_comgr_hotswap_transpile_result_get_info(amd_comgr_hotswap_transpile_result_t result,
                                                               int info, void *value);
amd_comgr_status_t amd_comgr_hotswap_transpile_result_get_string(amd_comgr_hotswap_transpile_result_t result,
                                                                 int field, size_t *size, char *value);

static const int INVALID = AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT;

static amd_comgr_data_t make_input(const char *bytes, size_t n) {
  amd_comgr_data_t d = {0};
  CHECK(amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &d) == AMD_COMGR_STATUS_SUCCESS, "create");
  CHECK(amd_comgr_set_data(d, n, bytes) == AMD_COMGR_STATUS_SUCCESS, "set");
  return d;
}

static char *get_string(amd_comgr_hotswap_transpile_result_t r, int field) {
  size_t n = 0;
  CHECK(amd_comgr_hotswap_transpile_result_get_string(r, field, &n, NULL) == AMD_COMGR_STATUS_SUCCESS && n >= 1, "string %d size", field);
  char *s = calloc(n ? n : 1, 1);
  CHECK(amd_comgr_hotswap_transpile_result_get_string(r, field, &n, s) == AMD_COMGR_STATUS_SUCCESS, "string %d", field);
  return s;
}

/* The result as R3 reads it: every info 0-5 and string 0-8 must answer SUCCESS. */
typedef struct {
  bool success, hit;
  uint32_t lookup, write;
  int64_t lifted, total;
  char *strings[11];
} result_t;

static result_t read_result(amd_comgr_hotswap_transpile_result_t r, int last_string) {
  result_t x;
  memset(&x, 0, sizeof x);
  CHECK(amd_comgr_hotswap_transpile_result_get_info(r, I_SUCCESS, &x.success) == AMD_COMGR_STATUS_SUCCESS, "info 0");
  CHECK(amd_comgr_hotswap_transpile_result_get_info(r, I_CACHE_HIT, &x.hit) == AMD_COMGR_STATUS_SUCCESS, "info 1");
  CHECK(amd_comgr_hotswap_transpile_result_get_info(r, I_CACHE_LOOKUP, &x.lookup) == AMD_COMGR_STATUS_SUCCESS, "info 2");
  CHECK(amd_comgr_hotswap_transpile_result_get_info(r, I_CACHE_WRITE, &x.write) == AMD_COMGR_STATUS_SUCCESS, "info 3");
  CHECK(amd_comgr_hotswap_transpile_result_get_info(r, I_LIFTED_COUNT, &x.lifted) == AMD_COMGR_STATUS_SUCCESS, "info 4");
  CHECK(amd_comgr_hotswap_transpile_result_get_info(r, I_TOTAL_COUNT, &x.total) == AMD_COMGR_STATUS_SUCCESS, "info 5");
  for (int f = 0; f <= last_string; f++) x.strings[f] = get_string(r, f);
  printf("result: success %d hit %d lookup %u write %u lifted %lld total %lld backend %s source %s target %s key %s "
         "detail {%s} reason {%s} fail {%s}\n",
         x.success, x.hit, x.lookup, x.write, (long long)x.lifted, (long long)x.total, x.strings[S_BACKEND],
         x.strings[S_SOURCE_GFX], x.strings[S_TARGET_GFX], x.strings[S_CACHE_KEY], x.strings[S_CACHE_DETAIL],
         x.strings[S_FAIL_REASON], x.strings[S_FAIL_DETAIL]);
  return x;
}

static void free_result(result_t *x) {
  for (int i = 0; i < 11; i++) free(x->strings[i]);
}

static char *take_output(amd_comgr_data_t out, size_t *len) {
  size_t n = 0;
  CHECK(amd_comgr_get_data(out, &n, NULL) == AMD_COMGR_STATUS_SUCCESS && n > 0, "output size");
  char *b = malloc(n ? n : 1);
  size_t m = n;
  CHECK(amd_comgr_get_data(out, &m, b) == AMD_COMGR_STATUS_SUCCESS && m == n, "output bytes");
  CHECK(amd_comgr_release_data(out) == AMD_COMGR_STATUS_SUCCESS, "release output");
  *len = n;
  return b;
}

static char *source_isa(amd_comgr_data_t d) {
  size_t n = 0;
  CHECK(amd_comgr_get_data_isa_name(d, &n, NULL) == AMD_COMGR_STATUS_SUCCESS, "isa size");
  char *s = calloc(n + 1, 1);
  CHECK(amd_comgr_get_data_isa_name(d, &n, s) == AMD_COMGR_STATUS_SUCCESS, "isa");
  return s;
}

/* R3: options from its environment; a failed call or query fails the load. */
static int play_r3(const char *in, size_t n, const char *out_path, const char *agent) {
  amd_comgr_data_t d = make_input(in, n);
  char *src = source_isa(d);
  uint64_t flags = 0;
  if (r3_env_on("HSA_HOTSWAP_CACHE_DISABLE")) flags |= T_CACHE_DISABLE;
  if (r3_env_on("HSA_HOTSWAP_CACHE_READONLY")) flags |= T_CACHE_READONLY;
  if (r3_env_on("HSA_HOTSWAP_STRICT")) flags |= T_STRICT;
  amd_comgr_hotswap_transpile_options_t o = {sizeof o, getenv("HSA_HOTSWAP_CACHE_DIR"),
                                             getenv("HSA_HOTSWAP_CACHE_SKIP_KERNELS"), getenv("HSA_HOTSWAP_RULES"), flags};
  int last = -1;
  for (int round = 0; round < 2; round++) {
    amd_comgr_data_t out = {0};
    amd_comgr_hotswap_transpile_result_t res = {0};
    amd_comgr_status_t s = amd_comgr_hotswap_transpile_with_options(d, src, agent, &o, &out, &res);
    CHECK(res.handle != 0, "no result");
    result_t x = read_result(res, S_FAIL_DETAIL);
    printf("round %d status %d\n", round, s);
    CHECK(x.success == (s == AMD_COMGR_STATUS_SUCCESS), "success info");
    CHECK(strcmp(x.strings[S_BACKEND], "comgr") == 0, "backend %s", x.strings[S_BACKEND]);
    if (s == AMD_COMGR_STATUS_SUCCESS) {
      size_t len = 0;
      char *b = take_output(out, &len);
      if (round == 0) write_file(out_path, b, len);
      free(b);
      CHECK(x.lifted == x.total && x.total >= 1, "counts %lld/%lld", (long long)x.lifted, (long long)x.total);
      CHECK(strcmp(x.strings[S_SOURCE_GFX], "gfx1250") == 0, "source gfx %s", x.strings[S_SOURCE_GFX]);
      CHECK(strstr(agent, x.strings[S_TARGET_GFX]) != NULL, "target gfx %s", x.strings[S_TARGET_GFX]);
      if (o.cache_directory && *o.cache_directory && !(flags & T_CACHE_DISABLE)) {
        /* The cache: a miss that writes, then a hit. */
        CHECK(strlen(x.strings[S_CACHE_KEY]) == 64, "cache key %s", x.strings[S_CACHE_KEY]);
        if (round == 0) CHECK(!x.hit && x.lookup == LOOKUP_MISS && x.write == WRITE_SUCCESS, "first: miss and write");
        if (round == 1) CHECK(x.hit && x.lookup == LOOKUP_HIT && x.write == WRITE_NOT_ATTEMPTED, "second: hit");
      } else {
        CHECK(!x.hit && x.lookup == LOOKUP_DISABLED, "no cache: lookup %u", x.lookup);
      }
    } else {
      CHECK(strlen(x.strings[S_FAIL_REASON]) > 0 && strlen(x.strings[S_FAIL_DETAIL]) > 0, "a failure says why");
    }
    CHECK(amd_comgr_destroy_hotswap_transpile_result(res) == AMD_COMGR_STATUS_SUCCESS, "destroy");
    free_result(&x);
    last = s;
  }
  free(src);
  amd_comgr_release_data(d);
  return last;
}

/* R3b: one v2 call per kernel; info 6 is the dispatch scale factor. */
static int play_r3b(const char *in, size_t n, const char *out_path, const char *agent, int nk, char **kernels) {
  amd_comgr_data_t d = make_input(in, n);
  char *src = source_isa(d);
  int status = 0;
  for (int k = 0; k < nk; k++) {
    uint64_t flags = T_USE_KERNEL_NAME;
    if (r3_env_on("HSA_HOTSWAP_CACHE_DISABLE")) flags |= T_CACHE_DISABLE;
    amd_comgr_hotswap_transpile_options_v2_t o = {2, getenv("HSA_HOTSWAP_CACHE_DIR"), NULL, NULL, flags, kernels[k], 0};
    amd_comgr_data_t out = {0};
    amd_comgr_hotswap_transpile_result_t res = {0};
    amd_comgr_status_t s = amd_comgr_hotswap_transpile_with_options_v2(d, src, agent, &o, &out, &res);
    if (s != AMD_COMGR_STATUS_SUCCESS) {
      fprintf(stderr, "kernel %s: status %d: R3b aborts\n", kernels[k], s);
      abort();
    }
    result_t x = read_result(res, S_KERNEL_NAME);
    int64_t scale = 1;
    CHECK(amd_comgr_hotswap_transpile_result_get_info(res, I_SCALED_DISPATCH_FACTOR, &scale) == AMD_COMGR_STATUS_SUCCESS && scale == 1,
          "scale factor %lld", (long long)scale);
    /* All 8 bytes are written (a 4-byte write would leave part of this pattern). */
    int64_t wide = 0x7777777777777777;
    CHECK(amd_comgr_hotswap_transpile_result_get_info(res, I_SCALED_DISPATCH_FACTOR, &wide) == AMD_COMGR_STATUS_SUCCESS && wide == 1,
          "scale factor is not an int64 1: %llx", (long long)wide);
    CHECK(strcmp(x.strings[S_KERNEL_NAME], kernels[k]) == 0, "kernel name %s", x.strings[S_KERNEL_NAME]);
    CHECK(x.lifted == 1, "lifted %lld", (long long)x.lifted);
    printf("kernel %s lookup %u hit %d key %s\n", kernels[k], x.lookup, x.hit, x.strings[S_CACHE_KEY]);
    size_t len = 0;
    char *b = take_output(out, &len);
    char path[4096];
    snprintf(path, sizeof path, "%s.%s", out_path, kernels[k]);
    write_file(path, b, len);
    free(b);
    CHECK(amd_comgr_destroy_hotswap_transpile_result(res) == AMD_COMGR_STATUS_SUCCESS, "destroy");
    free_result(&x);
  }
  free(src);
  amd_comgr_release_data(d);
  return status;
}

/* One v2 call; returns its status and, when a result was made, its cache key and lookup. */
static amd_comgr_status_t v2_call(amd_comgr_data_t d, const char *agent, amd_comgr_hotswap_transpile_options_v2_t *o,
                                  char **key, uint32_t *lookup) {
  amd_comgr_data_t out = {0x99};
  amd_comgr_hotswap_transpile_result_t res = {0x1234};
  amd_comgr_status_t s = amd_comgr_hotswap_transpile_with_options_v2(d, "amdgcn-amd-amdhsa--gfx1250", agent, o, &out, &res);
  if (s == INVALID) {
    CHECK(res.handle == 0x1234, "a result was made for an invalid argument");
    CHECK(out.handle == 0x99, "output written for an invalid argument");
    return s;
  }
  if (key) *key = get_string(res, S_CACHE_KEY);
  if (lookup) amd_comgr_hotswap_transpile_result_get_info(res, I_CACHE_LOOKUP, lookup);
  if (s == AMD_COMGR_STATUS_SUCCESS) amd_comgr_release_data(out);
  amd_comgr_destroy_hotswap_transpile_result(res);
  return s;
}

static int upstream(const char *in, size_t n, const char *agent, const char *cache_dir) {
  const char *SRC = "amdgcn-amd-amdhsa--gfx1250";
  amd_comgr_data_t d = make_input(in, n);
  amd_comgr_data_t out = {0x77};
  amd_comgr_hotswap_transpile_result_t res = {0x55};

  /* NULL and zero-size inputs, bad ISA, wrong kind: INVALID_ARGUMENT and no result. */
  CHECK(amd_comgr_hotswap_transpile_with_options((amd_comgr_data_t){0}, SRC, agent, NULL, &out, &res) == INVALID, "NULL input");
  amd_comgr_data_t empty = {0};
  amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &empty);
  CHECK(amd_comgr_hotswap_transpile_with_options(empty, SRC, agent, NULL, &out, &res) == INVALID, "zero-size input");
  amd_comgr_release_data(empty);
  CHECK(amd_comgr_hotswap_transpile_with_options(d, "gfx", agent, NULL, &out, &res) == INVALID, "bad source ISA");
  CHECK(amd_comgr_hotswap_transpile_with_options(d, SRC, "amdgcn-amd-amdhsa--", NULL, &out, &res) == INVALID, "bad target ISA");
  amd_comgr_data_t wrong = {0};
  amd_comgr_create_data(AMD_COMGR_DATA_KIND_SOURCE, &wrong);
  amd_comgr_set_data(wrong, n, in);
  CHECK(amd_comgr_hotswap_transpile(wrong, SRC, agent, &out) == INVALID, "wrong kind");
  amd_comgr_release_data(wrong);
  amd_comgr_hotswap_transpile_options_t small = {16, NULL, NULL, NULL, 0};
  CHECK(amd_comgr_hotswap_transpile_with_options(d, SRC, agent, &small, &out, &res) == INVALID, "v1 size 16");
  CHECK(res.handle == 0x55 && out.handle == 0x77, "written for an invalid argument");

  /* A headers-only ELF (the object's 64-byte ELF header alone): ERROR, with a result saying why. */
  amd_comgr_data_t hdr = make_input(in, 64);
  amd_comgr_status_t s = amd_comgr_hotswap_transpile_with_options(hdr, SRC, agent, NULL, &out, &res);
  CHECK(s == AMD_COMGR_STATUS_ERROR, "headers-only ELF: %d", s);
  CHECK(res.handle != 0x55, "no result for a failure");
  if (res.handle != 0x55) {
    result_t x = read_result(res, S_KERNEL_NAME);
    CHECK(!x.success && strlen(x.strings[S_FAIL_REASON]) > 0, "fail reason");
    free_result(&x);
    amd_comgr_destroy_hotswap_transpile_result(res);
  }
  CHECK(amd_comgr_hotswap_transpile(hdr, SRC, agent, &out) == AMD_COMGR_STATUS_ERROR, "headers-only ELF, transpile");
  amd_comgr_data_t tiny = make_input(in, 16);
  CHECK(amd_comgr_hotswap_transpile(tiny, SRC, agent, &out) == AMD_COMGR_STATUS_ERROR, "16-byte ELF ident");
  amd_comgr_release_data(hdr);
  amd_comgr_release_data(tiny);
  CHECK(out.handle == 0x77, "output written on failure");

  /* NULL options: no cache, the environment (which names a cache directory) is not read. */
  res.handle = 0;
  s = amd_comgr_hotswap_transpile_with_options(d, SRC, agent, NULL, &out, &res);
  CHECK(s == AMD_COMGR_STATUS_SUCCESS, "NULL options: %d", s);
  uint32_t lookup = 99;
  amd_comgr_hotswap_transpile_result_get_info(res, I_CACHE_LOOKUP, &lookup);
  CHECK(lookup == LOOKUP_DISABLED, "NULL options used a cache: lookup %u", lookup);
  amd_comgr_destroy_hotswap_transpile_result(res);
  if (s == AMD_COMGR_STATUS_SUCCESS) amd_comgr_release_data(out);
  /* Unknown v1 flag bits are ignored. */
  amd_comgr_hotswap_transpile_options_t unknown = {40, NULL, NULL, NULL, T_CACHE_DISABLE | (1ull << 40)};
  CHECK(amd_comgr_hotswap_transpile_with_options(d, SRC, agent, &unknown, &out, NULL) == AMD_COMGR_STATUS_SUCCESS, "unknown v1 bits");
  amd_comgr_release_data(out);

  /* The cache: miss then hit; a rules path is accepted and changes the key. */
  amd_comgr_hotswap_transpile_options_t cached = {40, cache_dir, NULL, NULL, 0};
  char *keys[3] = {0};
  uint32_t lookups[3] = {0};
  for (int i = 0; i < 2; i++) {
    s = amd_comgr_hotswap_transpile_with_options(d, SRC, agent, &cached, &out, &res);
    CHECK(s == AMD_COMGR_STATUS_SUCCESS, "cached call %d: %d", i, s);
    keys[i] = get_string(res, S_CACHE_KEY);
    amd_comgr_hotswap_transpile_result_get_info(res, I_CACHE_LOOKUP, &lookups[i]);
    amd_comgr_destroy_hotswap_transpile_result(res);
    if (s == AMD_COMGR_STATUS_SUCCESS) amd_comgr_release_data(out);
  }
  CHECK(lookups[0] == LOOKUP_MISS && lookups[1] == LOOKUP_HIT, "miss then hit: %u %u", lookups[0], lookups[1]);
  CHECK(strcmp(keys[0], keys[1]) == 0, "keys differ");
  amd_comgr_hotswap_transpile_options_t rules = {40, cache_dir, NULL, "/nonexistent/rules.json", 0};
  s = amd_comgr_hotswap_transpile_with_options(d, SRC, agent, &rules, &out, &res);
  CHECK(s == AMD_COMGR_STATUS_SUCCESS, "rules path: %d", s);
  keys[2] = get_string(res, S_CACHE_KEY);
  CHECK(strcmp(keys[0], keys[2]) != 0, "the rules path is not in the key");
  amd_comgr_destroy_hotswap_transpile_result(res);
  if (s == AMD_COMGR_STATUS_SUCCESS) amd_comgr_release_data(out);
  for (int i = 0; i < 3; i++) free(keys[i]);

  /* Opt level in the key (v2 USE_OPT_LEVEL): -O1 is not served -O2's entry. */
  amd_comgr_hotswap_transpile_options_v2_t o2 = {2, cache_dir, NULL, NULL, T_USE_OPT_LEVEL, NULL, 2};
  amd_comgr_hotswap_transpile_options_v2_t o1 = o2;
  o1.opt_level = 1;
  char *k2 = NULL, *k1 = NULL, *k1b = NULL;
  uint32_t l2 = 0, l1 = 0, l1b = 0;
  CHECK(v2_call(d, agent, &o2, &k2, &l2) == AMD_COMGR_STATUS_SUCCESS, "v2 -O2");
  CHECK(v2_call(d, agent, &o1, &k1, &l1) == AMD_COMGR_STATUS_SUCCESS, "v2 -O1");
  CHECK(v2_call(d, agent, &o1, &k1b, &l1b) == AMD_COMGR_STATUS_SUCCESS, "v2 -O1 again");
  CHECK(k1 && k2 && strcmp(k1, k2) != 0, "opt level is not in the key");
  CHECK(l1 == LOOKUP_MISS && l1b == LOOKUP_HIT, "-O1: %u then %u", l1, l1b);
  free(k1), free(k2), free(k1b);
  /* The 56-byte v1 revision: opt level by size. */
  amd_comgr_hotswap_transpile_options_rev_t rev = {56, cache_dir, NULL, NULL, T_USE_OPT_LEVEL, NULL, 1};
  s = amd_comgr_hotswap_transpile_with_options(d, SRC, agent, (const amd_comgr_hotswap_transpile_options_t *)&rev, &out, &res);
  CHECK(s == AMD_COMGR_STATUS_SUCCESS, "56-byte revision: %d", s);
  amd_comgr_hotswap_transpile_result_get_info(res, I_CACHE_LOOKUP, &lookup);
  CHECK(lookup == LOOKUP_HIT, "56-byte revision at -O1: not -O1's entry (lookup %u)", lookup);
  amd_comgr_destroy_hotswap_transpile_result(res);
  if (s == AMD_COMGR_STATUS_SUCCESS) amd_comgr_release_data(out);
  rev.opt_level = 9;
  CHECK(amd_comgr_hotswap_transpile_with_options(d, SRC, agent, (const amd_comgr_hotswap_transpile_options_t *)&rev, &out, NULL) == INVALID, "rev opt 9");

  /* v2 argument checks: no result is made. */
  amd_comgr_hotswap_transpile_options_v2_t bad = {1, NULL, NULL, NULL, 0, NULL, 0};
  CHECK(v2_call(d, agent, &bad, NULL, NULL) == INVALID, "version 1");
  bad.version = 2;
  bad.flags = T_USE_KERNEL_NAME;
  CHECK(v2_call(d, agent, &bad, NULL, NULL) == INVALID, "USE_KERNEL_NAME, NULL name");
  bad.kernel_name = "";
  CHECK(v2_call(d, agent, &bad, NULL, NULL) == INVALID, "USE_KERNEL_NAME, empty name");
  bad.flags = T_USE_OPT_LEVEL;
  bad.opt_level = 4;
  CHECK(v2_call(d, agent, &bad, NULL, NULL) == INVALID, "opt level 4");
  bad.flags = T_USE_KERNEL_NAME | T_CACHE_DISABLE;
  bad.kernel_name = "no_such_kernel";
  CHECK(v2_call(d, agent, &bad, NULL, NULL) == AMD_COMGR_STATUS_ERROR, "unknown kernel");

  /* Result API edges. */
  CHECK(amd_comgr_destroy_hotswap_transpile_result((amd_comgr_hotswap_transpile_result_t){0}) == INVALID, "destroy {0}");
  s = amd_comgr_hotswap_transpile_with_options(d, SRC, agent, NULL, &out, &res);
  int64_t v = 0x7777777777777777;
  CHECK(amd_comgr_hotswap_transpile_result_get_info(res, 8, &v) == INVALID, "info 8");
  CHECK(amd_comgr_hotswap_transpile_result_get_info(res, I_DOUBLED_DISPATCH_FACTOR, &v) == AMD_COMGR_STATUS_SUCCESS && v == 1, "info 7");
  size_t sz = 0;
  CHECK(amd_comgr_hotswap_transpile_result_get_string(res, 0xb, &sz, NULL) == INVALID, "string 0xb");
  char one[1];
  sz = 1;
  CHECK(amd_comgr_hotswap_transpile_result_get_string(res, S_BACKEND, &sz, one) == INVALID, "too small");
  amd_comgr_destroy_hotswap_transpile_result(res);
  CHECK(amd_comgr_destroy_hotswap_transpile_result(res) == INVALID, "destroy twice");
  if (s == AMD_COMGR_STATUS_SUCCESS) amd_comgr_release_data(out);
  amd_comgr_release_data(d);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 5) { fprintf(stderr, "usage: runtime_linked <r3|r3b|upstream> <in> <out> <agent-isa> [kernel...|cache-dir]\n"); return 2; }
  size_t n = 0;
  char *in = read_file(argv[2], &n);
  int s;
  if (strcmp(argv[1], "r3") == 0) s = play_r3(in, n, argv[3], argv[4]);
  else if (strcmp(argv[1], "r3b") == 0) s = play_r3b(in, n, argv[3], argv[4], argc - 5, argv + 5);
  else if (strcmp(argv[1], "upstream") == 0 && argc == 6) s = upstream(in, n, argv[4], argv[5]);
  else { fprintf(stderr, "unknown mode %s\n", argv[1]); return 2; }
  printf("status %d\n%s\n", s, failures ? "FAILED" : "ALL OK");
  free(in);
  return failures ? 1 : 0;
}
