/* fmerge benchmark corpus: deterministic workload for libzstd (zstd-sys ships
 * only lib/, not the zstd command-line program).
 *
 *   zstd_host            run the built-in workload and print one line per
 *                        step (sizes and FNV-1a checksums of the compressed
 *                        frames); exit 1 if any round trip fails.
 *   zstd_host -c LEVEL   compress stdin to stdout (one frame)
 *   zstd_host -d         decompress stdin to stdout
 *
 * All input data is generated from a fixed-seed PRNG, so the output depends
 * only on the zstd code. */
#define ZSTD_STATIC_LINKING_ONLY
#define ZDICT_STATIC_LINKING_ONLY
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zdict.h"
#include "zstd.h"

static uint64_t rng_state;
static uint32_t rng(void) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(rng_state >> 33);
}

static uint64_t fnv1a(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

static const char *words[] = {
    "the",     "merge",   "function", "identical", "similar", "bitcode",
    "module",  "llvm",    "size",     "optimizer", "hash",    "compare",
    "thunk",   "alias",   "call",     "return",    "value",   "type",
    "pointer", "integer", "block",    "branch",    "phi",     "store",
    "load",    "global",  "constant", "linkage",   "section", "symbol"};

/* kind 0: English-like text, 1: random bytes, 2: structured records,
 * 3: long runs, 4: small-alphabet noise */
static unsigned char *gen(int kind, size_t n, uint64_t seed) {
  unsigned char *buf = malloc(n);
  rng_state = seed;
  size_t i = 0;
  switch (kind) {
    case 0:
      while (i < n) {
        const char *w = words[rng() % 30];
        while (*w && i < n) buf[i++] = (unsigned char)*w++;
        if (i < n) buf[i++] = (rng() % 11 == 0) ? '\n' : ' ';
      }
      break;
    case 1:
      for (; i < n; i++) buf[i] = (unsigned char)rng();
      break;
    case 2:
      while (i < n) {
        char rec[96];
        int len = snprintf(rec, sizeof rec, "{\"id\":%u,\"name\":\"%s\",\"score\":%u},\n",
                           (unsigned)(i / 7), words[rng() % 30], rng() % 1000);
        for (int k = 0; k < len && i < n; k++) buf[i++] = (unsigned char)rec[k];
      }
      break;
    case 3:
      while (i < n) {
        unsigned char c = (unsigned char)rng();
        size_t run = 1 + rng() % 300;
        for (size_t k = 0; k < run && i < n; k++) buf[i++] = c;
      }
      break;
    default:
      for (; i < n; i++) buf[i] = "ACGT"[rng() % 4];
  }
  return buf;
}

static int failures;

static void check_roundtrip(const char *what, const void *src, size_t n,
                            const void *frame, size_t fsize, const ZSTD_DDict *ddict) {
  unsigned long long csize = ZSTD_getFrameContentSize(frame, fsize);
  void *out = malloc(n + 1);
  size_t r;
  if (ddict) {
    ZSTD_DCtx *d = ZSTD_createDCtx();
    r = ZSTD_decompress_usingDDict(d, out, n + 1, frame, fsize, ddict);
    ZSTD_freeDCtx(d);
  } else {
    r = ZSTD_decompress(out, n + 1, frame, fsize);
  }
  if (ZSTD_isError(r) || r != n || memcmp(out, src, n) != 0) {
    printf("FAIL %s: %s\n", what, ZSTD_isError(r) ? ZSTD_getErrorName(r) : "mismatch");
    failures++;
  } else if (csize != ZSTD_CONTENTSIZE_UNKNOWN && csize != n) {
    printf("FAIL %s: frame content size %llu\n", what, csize);
    failures++;
  }
  free(out);
}

static void one_shot(int kind, size_t n, int level) {
  unsigned char *src = gen(kind, n, 1000 + kind);
  size_t cap = ZSTD_compressBound(n);
  unsigned char *dst = malloc(cap);
  size_t c = ZSTD_compress(dst, cap, src, n, level);
  char what[64];
  snprintf(what, sizeof what, "oneshot kind=%d n=%zu level=%d", kind, n, level);
  if (ZSTD_isError(c)) {
    printf("FAIL %s: %s\n", what, ZSTD_getErrorName(c));
    failures++;
  } else {
    printf("%s -> %zu bytes fnv=%016llx\n", what, c, (unsigned long long)fnv1a(dst, c));
    check_roundtrip(what, src, n, dst, c, NULL);
  }
  free(src);
  free(dst);
}

/* streaming compression with advanced parameters, fed in odd-sized chunks */
static void streaming(int kind, size_t n, int level, int ldm, int checksum, int strategy) {
  unsigned char *src = gen(kind, n, 2000 + kind);
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, ldm);
  if (strategy) ZSTD_CCtx_setParameter(cctx, ZSTD_c_strategy, strategy);
  size_t cap = ZSTD_compressBound(n) + 1024, pos = 0;
  unsigned char *dst = malloc(cap);
  ZSTD_outBuffer out = {dst, cap, 0};
  rng_state = 77;
  while (pos < n) {
    size_t chunk = 1 + rng() % 40000;
    if (chunk > n - pos) chunk = n - pos;
    ZSTD_inBuffer in = {src + pos, chunk, 0};
    while (in.pos < in.size) {
      size_t r = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue);
      if (ZSTD_isError(r)) {
        printf("FAIL stream: %s\n", ZSTD_getErrorName(r));
        failures++;
        goto done;
      }
    }
    pos += chunk;
  }
  for (;;) {
    ZSTD_inBuffer in = {NULL, 0, 0};
    size_t r = ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end);
    if (ZSTD_isError(r)) {
      printf("FAIL stream end: %s\n", ZSTD_getErrorName(r));
      failures++;
      goto done;
    }
    if (r == 0) break;
  }
  printf("stream kind=%d n=%zu level=%d ldm=%d checksum=%d strategy=%d -> %zu bytes fnv=%016llx\n",
         kind, n, level, ldm, checksum, strategy, out.pos,
         (unsigned long long)fnv1a(dst, out.pos));
  /* streaming decompression in small output chunks */
  {
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    unsigned char *res = malloc(n + 1);
    size_t got = 0;
    ZSTD_inBuffer in = {dst, out.pos, 0};
    for (;;) {
      size_t room = 1 + rng() % 20000;
      if (room > n + 1 - got) room = n + 1 - got;
      ZSTD_outBuffer o = {res + got, room, 0};
      size_t r = ZSTD_decompressStream(dctx, &o, &in);
      got += o.pos;
      if (ZSTD_isError(r)) {
        printf("FAIL dstream: %s\n", ZSTD_getErrorName(r));
        failures++;
        break;
      }
      if (r == 0 && in.pos == in.size) break;
      if (got > n) break;
    }
    if (got != n || memcmp(res, src, n) != 0) {
      printf("FAIL dstream mismatch (%zu of %zu)\n", got, n);
      failures++;
    }
    free(res);
    ZSTD_freeDCtx(dctx);
  }
done:
  ZSTD_freeCCtx(cctx);
  free(src);
  free(dst);
}

static void dictionary(void) {
  enum { NS = 400 };
  size_t sizes[NS], total = 0;
  unsigned char *samples = malloc(NS * 600);
  rng_state = 4242;
  for (int i = 0; i < NS; i++) {
    int len = snprintf((char *)samples + total, 600,
                       "{\"user\":\"%s%u\",\"action\":\"%s\",\"target\":\"%s %s\",\"count\":%u}",
                       words[rng() % 30], rng() % 100, words[rng() % 30], words[rng() % 30],
                       words[rng() % 30], rng() % 10000);
    sizes[i] = (size_t)len;
    total += (size_t)len;
  }
  unsigned char dict[4096];
  size_t dsize = ZDICT_trainFromBuffer(dict, sizeof dict, samples, sizes, NS);
  if (ZDICT_isError(dsize)) {
    printf("FAIL train: %s\n", ZDICT_getErrorName(dsize));
    failures++;
    free(samples);
    return;
  }
  printf("dict trained: %zu bytes id=%u fnv=%016llx\n", dsize, ZDICT_getDictID(dict, dsize),
         (unsigned long long)fnv1a(dict, dsize));
  ZSTD_CDict *cdict = ZSTD_createCDict(dict, dsize, 5);
  ZSTD_DDict *ddict = ZSTD_createDDict(dict, dsize);
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  size_t off = 0, plain = 0, with_dict = 0;
  uint64_t h = 1469598103934665603ULL;
  for (int i = 0; i < NS; i++) {
    unsigned char buf[1024];
    size_t c = ZSTD_compress_usingCDict(cctx, buf, sizeof buf, samples + off, sizes[i], cdict);
    if (ZSTD_isError(c)) {
      printf("FAIL dict compress: %s\n", ZSTD_getErrorName(c));
      failures++;
      break;
    }
    h = (h ^ fnv1a(buf, c)) * 1099511628211ULL;
    with_dict += c;
    plain += ZSTD_compress(buf, sizeof buf, samples + off, sizes[i], 5);
    unsigned char chk[1024];
    size_t c2 = ZSTD_compress_usingCDict(cctx, chk, sizeof chk, samples + off, sizes[i], cdict);
    check_roundtrip("dict", samples + off, sizes[i], chk, c2, ddict);
    off += sizes[i];
  }
  printf("dict: %d samples, %zu bytes raw, %zu without dict, %zu with dict, fnv=%016llx\n", NS,
         total, plain, with_dict, (unsigned long long)h);
  ZSTD_freeCCtx(cctx);
  ZSTD_freeCDict(cdict);
  ZSTD_freeDDict(ddict);
  free(samples);
}

static int filter_mode(int compress, int level) {
  size_t cap = 1 << 20, n = 0, r;
  unsigned char *buf = malloc(cap);
  while ((r = fread(buf + n, 1, cap - n, stdin)) > 0) {
    n += r;
    if (n == cap) buf = realloc(buf, cap *= 2);
  }
  if (compress) {
    size_t oc = ZSTD_compressBound(n);
    unsigned char *o = malloc(oc);
    size_t c = ZSTD_compress(o, oc, buf, n, level);
    if (ZSTD_isError(c)) return fprintf(stderr, "%s\n", ZSTD_getErrorName(c)), 1;
    fwrite(o, 1, c, stdout);
  } else {
    unsigned long long sz = ZSTD_getFrameContentSize(buf, n);
    if (sz == ZSTD_CONTENTSIZE_ERROR || sz == ZSTD_CONTENTSIZE_UNKNOWN)
      return fprintf(stderr, "bad frame\n"), 1;
    unsigned char *o = malloc(sz + 1);
    size_t d = ZSTD_decompress(o, sz + 1, buf, n);
    if (ZSTD_isError(d)) return fprintf(stderr, "%s\n", ZSTD_getErrorName(d)), 1;
    fwrite(o, 1, d, stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "-c") == 0) return filter_mode(1, argc >= 3 ? atoi(argv[2]) : 3);
  if (argc >= 2 && strcmp(argv[1], "-d") == 0) return filter_mode(0, 0);
  printf("zstd %s\n", ZSTD_versionString());
  static const int levels[] = {-5, 1, 3, 6, 12, 19};
  static const size_t sizes[] = {1000, 200000};
  for (int kind = 0; kind < 5; kind++)
    for (int s = 0; s < 2; s++)
      for (int l = 0; l < 6; l++) one_shot(kind, sizes[s], levels[l]);
  one_shot(0, 300000, 22);
  streaming(0, 1500000, 3, 0, 1, 0);
  streaming(2, 1000000, 9, 1, 1, 0);
  streaming(3, 700000, 15, 0, 0, ZSTD_btultra2);
  streaming(4, 500000, 4, 0, 1, ZSTD_lazy2);
  dictionary();
  printf("%s\n", failures ? "FAILURES" : "all round trips ok");
  return failures != 0;
}
