/* A runtime loader's use of the COMGR shim, as a HotSwap-enabled ROCR does it: dlopen the
 * library, dlsym the entry points, and for a code object: create data, set it, read its ISA name,
 * rewrite it for gfx942, get the output size then the bytes, release everything. Also the bad
 * calls a loader must survive (garbage input, NULL pointers, stale handles), each with its exact
 * COMGR status, and the same sequence on N threads at once.
 *
 * usage: loader <libhotswap_comgr.so> <code-object> <expected-status> <expected-message> <out-file> <threads>
 * The status codes and the handle struct are COMGR's (amd_comgr.h); nothing else is assumed. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { uint64_t handle; } comgr_data_t;
typedef struct { uint64_t handle; } comgr_result_t;
typedef struct { /* the forks' v1 layout: flags at offset 32 */
  size_t size;
  const char *cache_directory;
  const char *cache_skip_kernels;
  const char *hotswap_rules_path;
  uint64_t flags;
} transpile_options_t;

enum { SUCCESS = 0, ERROR = 1, INVALID_ARGUMENT = 2 };
enum { KIND_UNDEF = 0, KIND_EXECUTABLE = 8 };
enum { OPT_STRICT = 1 << 2 };
enum { INFO_SUCCESS = 0, STR_BACKEND = 0, STR_CACHE_DETAIL = 4, STR_FAIL_DETAIL = 8 };

static int (*create_data)(int, comgr_data_t *);
static int (*release_data)(comgr_data_t);
static int (*set_data)(comgr_data_t, size_t, const char *);
static int (*get_data)(comgr_data_t, size_t *, char *);
static int (*get_isa)(comgr_data_t, size_t *, char *);
static int (*rewrite)(comgr_data_t, const char *, const char *, comgr_data_t *);
static int (*transpile)(comgr_data_t, const char *, const char *, const transpile_options_t *, comgr_data_t *, comgr_result_t *);
static int (*result_info)(comgr_result_t, int, void *);
static int (*result_string)(comgr_result_t, int, size_t *, char *);
static int (*destroy_result)(comgr_result_t);
static const char *(*last_error)(void);

static const char *SRC = "amdgcn-amd-amdhsa--gfx1250";
static const char *TGT = "amdgcn-amd-amdhsa--gfx942";

static char *input;
static size_t input_len;
static int expected_status;
static const char *expected_message;
static const char *out_path;
static comgr_data_t shared_input;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    if (!(cond)) {                                                    \
      pthread_mutex_lock(&print_lock);                                \
      fprintf(stderr, "FAIL %s:%d (%s): ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                   \
      fprintf(stderr, "\n");                                          \
      failures++;                                                     \
      pthread_mutex_unlock(&print_lock);                              \
    }                                                                 \
  } while (0)

#define SYM(var, name)                                   \
  do {                                                   \
    *(void **)(&var) = dlsym(lib, name);                 \
    if (!var) {                                          \
      fprintf(stderr, "dlsym %s: %s\n", name, dlerror()); \
      return 1;                                          \
    }                                                    \
  } while (0)

/* The loader sequence on one code object; `write` says whether to save the output. */
static void load_once(int thread, comgr_data_t in, bool write) {
  size_t isa_len = 0;
  CHECK(get_isa(in, &isa_len, NULL) == SUCCESS && isa_len > 1, "isa size");
  char isa[256] = {0};
  if (isa_len < sizeof isa) {
    CHECK(get_isa(in, &isa_len, isa) == SUCCESS, "isa name");
    CHECK(strstr(isa, "gfx1250") != NULL, "input isa is %s", isa);
  }

  comgr_data_t out = {0x5e17e1};
  int s = rewrite(in, SRC, TGT, &out);
  CHECK(s == expected_status, "thread %d: rewrite status %d, expected %d: %s", thread, s, expected_status, last_error());
  if (s == SUCCESS) {
    size_t n = 0;
    CHECK(get_data(out, &n, NULL) == SUCCESS && n > 0, "output size");
    char *bytes = malloc(n);
    CHECK(get_data(out, &n, bytes) == SUCCESS, "output bytes");
    CHECK(n > 4 && memcmp(bytes, "\x7f" "ELF", 4) == 0, "output is not ELF");
    size_t m = 0;
    char out_isa[256] = {0};
    CHECK(get_isa(out, &m, NULL) == SUCCESS && m < sizeof out_isa, "output isa size");
    CHECK(get_isa(out, &m, out_isa) == SUCCESS && strstr(out_isa, "gfx942"), "output isa %s", out_isa);
    if (write) {
      FILE *f = fopen(out_path, "wb");
      CHECK(f && fwrite(bytes, 1, n, f) == n, "write %s", out_path);
      if (f) fclose(f);
    }
    free(bytes);
    CHECK(release_data(out) == SUCCESS, "release output");
  } else {
    CHECK(out.handle == 0x5e17e1, "output modified on failure");
    CHECK(strstr(last_error(), expected_message) != NULL, "message `%s` lacks `%s`", last_error(), expected_message);
  }

  /* The same with options and a result object. */
  transpile_options_t opts = {sizeof opts, getenv("HSA_HOTSWAP_CACHE_DIR"), NULL, NULL, OPT_STRICT};
  comgr_result_t res = {0};
  comgr_data_t out2 = {0};
  s = transpile(in, SRC, TGT, &opts, &out2, &res);
  CHECK(s == expected_status, "transpile status %d: %s", s, last_error());
  CHECK(res.handle != 0, "no result object");
  bool ok = !expected_status;
  CHECK(result_info(res, INFO_SUCCESS, &ok) == SUCCESS && ok == (s == SUCCESS), "result success");
  size_t len = 0;
  CHECK(result_string(res, s == SUCCESS ? STR_CACHE_DETAIL : STR_FAIL_DETAIL, &len, NULL) == SUCCESS && len > 1, "message size");
  char *msg = calloc(len, 1);
  CHECK(result_string(res, s == SUCCESS ? STR_CACHE_DETAIL : STR_FAIL_DETAIL, &len, msg) == SUCCESS, "message");
  if (s != SUCCESS) CHECK(strstr(msg, expected_message) != NULL, "result message `%s`", msg);
  size_t small = 1;
  CHECK(result_string(res, STR_BACKEND, &small, msg) == INVALID_ARGUMENT, "too small a buffer");
  free(msg);
  CHECK(destroy_result(res) == SUCCESS, "destroy result");
  CHECK(destroy_result(res) == INVALID_ARGUMENT, "destroy twice");
  if (s == SUCCESS) CHECK(release_data(out2) == SUCCESS, "release output 2");
}

/* Calls a loader must survive, with COMGR's exact statuses. */
static void bad_calls(void) {
  comgr_data_t d = {0}, out = {0x77};
  CHECK(create_data(KIND_EXECUTABLE, NULL) == INVALID_ARGUMENT, "create NULL");
  CHECK(create_data(KIND_UNDEF, &d) == INVALID_ARGUMENT, "create UNDEF");
  CHECK(create_data(0x7777, &d) == INVALID_ARGUMENT, "create bad kind");
  CHECK(create_data(KIND_EXECUTABLE, &d) == SUCCESS && d.handle != 0, "create");

  /* No bytes yet. */
  CHECK(rewrite(d, SRC, TGT, &out) == INVALID_ARGUMENT, "empty input");
  /* Garbage bytes. */
  char garbage[256];
  for (int i = 0; i < 256; i++) garbage[i] = (char)(i * 73 + 5);
  CHECK(set_data(d, sizeof garbage, garbage) == SUCCESS, "set garbage");
  CHECK(rewrite(d, SRC, TGT, &out) == INVALID_ARGUMENT, "garbage: %s", last_error());
  CHECK(strlen(last_error()) > 0, "garbage without message");
  CHECK(out.handle == 0x77, "output touched");
  size_t n = 0;
  CHECK(get_isa(d, &n, NULL) == INVALID_ARGUMENT, "isa of garbage");
  /* A truncated code object. */
  CHECK(set_data(d, input_len / 3, input) == SUCCESS, "set truncated");
  CHECK(rewrite(d, SRC, TGT, &out) == INVALID_ARGUMENT, "truncated: %s", last_error());

  /* NULL pointers and bad names. */
  CHECK(set_data(d, input_len, input) == SUCCESS, "set");
  CHECK(set_data(d, 10, NULL) == INVALID_ARGUMENT, "set NULL bytes");
  CHECK(rewrite(d, NULL, TGT, &out) == INVALID_ARGUMENT, "NULL source");
  CHECK(rewrite(d, SRC, NULL, &out) == INVALID_ARGUMENT, "NULL target");
  CHECK(rewrite(d, SRC, TGT, NULL) == INVALID_ARGUMENT, "NULL output");
  /* Names that parse but a pair this library does not translate: ERROR, as official COMGR. */
  CHECK(rewrite(d, SRC, "amdgcn-amd-amdhsa--gfx1100", &out) == ERROR, "unsupported target");
  CHECK(rewrite(d, "amdgcn-amd-amdhsa--gfx942", TGT, &out) == ERROR, "wrong source");
  CHECK(rewrite(d, "not an isa", TGT, &out) == INVALID_ARGUMENT, "bad source name");
  CHECK(get_data(d, NULL, NULL) == INVALID_ARGUMENT, "get NULL size");
  CHECK(get_isa(d, NULL, NULL) == INVALID_ARGUMENT, "isa NULL size");
  transpile_options_t small = {4, NULL, NULL, NULL, 0};
  comgr_result_t res = {0};
  CHECK(transpile(d, SRC, TGT, &small, &out, &res) == INVALID_ARGUMENT, "small options");
  CHECK(res.handle == 0, "a result for invalid options");
  int st = -1;
  CHECK(result_info((comgr_result_t){0xbad}, INFO_SUCCESS, &st) == INVALID_ARGUMENT, "bogus result");
  CHECK(out.handle == 0x77, "output touched");

  /* Stale and bogus handles. */
  CHECK(release_data(d) == SUCCESS, "release");
  CHECK(release_data(d) == INVALID_ARGUMENT, "release twice");
  CHECK(rewrite(d, SRC, TGT, &out) == INVALID_ARGUMENT, "released input");
  CHECK(get_data((comgr_data_t){0xdeadbeef}, &n, NULL) == INVALID_ARGUMENT, "bogus handle");
  CHECK(release_data((comgr_data_t){0}) == INVALID_ARGUMENT, "zero handle");
}

static void *worker(void *arg) {
  int t = (int)(intptr_t)arg;
  for (int round = 0; round < 3; round++) {
    comgr_data_t in = {0};
    CHECK(create_data(KIND_EXECUTABLE, &in) == SUCCESS, "create");
    CHECK(set_data(in, input_len, input) == SUCCESS, "set");
    load_once(t, in, t == 0 && round == 0);
    CHECK(release_data(in) == SUCCESS, "release input");
    load_once(t, shared_input, false); /* one object, all threads */
    bad_calls();
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: loader <lib> <in> <status> <message> <out> <threads>\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
  SYM(create_data, "amd_comgr_create_data");
  SYM(release_data, "amd_comgr_release_data");
  SYM(set_data, "amd_comgr_set_data");
  SYM(get_data, "amd_comgr_get_data");
  SYM(get_isa, "amd_comgr_get_data_isa_name");
  SYM(rewrite, "amd_comgr_hotswap_rewrite");
  SYM(transpile, "amd_comgr_hotswap_transpile_with_options");
  SYM(result_info, "amd_comgr_hotswap_transpile_result_get_info");
  SYM(result_string, "amd_comgr_hotswap_transpile_result_get_string");
  SYM(destroy_result, "amd_comgr_destroy_hotswap_transpile_result");
  SYM(last_error, "hotswap_comgr_last_error");

  FILE *f = fopen(argv[2], "rb");
  if (!f) { perror(argv[2]); return 1; }
  fseek(f, 0, SEEK_END);
  input_len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  input = malloc(input_len);
  if (fread(input, 1, input_len, f) != input_len) { perror("read"); return 1; }
  fclose(f);
  expected_status = atoi(argv[3]);
  expected_message = argv[4];
  out_path = argv[5];
  int threads = atoi(argv[6]);

  CHECK(create_data(KIND_EXECUTABLE, &shared_input) == SUCCESS, "create shared");
  CHECK(set_data(shared_input, input_len, input) == SUCCESS, "set shared");
  pthread_t tid[64];
  if (threads < 1 || threads > 64) threads = 1;
  for (int t = 0; t < threads; t++) pthread_create(&tid[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
  CHECK(release_data(shared_input) == SUCCESS, "release shared");

  printf("threads %d\nexpected status %d\n%s\n", threads, expected_status, failures ? "FAILED" : "ALL OK");
  dlclose(lib);
  free(input);
  return failures ? 1 : 0;
}
