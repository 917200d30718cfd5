#include "common/mllog.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1 /* AVX2 and AVX-512BW block scans, chosen at run time */
#endif

#define MLLOG_PREFIX ":::MLLOG"
#define DEPTH_LIMIT 256
/* locale-free ASCII digit test (isdigit goes through the ctype table on every call) */
#define MS_ISDIGIT(c) ((unsigned)((unsigned char)(c) - '0') < 10u)

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int fail(char *msg, size_t msgsz, const char *what)
{
    if (msg && msgsz)
        snprintf(msg, msgsz, "%s", what);
    return -1;
}

/* The first byte of [p, end) that ends the plain run of a JSON string: '"', '\\' or a control
 * character; end if none. 16 bytes per step with SSE2 (every x86-64 has it), 8 with a SWAR
 * test otherwise (simd below MS_SIMD_SSE2): detail-log lines are mostly long plain strings
 * (file paths, values). */
static const char *string_stop(const char *p, const char *end, int simd)
{
#if defined(__SSE2__)
    if (simd >= MS_SIMD_SSE2) {
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                      ctl = _mm_set1_epi8(0x1f);
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                     _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v)); /* v <= 0x1f */
            unsigned mask = (unsigned)_mm_movemask_epi8(m);
            if (mask)
                return p + __builtin_ctz(mask);
            p += 16;
        }
    }
#else
    (void)simd;
#endif
    const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        /* a zero byte in q or b, or a byte below 0x20 in w (exact for bytes < 0x80; a high
         * byte can only cause a false stop, which the byte loop below sorts out) */
        uint64_t hit = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w);
        if (hit & high)
            break;
        p += 8;
    }
    while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    return p;
}

static int scan_string(const char **pp, const char *end, int simd, char *msg, size_t msgsz)
{
    const char *p = *pp;
    if (p >= end || *p != '"')
        return fail(msg, msgsz, "expected a string");
    p++;
    while (p < end) {
        p = string_stop(p, end, simd);
        if (p >= end)
            break;
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *pp = p + 1;
            return 0;
        }
        if (c < 0x20)
            return fail(msg, msgsz, "control character in a string");
        if (c == '\\') {
            p++;
            if (p >= end)
                break;
            switch (*p) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                p++;
                break;
            case 'u':
                if (end - p < 5)
                    return fail(msg, msgsz, "truncated \\u escape");
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return fail(msg, msgsz, "bad \\u escape");
                p += 5;
                break;
            default:
                return fail(msg, msgsz, "bad escape in a string");
            }
            continue;
        }
        p++;
    }
    return fail(msg, msgsz, "unterminated string");
}

static int scan_number(const char **pp, const char *end, int *is_real)
{
    const char *p = *pp;
    *is_real = 0;
    if (p < end && *p == '-')
        p++;
    if (end - p >= 8 && !memcmp(p, "Infinity", 8)) {
        *pp = p + 8;
        *is_real = 1;
        return 0;
    }
    if (p >= end || !MS_ISDIGIT(*p))
        return -1;
    if (*p == '0')
        p++;
    else
        while (p < end && MS_ISDIGIT(*p))
            p++;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !MS_ISDIGIT(*p))
            return -1;
        while (p < end && MS_ISDIGIT(*p))
            p++;
        *is_real = 1;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || !MS_ISDIGIT(*p))
            return -1;
        while (p < end && MS_ISDIGIT(*p))
            p++;
        *is_real = 1;
    }
    *pp = p;
    return 0;
}

static int classify_int(const char *raw, size_t len)
{
    /* INT if it fits int64 (negative) or uint64 (non-negative). */
    char tmp[32];
    size_t digits = len - (raw[0] == '-');
    if (digits <= 18)  /* fast path: always within 64 bits, no strtoull needed */
        return MS_JV_INT;
    if (len >= sizeof tmp)
        return MS_JV_BIGINT;
    memcpy(tmp, raw, len);
    tmp[len] = '\0';
    errno = 0;
    if (tmp[0] == '-')
        (void)strtoll(tmp, NULL, 10);
    else
        (void)strtoull(tmp, NULL, 10);
    return errno == ERANGE ? MS_JV_BIGINT : MS_JV_INT;
}

/* Skips the elements of an array of plain non-negative integers ("12,0,345,") starting at p,
 * an element start: returns the start of the first element it does not take (p itself if
 * none), which is either the ']' after the last integer taken or where the general scan has to
 * go on (a space, a sign, a fraction, ...; *closed is 1 only in the first case). Every element taken is valid JSON ("0" or a digit
 * string without a leading zero), followed by ',' (then the next element) or by the ']'. */
#ifdef HAVE_AVX2_PATH
/* One 64-byte block at q of int_blocks_avx2 / _avx512 given its masks (bit i: byte i is a
 * digit / ',' / '0'): 1 when it is taken (then *start is the start of the last element begun,
 * *prev_comma whether its last byte is a comma), else 0. */
static inline __attribute__((always_inline)) int int_block_take(const char *q, uint64_t d,
                                                                uint64_t c, uint64_t z,
                                                                uint64_t *prev_comma,
                                                                const char **start)
{
    uint64_t cprev = (c << 1) | *prev_comma; /* bit i: byte i starts an element */
    uint64_t dnext = (d >> 1) | ((uint64_t)MS_ISDIGIT(q[64]) << 63);
    if (~(d | c) || (c & cprev) || (z & cprev & dnext))
        return 0;
    if (c)
        *start = q + (64 - (unsigned)__builtin_clzll(c));
    *prev_comma = c >> 63;
    return 1;
}

/* The whole-block loop of int_list_run with AVX2, in fixed 64-byte strides (the next load
 * never waits for the previous block's result): a block is taken when it holds only digits
 * and commas, no empty element (a comma after a comma or at the element start p) and no number
 * with a leading zero (a '0' that starts an element and is followed by a digit, looking one
 * byte past the block). Returns the start of the last element begun in the blocks taken (p if
 * none), where the SSE2 / scalar code goes on. */
__attribute__((target("avx2"))) static const char *int_blocks_avx2(const char *p,
                                                                   const char *end)
{
    const __m256i off = _mm256_set1_epi8((char)('0' + 128)), lim = _mm256_set1_epi8((char)(10 - 128)),
                  comma = _mm256_set1_epi8(','), zero = _mm256_set1_epi8('0');
    const char *q = p, *start = p;
    uint64_t prev_comma = 1; /* p is an element start */
    while (end - q >= 65) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)q);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(q + 32));
        uint64_t d = (uint32_t)_mm256_movemask_epi8(_mm256_cmpgt_epi8(lim, _mm256_sub_epi8(a, off))) |
                     (uint64_t)(uint32_t)_mm256_movemask_epi8(
                         _mm256_cmpgt_epi8(lim, _mm256_sub_epi8(b, off))) << 32;
        uint64_t c = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, comma)) |
                     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, comma)) << 32;
        uint64_t z = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero)) |
                     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, zero)) << 32;
        if (!int_block_take(q, d, c, z, &prev_comma, &start))
            break;
        q += 64;
    }
    return start;
}

/* The same with AVX-512BW: one 64-byte load a step, the compares straight into bit masks */
__attribute__((target("avx512bw"))) static const char *int_blocks_avx512(const char *p,
                                                                       const char *end)
{
    const __m512i zero = _mm512_set1_epi8('0'), ten = _mm512_set1_epi8(10),
                  comma = _mm512_set1_epi8(',');
    const char *q = p, *start = p;
    uint64_t prev_comma = 1; /* p is an element start */
    while (end - q >= 65) {
        __m512i v = _mm512_loadu_si512((const void *)q);
        uint64_t d = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(v, zero), ten);
        uint64_t c = _mm512_cmpeq_epi8_mask(v, comma);
        uint64_t z = _mm512_cmpeq_epi8_mask(v, zero);
        if (!int_block_take(q, d, c, z, &prev_comma, &start))
            break;
        q += 64;
    }
    return start;
}
#endif

static const char *int_list_run(const char *p, const char *end, int *closed, int simd)
{
    *closed = 0;
    int wide = end - p >= 256 ? simd : MS_SIMD_SSE2;
    for (;;) {
#ifdef HAVE_AVX2_PATH
        if (wide >= MS_SIMD_AVX512)
            p = int_blocks_avx512(p, end);
        else if (wide >= MS_SIMD_AVX2)
            p = int_blocks_avx2(p, end);
#else
        (void)wide;
#endif
#if defined(__SSE2__)
        /* whole blocks while they hold only digits and commas, up to the last comma of the
         * block: p is always an element start */
        while (simd >= MS_SIMD_SSE2 && end - p >= 65) {
            /* 64 bytes per step: bit i of d / c / z says byte i is a digit / ',' / '0' */
            uint64_t d = 0, c = 0, z = 0;
#pragma GCC unroll 4
            for (int k = 0; k < 4; k++) {
                __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
                __m128i dm = _mm_cmplt_epi8(_mm_sub_epi8(v, _mm_set1_epi8((char)('0' + 128))),
                                            _mm_set1_epi8((char)(10 - 128)));
                d |= (uint64_t)(unsigned)_mm_movemask_epi8(dm) << (16 * k);
                c |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')))
                     << (16 * k);
                z |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('0')))
                     << (16 * k);
            }
            if (~(d | c) || !c)
                break;
            uint64_t dnext = (d >> 1) | ((uint64_t)MS_ISDIGIT(p[64]) << 63);
            uint64_t cprev = (c << 1) | 1u, dprev = d << 1;
            unsigned last = 63u - (unsigned)__builtin_clzll(c); /* the last comma */
            uint64_t upto = last == 63u ? ~(uint64_t)0 : (((uint64_t)2 << last) - 1u);
            /* an empty element, or a number with a leading zero, before the last comma */
            if (((c & cprev) | (z & ~dprev & dnext)) & upto)
                break;
            p += last + 1;
        }
#endif
        const char *q = p;
        if (q >= end || !MS_ISDIGIT(*q))
            return p;
        if (*q == '0')
            q++;
        else
            while (q < end && MS_ISDIGIT(*q))
                q++;
        if (q >= end)
            return p;
        if (*q == ']') {
            *closed = 1;
            return q;
        }
        if (*q != ',')
            return p;
        p = q + 1;
    }
}

#if defined(__SSE2__)
static inline uint64_t prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

typedef struct pairs_state {
    /* carried from the previous step: inside a string (the parity of the quotes), the parity
     * of the closing quotes (1: the last string closed was a key), the last byte was a
     * closing quote, the last byte was a gap byte (at the start: as if one preceded it) */
    uint64_t in, kpar, prev_close, prev_gap;
    const char *start;     /* the start of the last member begun in the blocks taken */
} pairs_state;

/* One 64-byte block at q given its masks (bit i: byte i is '"', '\\' or a control character,
 * ':', ','), which bytes are inside a string or its opening quote (s), the closing quotes and
 * which bytes follow a key (kp): 0 if it is not all members as above (nothing taken), else 1. */
static inline __attribute__((always_inline)) int pairs_take(pairs_state *st, const char *q,
                                                            uint64_t qm, uint64_t x,
                                                            uint64_t colon, uint64_t comma,
                                                            uint64_t s, uint64_t close,
                                                            uint64_t kp)
{
    uint64_t open = qm & s, gap = ~s & ~qm;
    if ((x & s) || gap != ((close << 1) | st->prev_close) || open != ((gap << 1) | st->prev_gap) ||
        (gap & kp & ~colon) || (gap & ~kp & ~comma))
        return 0;
    /* a ',' ends a member: the next one starts after it */
    uint64_t ends = gap & comma;
    if (ends)
        st->start = q + (64 - (unsigned)__builtin_clzll(ends));
    st->in = s >> 63;
    st->kpar = kp >> 63;
    st->prev_close = close >> 63;
    st->prev_gap = gap >> 63;
    return 1;
}

/* The same from the quote mask alone: the parity of the quotes by prefix XOR */
static inline __attribute__((always_inline)) int pairs_block(pairs_state *st, const char *q,
                                                             uint64_t qm, uint64_t x,
                                                             uint64_t colon, uint64_t comma)
{
    uint64_t s = prefix_xor(qm) ^ (0 - st->in);  /* bit i: inside a string or its opening quote */
    uint64_t close = qm & ~s;
    uint64_t kp = prefix_xor(close) ^ (0 - st->kpar); /* bit i: the last string closed is a key */
    return pairs_take(st, q, qm, x, colon, comma, s, close, kp);
}

#ifdef HAVE_AVX2_PATH
/* The masks of 32 bytes with AVX2 */
#define PAIRS_MASKS32(v, qm, x, colon, comma, sh)                                                 \
    do {                                                                                         \
        __m256i ctl_ = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);         \
        qm |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"'))) << (sh); \
        x |= (uint64_t)(uint32_t)_mm256_movemask_epi8(                                           \
                 _mm256_or_si256(ctl_, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')))) << (sh);    \
        colon |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(':'))) << (sh); \
        comma |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(','))) << (sh); \
    } while (0)

__attribute__((target("avx2"))) static const char *str_pairs_avx2(const char *p, const char *end,
                                                                  int *high)
{
    pairs_state st = {0, 0, 0, 1, p};
    __m256i acc = _mm256_setzero_si256();
    for (const char *q = p; end - q >= 64; q += 64) {
        uint64_t qm = 0, x = 0, colon = 0, comma = 0;
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)q);
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(q + 32));
        PAIRS_MASKS32(a, qm, x, colon, comma, 0);
        PAIRS_MASKS32(b, qm, x, colon, comma, 32);
        if (!pairs_block(&st, q, qm, x, colon, comma))
            break;
        acc = _mm256_or_si256(acc, _mm256_or_si256(a, b));
    }
    *high = _mm256_movemask_epi8(acc) != 0;
    return st.start;
}

/* The prefix XOR of x as a carry-less multiplication by all ones (PCLMULQDQ) */
static inline __attribute__((always_inline, target("pclmul"))) uint64_t prefix_xor_clmul(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)x), _mm_set1_epi8(-1), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}
/* pairs_block with the prefix XOR as a carry-less multiplication */
static inline __attribute__((always_inline, target("avx512bw,pclmul"))) int
pairs_block_clmul(pairs_state *st, const char *q, uint64_t qm, uint64_t x, uint64_t colon,
                  uint64_t comma)
{
    uint64_t s = prefix_xor_clmul(qm) ^ (0 - st->in);
    uint64_t close = qm & ~s;
    uint64_t kp = prefix_xor_clmul(close) ^ (0 - st->kpar);
    return pairs_take(st, q, qm, x, colon, comma, s, close, kp);
}

/* AVX-512BW: one load and five compares into bit masks a step */
__attribute__((target("avx512bw,pclmul"))) static const char *str_pairs_avx512(const char *p,
                                                                               const char *end,
                                                                               int *high)
{
    pairs_state st = {0, 0, 0, 1, p};
    const __m512i quote = _mm512_set1_epi8('"'), bslash = _mm512_set1_epi8('\\'),
                  ctl = _mm512_set1_epi8(0x1f), colon = _mm512_set1_epi8(':'),
                  comma = _mm512_set1_epi8(',');
    __m512i acc = _mm512_setzero_si512();
    for (const char *q = p; end - q >= 64; q += 64) {
        __m512i v = _mm512_loadu_si512((const void *)q);
        uint64_t qm = _mm512_cmpeq_epi8_mask(v, quote);
        uint64_t x = _mm512_cmpeq_epi8_mask(v, bslash) | _mm512_cmple_epu8_mask(v, ctl);
        if (!pairs_block_clmul(&st, q, qm, x, _mm512_cmpeq_epi8_mask(v, colon),
                               _mm512_cmpeq_epi8_mask(v, comma)))
            break;
        acc = _mm512_or_si512(acc, v);
    }
    *high = _mm512_movepi8_mask(acc) != 0;
    return st.start;
}
#endif

/* Skips the members of an object whose values are plain strings ("k":"v","k":"v",..., what
 * the LoadGen writes for loadgen_file_sha1), starting at p, a member start (its key's opening
 * quote): returns the start of the first member it does not take (p if none), where the general
 * scan goes on. Every member taken is valid JSON: a key string, ':', a string value, ',', with
 * no whitespace, and strings without an escape or a control character (any other byte is left
 * to the line's UTF-8 check, as scan_string leaves it). 64 bytes a step (AVX-512BW or AVX2 when
 * the CPU has it, else SSE2) with the parity of the quotes (prefix XOR) carried from one step to the next:
 * a gap between two strings must be one byte, ':' after a key and ',' after a value. */
static const char *str_pairs_run(const char *p, const char *end, int simd, int *high)
{
#ifdef HAVE_AVX2_PATH
    if (simd >= MS_SIMD_AVX512)
        return str_pairs_avx512(p, end, high);
    if (simd >= MS_SIMD_AVX2)
        return str_pairs_avx2(p, end, high);
#endif
    pairs_state st = {0, 0, 0, 1, p};
    uint64_t hi = 0;
    for (const char *q = p; end - q >= 64; q += 64) {
        uint64_t qm = 0, x = 0, colon = 0, comma = 0, h = 0;
#pragma GCC unroll 4
        for (int k = 0; k < 4; k++) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(q + 16 * k));
            h |= (uint64_t)(unsigned)_mm_movemask_epi8(v);
            __m128i ctl = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v); /* <= 0x1f */
            qm |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')))
                  << (16 * k);
            x |= (uint64_t)(unsigned)_mm_movemask_epi8(
                     _mm_or_si128(ctl, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))))
                 << (16 * k);
            colon |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(':')))
                     << (16 * k);
            comma |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')))
                     << (16 * k);
        }
        if (!pairs_block(&st, q, qm, x, colon, comma))
            break;
        hi |= h;
    }
    *high = hi != 0;
    return st.start;
}
#endif

static int scan_value(const char **pp, const char *end, int depth_limit, int simd, char *msg,
                      size_t msgsz);

static int container_members(const char **pp, const char *p, const char *end, int object,
                             int depth_limit, int simd, char *msg, size_t msgsz);

/* An object or array starting at p (its opening bracket), up to past its closing bracket. */
static int scan_container(const char **pp, const char *p, const char *end, int depth_limit,
                          int simd, char *msg, size_t msgsz)
{
    int object = *p == '{';
    char close = object ? '}' : ']';
    int kind = object ? MS_JV_OBJECT : MS_JV_ARRAY;
    p = skip_ws(p + 1, end);
    if (p < end && *p == close) {
        *pp = p + 1;
        return kind;
    }
#if defined(__SSE2__)
    /* a long object of plain strings (loadgen_file_sha1): its members up to the last few */
    if (object && end - p >= 256 && *p == '"') {
        int high;
        p = str_pairs_run(p, end, simd, &high);
    }
#endif
    return container_members(pp, p, end, object, depth_limit, simd, msg, msgsz);
}

/* The members (elements) of a container from p, the start of one, up to past its closing
 * bracket. */
static int container_members(const char **pp, const char *p, const char *end, int object,
                             int depth_limit, int simd, char *msg, size_t msgsz)
{
    char close = object ? '}' : ']';
    int kind = object ? MS_JV_OBJECT : MS_JV_ARRAY;
    for (;;) {
        if (object) {
            p = skip_ws(p, end);
            if (scan_string(&p, end, simd, msg, msgsz))
                return -1;
            p = skip_ws(p, end);
            if (p >= end || *p != ':')
                return fail(msg, msgsz, "expected ':' in an object");
            p++;
        } else {
            /* fast path for the long integer lists of detail logs (loaded_qsl_set): it only
             * ever accepts valid JSON and otherwise leaves p where the general scan starts */
            int closed;
            p = int_list_run(p, end, &closed, simd);
            if (closed) {
                *pp = p + 1;
                return kind;
            }
        }
        if (scan_value(&p, end, depth_limit - 1, simd, msg, msgsz) < 0)
            return -1;
        p = skip_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == close) {
            *pp = p + 1;
            return kind;
        }
        return fail(msg, msgsz, object ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
    }
}

static int scan_value(const char **pp, const char *end, int depth_limit, int simd, char *msg,
                      size_t msgsz)
{
    const char *p = skip_ws(*pp, end);
    if (p >= end)
        return fail(msg, msgsz, "expected a value");
    if (depth_limit <= 0)
        return fail(msg, msgsz, "nesting too deep");
    switch (*p) {
    case '"':
        if (scan_string(&p, end, simd, msg, msgsz))
            return -1;
        *pp = p;
        return MS_JV_STRING;
    case '{':
    case '[':
        return scan_container(pp, p, end, depth_limit, simd, msg, msgsz);
    case 't':
    case 'f':
    case 'n':
    case 'N': {
        /* the literals (NaN: Python's json writes it for a float nan) */
        static const struct {
            const char *word;
            size_t len;
            int kind;
        } words[] = {{"true", 4, MS_JV_BOOL}, {"false", 5, MS_JV_BOOL}, {"null", 4, MS_JV_NULL}, {"NaN", 3, MS_JV_REAL}};
        for (size_t i = 0; i < sizeof words / sizeof *words; i++)
            if (*p == words[i].word[0] && (size_t)(end - p) >= words[i].len && !memcmp(p, words[i].word, words[i].len)) {
                *pp = p + words[i].len;
                return words[i].kind;
            }
        break;
    }
    default: {
        const char *start = p;
        int is_real;
        if (scan_number(&p, end, &is_real) == 0) {
            *pp = p;
            return is_real ? MS_JV_REAL : classify_int(start, (size_t)(p - start));
        }
    }
    }
    return fail(msg, msgsz, "invalid JSON value");
}

static int simd_cap(int simd);

const char *ms_mllog_value_start(const char *line, const char *end, const char **key,
                                 size_t *key_len)
{
    static const char head[] = MLLOG_PREFIX " {\"key\": \"";
    static const char mid[] = "\", \"value\": ";
    size_t hn = sizeof head - 1, mn = sizeof mid - 1;
    if ((size_t)(end - line) < hn || memcmp(line, head, hn))
        return NULL;
    const char *k = line + hn, *p = k;
    /* a short key of printable ASCII without escapes (a quote ends it) */
    while (p < end && p - k < 256 && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20 &&
           (unsigned char)*p < 0x7f)
        p++;
    if (p >= end || *p != '"' || (size_t)(end - p) < mn || memcmp(p, mid, mn))
        return NULL;
    *key = k;
    *key_len = (size_t)(p - k);
    return p + mn;
}

const char *ms_mllog_prevalue(const char *vs, const char *end, int simd, int *kind,
                              const char **resume)
{
    simd = simd_cap(simd);
    *resume = NULL;
    if (end - vs < 2)
        return NULL;
    if (*vs == '[') {
        int closed;
        const char *q = int_list_run(vs + 1, end, &closed, simd);
        if (!closed)
            return NULL;
        *kind = MS_JV_ARRAY;
        return q + 1;
    }
#if defined(__SSE2__)
    if (*vs == '{' && vs[1] == '"' && end - vs >= 257 && simd >= MS_SIMD_SSE2) {
        int high;
        const char *r = str_pairs_run(vs + 1, end, simd, &high);
        /* str_pairs_run leaves bytes above 0x7f to the line's UTF-8 check, which only sees
         * the bytes after the ones taken here: none in the blocks it took */
        if (r == vs + 1 || high)
            return NULL;
        *kind = MS_JV_OBJECT;
        *resume = r;
        return r;
    }
#endif
    return NULL;
}

int ms_simd_level(void)
{
#ifdef HAVE_AVX2_PATH
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("pclmul"))
        return MS_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return MS_SIMD_AVX2;
#endif
#if defined(__SSE2__)
    return MS_SIMD_SSE2;
#else
    return MS_SIMD_NONE;
#endif
}

static int simd_cap(int simd)
{
    int best = ms_simd_level();
    return simd < best ? (simd < 0 ? MS_SIMD_NONE : simd) : best;
}

int ms_json_scan_value(const char **pp, const char *end, int depth_limit, char *msg, size_t msgsz)
{
    return scan_value(pp, end, depth_limit, ms_simd_level(), msg, msgsz);
}

int ms_json_scan_value_simd(const char **pp, const char *end, int depth_limit, int simd, char *msg,
                            size_t msgsz)
{
    return scan_value(pp, end, depth_limit, simd_cap(simd), msg, msgsz);
}

static void put_utf8(char *out, size_t *n, unsigned cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10));
    }
    return v;
}

char *ms_json_decode_string(const char *raw, size_t len, size_t *out_len)
{
    if (len < 2 || raw[0] != '"' || raw[len - 1] != '"')
        return NULL;
    char *out = malloc(len * 2 + 1); /* \uXXXX (6) -> at most 3 bytes; pairs 12 -> 4 */
    if (!out)
        return NULL;
    size_t n = 0;
    const char *p = raw + 1, *end = raw + len - 1;
    while (p < end) {
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        p++;
        if (p >= end)
            break;
        char c = *p++;
        switch (c) {
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            if (end - p < 4) {
                free(out);
                return NULL;
            }
            unsigned cp = hex4(p);
            p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                unsigned lo = hex4(p + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            put_utf8(out, &n, cp);
            break;
        }
        default: out[n++] = c; break;
        }
    }
    out[n] = '\0';
    if (out_len)
        *out_len = n;
    return out;
}

/* Parses the metadata object for is_error / is_warning. */
static void parse_metadata(const char *p, const char *end, ms_mllog_rec *rec, int simd)
{
    p = skip_ws(p, end);
    if (p >= end || *p != '{')
        return;
    p++;
    char msg[8];
    for (;;) {
        p = skip_ws(p, end);
        const char *ks = p;
        if (scan_string(&p, end, simd, msg, sizeof msg))
            return;
        size_t klen = (size_t)(p - ks);
        p = skip_ws(p, end);
        if (p >= end || *p != ':')
            return;
        p = skip_ws(p + 1, end);
        const char *vs = p;
        int kind = scan_value(&p, end, DEPTH_LIMIT, simd, msg, sizeof msg);
        if (kind < 0)
            return;
        if (kind == MS_JV_BOOL) {
            int v = *vs == 't';
            if (klen == 10 && !memcmp(ks, "\"is_error\"", 10))
                rec->is_error = v;
            else if (klen == 12 && !memcmp(ks, "\"is_warning\"", 12))
                rec->is_warning = v;
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        return;
    }
}

static int scan_line(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                     size_t *key_len, int want_time, ms_mllog_memo *memo, int simd, char *msg,
                     size_t msgsz);

int ms_mllog_parse_line(const char *line, size_t len, ms_mllog_rec *rec, char *msg, size_t msgsz)
{
    const char *key;
    size_t key_len;
    int r = scan_line(line, len, rec, &key, &key_len, 1, NULL, ms_simd_level(), msg, msgsz);
    if (r <= 0)
        return r;
    rec->key = key ? ms_json_decode_string(key, key_len, NULL) : strdup("");
    if (!rec->key)
        return fail(msg, msgsz, "out of memory");
    return 1;
}

static inline __attribute__((always_inline)) int lit(const char **pp, const char *end,
                                                    const char *s, size_t n)
{
    if ((size_t)(end - *pp) < n || memcmp(*pp, s, n))
        return 0;
    *pp += n;
    return 1;
}
#define LIT(s) lit(&p, end, s, sizeof s - 1)

static int lit_bool(const char **pp, const char *end, int *out)
{
    if (lit(pp, end, "false", 5))
        *out = 0;
    else if (lit(pp, end, "true", 4))
        *out = 1;
    else
        return 0;
    return 1;
}

/* The record exactly as the LoadGen writes it, fields in its order:
 *   {"key": S, "value": V, "time_ms": N, "namespace": S, "event_type": S,
 *    "metadata": {"is_error": B, "is_warning": B, "file": S, "line_no": N, "pid": N, "tid": N}}
 * Field names and separators are compared as literal text, strings and numbers go through the
 * same scanners as the general parser, so a line taken here is one the general parser takes
 * with the same result; any other line (other spacing, order or fields, or an error) returns 0
 * and gets the general parser. p is just after the prefix, end after the right-strip. */
static int scan_standard(const char *p, const char *end, ms_mllog_rec *rec, const char **key,
                         size_t *key_len, int want_time, ms_mllog_memo *memo, int simd)
{
    char msg[8];
    int is_real;
    p = skip_ws(p, end);
    if (!LIT("{\"key\": "))
        return 0;
    const char *ks = p;
    if (scan_string(&p, end, simd, msg, sizeof msg))
        return 0;
    const char *ke = p;
    if (!LIT(", \"value\": "))
        return 0;
    const char *vs = p;
    int kind;
    if (memo && memo->hint_vs == vs && memo->hint_ve && memo->hint_ve <= end) {
        /* validated ahead by the reader (ms_mllog_prevalue, or the same bytes as a value it
         * validated before) */
        kind = memo->hint_kind;
        p = memo->hint_ve;
    } else if (memo && memo->hint_vs == vs && memo->hint_resume && memo->hint_resume < end) {
        /* the leading members validated ahead: the rest */
        kind = container_members(&p, memo->hint_resume, end, *vs == '{', DEPTH_LIMIT, simd,
                                 msg, sizeof msg);
    } else {
        kind = scan_value(&p, end, DEPTH_LIMIT, simd, msg, sizeof msg);
    }
    if (kind < 0)
        return 0;
    const char *ve = p;
    if (!LIT(", \"time_ms\": "))
        return 0;
    const char *ts = p;
    if (scan_number(&p, end, &is_real))
        return 0;
    const char *te = p;
    /* the rest of the line (namespace to the end), which consecutive records of one log often
     * share whole (one source line, one thread) or in its middle part (namespace to file): the
     * same bytes as the previous record's validated text take the same path */
    if (memo && memo->len && memo->whole && (size_t)(end - p) == memo->len &&
        !memcmp(p, memo->text, memo->len)) {
        rec->is_error = memo->is_error;
        rec->is_warning = memo->is_warning;
        p = end;
    } else {
        const char *me;
        if (memo && memo->len && (size_t)(end - p) > memo->mid && !memcmp(p, memo->text, memo->mid)) {
            p += memo->mid;
            rec->is_error = memo->is_error;
            rec->is_warning = memo->is_warning;
        } else if (!LIT(", \"namespace\": ") || scan_string(&p, end, simd, msg, sizeof msg) ||
                   !LIT(", \"event_type\": ") || scan_string(&p, end, simd, msg, sizeof msg) ||
                   !LIT(", \"metadata\": {\"is_error\": ") || !lit_bool(&p, end, &rec->is_error) ||
                   !LIT(", \"is_warning\": ") || !lit_bool(&p, end, &rec->is_warning) ||
                   !LIT(", \"file\": ") || scan_string(&p, end, simd, msg, sizeof msg)) {
            return 0;
        }
        me = p;
        if (!LIT(", \"line_no\": ") || scan_number(&p, end, &is_real) ||
            !LIT(", \"pid\": ") || scan_number(&p, end, &is_real) ||
            !LIT(", \"tid\": ") || scan_number(&p, end, &is_real) || !LIT("}}") || p != end)
            return 0;
        if (memo) {
            /* keep the whole rest when it fits, else its middle part */
            size_t n = (size_t)(end - te), m = (size_t)(me - te);
            memo->whole = n <= sizeof memo->text;
            memo->len = memo->whole ? n : m <= sizeof memo->text ? m : 0;
            memo->mid = m;
            if (memo->len)
                memcpy(memo->text, te, memo->len);
            memo->is_error = rec->is_error;
            memo->is_warning = rec->is_warning;
        }
    }
    *key = ks;
    *key_len = (size_t)(ke - ks);
    rec->kind = (ms_jv_kind)kind;
    rec->raw = vs;
    rec->raw_len = (size_t)(ve - vs);
    if (want_time) {
        /* the general parser converts an INT or REAL, not an integer beyond 64 bits */
        int tk;
        const char *q = ts;
        if (scan_number(&q, te, &is_real) == 0)
            tk = is_real ? MS_JV_REAL : classify_int(ts, (size_t)(te - ts));
        else
            tk = -1;
        if (tk == MS_JV_INT || tk == MS_JV_REAL)
            rec->time_ms = strtod(ts, NULL);
    }
    return 1;
}
#undef LIT

int ms_mllog_scan_line(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                       size_t *key_len, char *msg, size_t msgsz)
{
    return scan_line(line, len, rec, key, key_len, 0, NULL, ms_simd_level(), msg, msgsz);
}

int ms_mllog_scan_line_memo(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                            size_t *key_len, ms_mllog_memo *memo, char *msg, size_t msgsz)
{
    return scan_line(line, len, rec, key, key_len, 0, memo, ms_simd_level(), msg, msgsz);
}

int ms_mllog_scan_line_simd(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                            size_t *key_len, ms_mllog_memo *memo, int simd, char *msg, size_t msgsz)
{
    return scan_line(line, len, rec, key, key_len, 0, memo, simd_cap(simd), msg, msgsz);
}

static int scan_line(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                     size_t *key_len, int want_time, ms_mllog_memo *memo, int simd, char *msg,
                     size_t msgsz)
{
    *key = NULL;
    *key_len = 0;
    memset(rec, 0, sizeof *rec);
    rec->time_ms = NAN;
    size_t pl = strlen(MLLOG_PREFIX);
    if (len < pl || memcmp(line, MLLOG_PREFIX, pl) != 0) {
        if (memo)
            memo->hint_vs = NULL;
        return 0;
    }
    const char *p = line + pl, *end = line + len;
    /* right-strip like the Python tools */
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    int std = scan_standard(p, end, rec, key, key_len, want_time, memo, simd);
    if (memo)
        memo->hint_vs = NULL; /* for this line only */
    if (std)
        return 1;
    memset(rec, 0, sizeof *rec);
    rec->time_ms = NAN;
    p = skip_ws(p, end);
    if (p >= end || *p != '{')
        return fail(msg, msgsz, "expected '{' after :::MLLOG");
    p = skip_ws(p + 1, end);
    int have_key = 0, have_value = 0;
    int empty = p < end && *p == '}';
    if (empty)
        p++;
    while (!empty) {
        p = skip_ws(p, end);
        const char *ks = p;
        if (scan_string(&p, end, simd, msg, msgsz))
            goto bad;
        size_t klen = (size_t)(p - ks);
        p = skip_ws(p, end);
        if (p >= end || *p != ':') {
            fail(msg, msgsz, "expected ':' after a field name");
            goto bad;
        }
        p = skip_ws(p + 1, end);
        const char *vs = p;
        int kind = scan_value(&p, end, DEPTH_LIMIT, simd, msg, msgsz);
        if (kind < 0)
            goto bad;
        size_t vlen = (size_t)(p - vs);
        if (klen == 5 && !memcmp(ks, "\"key\"", 5)) {
            if (kind == MS_JV_STRING && !have_key) {
                *key = vs;
                *key_len = vlen;
                have_key = 1;
            }
        } else if (klen == 7 && !memcmp(ks, "\"value\"", 7)) {
            rec->kind = (ms_jv_kind)kind;
            rec->raw = vs;
            rec->raw_len = vlen;
            have_value = 1;
        } else if (klen == 9 && !memcmp(ks, "\"time_ms\"", 9)) {
            if (want_time && (kind == MS_JV_INT || kind == MS_JV_REAL))
                rec->time_ms = strtod(vs, NULL);
        } else if (klen == 10 && !memcmp(ks, "\"metadata\"", 10)) {
            if (kind == MS_JV_OBJECT)
                parse_metadata(vs, vs + vlen, rec, simd);
        }
        p = skip_ws(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p < end && *p == '}') {
            p++;
            break;
        }
        fail(msg, msgsz, "expected ',' or '}' in the record");
        goto bad;
    }
    p = skip_ws(p, end);
    if (p != end) {
        fail(msg, msgsz, "extra text after the JSON object");
        goto bad;
    }
    if (!have_value) {
        rec->kind = MS_JV_NULL;
        rec->raw = "null";
        rec->raw_len = 4;
    }
    return 1;
bad:
    *key = NULL;
    *key_len = 0;
    return -1;
}

static int index_text(ms_mllog *log, ms_err *e)
{
    size_t cap = 0;
    const char *p = log->text, *end = log->text + log->len;
    size_t line_no = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line_no++;
        size_t ll = (size_t)(le - p);
        if (ll && p[ll - 1] == '\r')
            ll--;
        ms_mllog_rec rec;
        char msg[200];
        int r = ms_mllog_parse_line(p, ll, &rec, msg, sizeof msg);
        if (line_no == 1)
            log->first_line_is_record = r != 0;
        if (r < 0) {
            if (!log->nbad) {
                log->first_bad_line = line_no;
                snprintf(log->first_bad_msg, sizeof log->first_bad_msg, "%s", msg);
            }
            log->nbad++;
        } else if (r > 0) {
            if (MS_GROW(log->recs, cap, log->nrecs + 1, 128)) {
                free(rec.key);
                return ms_err_oom(e);
            }
            rec.line_no = line_no;
            log->recs[log->nrecs++] = rec;
            if (rec.is_error)
                log->n_errors++;
            if (rec.is_warning)
                log->n_warnings++;
        }
        p = nl ? nl + 1 : end;
    }
    log->nlines = line_no;
    return MS_OK;
}

int ms_mllog_parse(ms_mllog *log, const char *text, size_t len, const char *name, ms_err *e)
{
    memset(log, 0, sizeof *log);
    log->path = strdup(name ? name : "<memory>");
    log->text = malloc(len + 1);
    if (!log->path || !log->text) {
        ms_mllog_free(log);
        return ms_err_oom(e);
    }
    memcpy(log->text, text, len);
    log->text[len] = '\0';
    log->len = len;
    int rc = index_text(log, e);
    if (rc)
        ms_mllog_free(log);
    return rc;
}

int ms_mllog_load(ms_mllog *log, const char *path, size_t max_bytes, ms_err *e)
{
    memset(log, 0, sizeof *log);
    log->path = strdup(path);
    if (!log->path)
        return ms_err_oom(e);
    int rc = ms_read_file(path, max_bytes, &log->text, &log->len, e);
    if (rc == MS_OK)
        rc = index_text(log, e);
    if (rc)
        ms_mllog_free(log);
    return rc;
}

void ms_mllog_free(ms_mllog *log)
{
    for (size_t i = 0; i < log->nrecs; i++)
        free(log->recs[i].key);
    free(log->recs);
    free(log->text);
    free(log->path);
    memset(log, 0, sizeof *log);
}

const ms_mllog_rec *ms_mllog_find(const ms_mllog *log, const char *key)
{
    for (size_t i = 0; i < log->nrecs; i++)
        if (!strcmp(log->recs[i].key, key))
            return &log->recs[i];
    return NULL;
}

int ms_mllog_rec_u64(const ms_mllog_rec *r, uint64_t *out)
{
    if (!r || r->kind != MS_JV_INT || r->raw[0] == '-')
        return -1;
    *out = strtoull(r->raw, NULL, 10);
    return 0;
}

int ms_mllog_rec_i64(const ms_mllog_rec *r, int64_t *out)
{
    if (!r || r->kind != MS_JV_INT)
        return -1;
    errno = 0;
    long long v = strtoll(r->raw, NULL, 10);
    if (errno)
        return -1;
    *out = v;
    return 0;
}

int ms_mllog_rec_double(const ms_mllog_rec *r, double *out)
{
    if (!r || (r->kind != MS_JV_INT && r->kind != MS_JV_REAL && r->kind != MS_JV_BIGINT))
        return -1;
    const char *s = r->raw;
    int neg = 0;
    if (*s == '-') {
        neg = 1;
        s++;
    }
    if (!strncmp(s, "NaN", 3))
        *out = NAN;
    else if (!strncmp(s, "Infinity", 8))
        *out = neg ? -INFINITY : INFINITY;
    else
        *out = strtod(r->raw, NULL);
    return 0;
}

int ms_mllog_rec_bool(const ms_mllog_rec *r, int *out)
{
    if (!r || r->kind != MS_JV_BOOL)
        return -1;
    *out = r->raw[0] == 't';
    return 0;
}

char *ms_mllog_rec_str(const ms_mllog_rec *r)
{
    if (!r || r->kind != MS_JV_STRING)
        return NULL;
    return ms_json_decode_string(r->raw, r->raw_len, NULL);
}

int ms_mllog_rec_u64_list(const ms_mllog_rec *r, uint64_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!r || r->kind != MS_JV_ARRAY)
        return -1;
    size_t cap = 0, cnt = 0;
    uint64_t *arr = NULL;
    const char *p = r->raw + 1, *end = r->raw + r->raw_len - 1;
    for (;;) {
        p = skip_ws(p, end);
        if (p >= end)
            break;
        if (!isdigit((unsigned char)*p)) {
            free(arr);
            return -1;
        }
        errno = 0;
        char *q;
        unsigned long long v = strtoull(p, &q, 10);
        if (errno || q > end) {
            free(arr);
            return -1;
        }
        p = skip_ws(q, end);
        if (p < end && *p != ',') {
            free(arr);
            return -1;
        }
        if (p < end)
            p++;
        if (MS_GROW(arr, cap, cnt + 1, 1024)) {
            free(arr);
            return -1;
        }
        arr[cnt++] = v;
    }
    *out = arr;
    *n = cnt;
    return 0;
}

int ms_mllog_get_u64(const ms_mllog *log, const char *key, uint64_t *out)
{
    return ms_mllog_rec_u64(ms_mllog_find(log, key), out);
}

int ms_mllog_get_i64(const ms_mllog *log, const char *key, int64_t *out)
{
    return ms_mllog_rec_i64(ms_mllog_find(log, key), out);
}

int ms_mllog_get_double(const ms_mllog *log, const char *key, double *out)
{
    return ms_mllog_rec_double(ms_mllog_find(log, key), out);
}

int ms_mllog_get_bool(const ms_mllog *log, const char *key, int *out)
{
    return ms_mllog_rec_bool(ms_mllog_find(log, key), out);
}

char *ms_mllog_get_str(const ms_mllog *log, const char *key)
{
    return ms_mllog_rec_str(ms_mllog_find(log, key));
}
