/* A C client of libhotswap_capi, built against include/hotswap.h and linked with -lhotswap_capi.
 * usage: client <code-object> <expected-status-name> <expected-message-substring> [out-file [threads [cache-dir]]]
 * Checks the exact statuses of bad calls, then translates the file on `threads` threads at once
 * (default 1; with cache-dir, through that cache) and checks the outcome; thread 0 writes the
 * output. */
#include "hotswap.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      pthread_mutex_lock(&lock);                           \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      failures++;                                          \
      pthread_mutex_unlock(&lock);                         \
    }                                                      \
  } while (0)

static unsigned char *input;
static size_t input_len;
static const char *want_status, *want_message, *out_path, *cache_dir;

/* One translation of the input, as each thread does it; hx_last_error is per thread. */
static void *translate_input(void *arg) {
  int thread = (int)(intptr_t)arg;
  hx_options opts;
  CHECK(hx_options_init(&opts) == HX_STATUS_OK, "hx_options_init");
  opts.cache_dir = cache_dir;
  hx_buffer out = {(uint8_t *)1, 1};
  hx_status s = hx_translate(input, input_len, &opts, &out);
  if (thread == 0) {
    pthread_mutex_lock(&lock);
    printf("status %s\nmessage %s\n", hx_status_name(s), hx_last_error());
    pthread_mutex_unlock(&lock);
  }
  CHECK(strcmp(hx_status_name(s), want_status) == 0, "thread %d: status %s, expected %s: %s", thread, hx_status_name(s), want_status, hx_last_error());
  CHECK(strstr(hx_last_error(), want_message) != NULL, "thread %d: message `%s` lacks `%s`", thread, hx_last_error(), want_message);
  if (s == HX_STATUS_OK) {
    CHECK(out.data != NULL && out.len > 4 && memcmp(out.data, "\x7f" "ELF", 4) == 0, "OK without an ELF object");
    CHECK(strlen(hx_last_error()) == 0, "success left a message: %s", hx_last_error());
    if (out_path && thread == 0) {
      FILE *f = fopen(out_path, "wb");
      CHECK(f && fwrite(out.data, 1, out.len, f) == out.len, "cannot write %s", out_path);
      if (f) fclose(f);
    }
  } else {
    CHECK(out.data == NULL && out.len == 0, "failure left a buffer");
  }
  hx_buffer_free(&out);
  CHECK(out.data == NULL && out.len == 0, "hx_buffer_free did not clear");
  return NULL;
}

static unsigned char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(buf); return NULL; }
  fclose(f);
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: client <in> <status> <message> [out]\n"); return 2; }
  const char *v = hx_version();
  CHECK(v && strlen(v) > 0, "hx_version is empty");
  printf("version %s\n", v);

  hx_options opts;
  CHECK(hx_options_init(&opts) == HX_STATUS_OK, "hx_options_init");
  CHECK(opts.struct_size == sizeof(hx_options), "struct_size %u", opts.struct_size);
  CHECK(opts.target == HX_TARGET_GFX942, "default target %u", opts.target);

  hx_buffer out = {(uint8_t *)1, 1};
  unsigned char garbage[64];
  for (int i = 0; i < 64; i++) garbage[i] = (unsigned char)(i * 37 + 11);

  /* Bad arguments: exact statuses, the buffer cleared, a message set. */
  CHECK(hx_translate(NULL, 10, &opts, &out) == HX_STATUS_INVALID_ARGUMENT, "NULL data");
  CHECK(out.data == NULL && out.len == 0, "out not cleared");
  CHECK(strstr(hx_last_error(), "data is NULL") != NULL, "message: %s", hx_last_error());
  CHECK(hx_translate(garbage, 0, &opts, &out) == HX_STATUS_INVALID_ARGUMENT, "zero length");
  CHECK(hx_translate(garbage, sizeof garbage, &opts, NULL) == HX_STATUS_INVALID_ARGUMENT, "NULL out");
  CHECK(hx_translate(garbage, (size_t)-1, &opts, &out) == HX_STATUS_INVALID_ARGUMENT, "huge length");
  hx_options bad = opts;
  bad.target = 1250;
  CHECK(hx_translate(garbage, sizeof garbage, &bad, &out) == HX_STATUS_INVALID_ARGUMENT, "bad target");
  CHECK(strstr(hx_last_error(), "1250") != NULL, "message: %s", hx_last_error());
  bad = opts;
  bad.struct_size = 4;
  CHECK(hx_translate(garbage, sizeof garbage, &bad, &out) == HX_STATUS_INVALID_ARGUMENT, "small struct");
  bad = opts;
  bad.flags = 0x80000000u;
  CHECK(hx_translate(garbage, sizeof garbage, &bad, &out) == HX_STATUS_INVALID_ARGUMENT, "unknown flag");
  CHECK(hx_translate(garbage, sizeof garbage, &opts, &out) == HX_STATUS_BAD_INPUT, "garbage: %s", hx_last_error());
  CHECK(strlen(hx_last_error()) > 0, "garbage has no message");
  hx_buffer_free(NULL);
  hx_buffer_free(&out);
  CHECK(strcmp(hx_status_name(HX_STATUS_NOT_IMPLEMENTED), "HX_STATUS_NOT_IMPLEMENTED") == 0, "status name");
  CHECK(strcmp(hx_status_name(999), "HX_STATUS_UNKNOWN") == 0, "unknown status name");

  /* Prewarming takes the translation's options and refuses bad ones alike. */
  CHECK(hx_prewarm(&bad) == HX_STATUS_INVALID_ARGUMENT, "prewarm with an unknown flag");
  CHECK(hx_prewarm(&opts) == HX_STATUS_OK, "prewarm: %s", hx_last_error());
  CHECK(strcmp(hx_last_error(), "") == 0, "prewarm left a message: %s", hx_last_error());

  /* The real input, on N threads at once. */
  want_status = argv[2];
  want_message = argv[3];
  out_path = argc > 4 ? argv[4] : NULL;
  int threads = argc > 5 ? atoi(argv[5]) : 1;
  if (threads < 1 || threads > 64) threads = 1;
  cache_dir = argc > 6 ? argv[6] : NULL;
  input = read_file(argv[1], &input_len);
  CHECK(input != NULL, "cannot read %s", argv[1]);
  if (input) {
    pthread_t tid[64];
    for (int t = 0; t < threads; t++) pthread_create(&tid[t], NULL, translate_input, (void *)(intptr_t)t);
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    free(input);
  }
  printf("threads %d\n", threads);
  printf("%s\n", failures ? "FAILED" : "ALL OK");
  return failures ? 1 : 0;
}
