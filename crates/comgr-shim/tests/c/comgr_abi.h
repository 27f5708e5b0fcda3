/* The HotSwap COMGR interface as the runtimes that call it declare it, written from the published
 * facts (shared/COMGR_ABI.md: names, layouts, values), not from this library's sources: if the
 * library's layouts drift from these, the runtime plays fail. */
#ifndef COMGR_ABI_H
#define COMGR_ABI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  AMD_COMGR_STATUS_SUCCESS = 0x0,
  AMD_COMGR_STATUS_ERROR = 0x1,
  AMD_COMGR_STATUS_ERROR_INVALID_ARGUMENT = 0x2,
  AMD_COMGR_STATUS_ERROR_OUT_OF_RESOURCES = 0x3,
} amd_comgr_status_t;

enum { AMD_COMGR_DATA_KIND_SOURCE = 0x1, AMD_COMGR_DATA_KIND_EXECUTABLE = 0x8 };
typedef struct { uint64_t handle; } amd_comgr_data_t;

/* Family A (official COMGR). */
typedef struct {
  size_t size;
  uint64_t flags;
} amd_comgr_hotswap_rewrite_options_t;
enum { REWRITE_ENTRY_TRAMPOLINES = 0x1, REWRITE_STRICT_MODE = 0x2 };

/* Family B (the forks): v1, 40 bytes (size may end at flags). */
typedef struct {
  size_t size;
  const char *cache_directory;
  const char *cache_skip_kernels;
  const char *hotswap_rules_path;
  uint64_t flags;
} amd_comgr_hotswap_transpile_options_t;
/* The revision that appended two fields (56 bytes). */
typedef struct {
  size_t size;
  const char *cache_directory;
  const char *cache_skip_kernels;
  const char *hotswap_rules_path;
  uint64_t flags;
  const char *kernel_name;
  uint32_t opt_level;
} amd_comgr_hotswap_transpile_options_rev_t;
/* v2, 56 bytes, no size. */
typedef struct {
  uint32_t version;
  const char *cache_directory;
  const char *cache_skip_kernels;
  const char *hotswap_rules_path;
  uint64_t flags;
  const char *kernel_name;
  uint32_t opt_level;
} amd_comgr_hotswap_transpile_options_v2_t;
enum {
  T_CACHE_DISABLE = 1 << 0,
  T_CACHE_READONLY = 1 << 1,
  T_STRICT = 1 << 2,
  T_ASSUME_HIP_GLOBAL_OFFSET_ZERO = 1 << 3,
  T_USE_OPT_LEVEL = 1 << 4,
  T_USE_KERNEL_NAME = 1 << 5,
};
typedef struct { uint64_t handle; } amd_comgr_hotswap_transpile_result_t;
enum {
  I_SUCCESS = 0, I_CACHE_HIT = 1, I_CACHE_LOOKUP = 2, I_CACHE_WRITE = 3, I_LIFTED_COUNT = 4,
  I_TOTAL_COUNT = 5, I_SCALED_DISPATCH_FACTOR = 6, I_DOUBLED_DISPATCH_FACTOR = 7,
};
enum { LOOKUP_DISABLED = 0, LOOKUP_BYPASSED = 1, LOOKUP_MISS = 2, LOOKUP_HIT = 3, LOOKUP_INVALID = 4 };
enum { WRITE_NOT_ATTEMPTED = 0, WRITE_SUCCESS = 1, WRITE_FAILED = 2 };
enum {
  S_BACKEND = 0, S_SOURCE_GFX, S_TARGET_GFX, S_CACHE_KEY, S_CACHE_DETAIL, S_CACHE_METADATA_PATH,
  S_CACHE_OBJECT_PATH, S_FAIL_REASON, S_FAIL_DETAIL, S_TIMING_JSON, S_KERNEL_NAME,
};

_Static_assert(sizeof(amd_comgr_hotswap_rewrite_options_t) == 16, "rewrite options");
_Static_assert(sizeof(amd_comgr_hotswap_transpile_options_t) == 40, "v1 options");
_Static_assert(offsetof(amd_comgr_hotswap_transpile_options_t, flags) == 32, "v1 flags");
_Static_assert(sizeof(amd_comgr_hotswap_transpile_options_rev_t) == 56, "v1 revision");
_Static_assert(offsetof(amd_comgr_hotswap_transpile_options_rev_t, opt_level) == 48, "v1 revision opt");
_Static_assert(sizeof(amd_comgr_hotswap_transpile_options_v2_t) == 56, "v2 options");
_Static_assert(offsetof(amd_comgr_hotswap_transpile_options_v2_t, kernel_name) == 40, "v2 kernel");

/* Shared helpers of the plays. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "FAIL %s:%d (%s): ", __FILE__, __LINE__, #cond);    \
      fprintf(stderr, __VA_ARGS__);                                       \
      fprintf(stderr, "\n");                                              \
      failures++;                                                         \
    }                                                                     \
  } while (0)

static inline char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc(*len ? *len : 1);
  if (fread(b, 1, *len, f) != *len) { perror(path); exit(2); }
  fclose(f);
  return b;
}

static inline void write_file(const char *path, const char *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(bytes, 1, n, f) == n, "write %s", path);
  if (f) fclose(f);
}

/* R3's environment truthiness: any non-empty value other than "0". */
static inline bool r3_env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

/* R1/R2's: off when unset, "", 0, off, false, no, n, f. */
static inline bool r1_env_on(const char *name) {
  const char *v = getenv(name);
  if (!v || !*v) return false;
  const char *off[] = {"0", "off", "false", "no", "n", "f", "OFF", "FALSE", "NO", "N", "F"};
  for (size_t i = 0; i < sizeof off / sizeof *off; i++)
    if (strcmp(v, off[i]) == 0) return false;
  return true;
}
#endif
