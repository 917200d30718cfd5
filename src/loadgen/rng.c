#include "loadgen/rng.h"

#include <math.h>

#define MT_M 397
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu
#define MT_MATRIX 0x9908b0dfu

void lg_mt_seed(lg_mt19937 *g, uint64_t s)
{
    g->x[0] = (uint32_t)s;
    for (unsigned i = 1; i < LG_MT_N; i++)
        g->x[i] = 1812433253u * (g->x[i - 1] ^ (g->x[i - 1] >> 30)) + i;
    g->idx = LG_MT_N;
    g->lib = LG_STDLIB_GCC11;
}

void lg_mt_seed_lib(lg_mt19937 *g, uint64_t s, lg_stdlib lib)
{
    lg_mt_seed(g, s);
    g->lib = lib;
}

const char *lg_stdlib_name(lg_stdlib s)
{
    switch (s) {
    case LG_STDLIB_GCC11: return "libstdc++ (GCC >= 11)";
    case LG_STDLIB_GCC7: return "libstdc++ (GCC 7 to 10)";
    case LG_STDLIB_GCC4: return "libstdc++ (GCC < 7)";
    case LG_STDLIB_LIBCXX: return "libc++";
    case LG_STDLIB_MSVC: return "Microsoft STL";
    case LG_STDLIB_COUNT: break;
    }
    return "?";
}

static void mt_regen(lg_mt19937 *g)
{
    uint32_t *x = g->x;
    unsigned i = 0;
    for (; i < LG_MT_N - MT_M; i++) {
        uint32_t y = (x[i] & MT_UPPER) | (x[i + 1] & MT_LOWER);
        x[i] = x[i + MT_M] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX : 0u);
    }
    for (; i < LG_MT_N - 1; i++) {
        uint32_t y = (x[i] & MT_UPPER) | (x[i + 1] & MT_LOWER);
        x[i] = x[i + MT_M - LG_MT_N] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX : 0u);
    }
    uint32_t y = (x[LG_MT_N - 1] & MT_UPPER) | (x[0] & MT_LOWER);
    x[LG_MT_N - 1] = x[MT_M - 1] ^ (y >> 1) ^ ((y & 1u) ? MT_MATRIX : 0u);
    g->idx = 0;
}

uint32_t lg_mt_next(lg_mt19937 *g)
{
    if (g->idx >= LG_MT_N)
        mt_regen(g);
    uint32_t y = g->x[g->idx++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* Lemire's nearly-divisionless method for a range of n = R + 1 <= 2^32 values. */
static uint64_t lemire32(lg_mt19937 *g, uint32_t n)
{
    uint64_t m = (uint64_t)lg_mt_next(g) * n;
    uint32_t lo = (uint32_t)m;
    if (lo < n) {
        uint32_t t = (uint32_t)(-n) % n;
        while (lo < t) {
            m = (uint64_t)lg_mt_next(g) * n;
            lo = (uint32_t)m;
        }
    }
    return m >> 32;
}

/* libstdc++ before GCC 11: downscaling by division, rejecting the top partial bucket. */
static uint64_t division32(lg_mt19937 *g, uint64_t n)
{
    uint64_t scaling = 0xffffffffull / n, past = n * scaling, r;
    do
        r = lg_mt_next(g);
    while (r >= past);
    return r / scaling;
}

/* libc++: the low w bits of each draw (w = bits of n - 1), rejected until below n. */
static uint64_t masked32(lg_mt19937 *g, uint64_t n)
{
    if (n == 1)
        return 0;
    unsigned w = 0;
    while (w < 32 && ((n - 1) >> w) != 0)
        w++;
    uint64_t mask = w >= 32 ? 0xffffffffull : ((1ull << w) - 1), r;
    do
        r = lg_mt_next(g) & mask;
    while (r >= n);
    return r;
}

/* Microsoft STL (_Rng_from_urng): one 32-bit draw, kept unless it falls in the biased top. */
static uint64_t modulo32(lg_mt19937 *g, uint64_t n)
{
    const uint64_t mask = 0xffffffffull;
    for (;;) {
        uint64_t r = lg_mt_next(g);
        if (r / n < mask / n || mask % n == n - 1)
            return r % n;
    }
}

uint64_t lg_uniform_u64(lg_mt19937 *g, uint64_t a, uint64_t b)
{
    uint64_t r = b - a;
    if (r == 0xffffffffull)
        return a + lg_mt_next(g);
    if (r < 0xffffffffull) {
        if (g->lib == LG_STDLIB_LIBCXX)
            return a + masked32(g, r + 1);
        if (g->lib == LG_STDLIB_MSVC)
            return a + modulo32(g, r + 1);
        if (g->lib != LG_STDLIB_GCC11)
            return a + division32(g, r + 1);
        return a + lemire32(g, (uint32_t)(r + 1));
    }
    /* Ranges wider than the engine (never reached by the LoadGen). */
    const uint64_t erange = 0x100000000ull;
    uint64_t ret, tmp;
    do {
        tmp = erange * lg_uniform_u64(g, 0, r / erange);
        ret = tmp + lg_mt_next(g);
    } while (ret > r || ret < tmp);
    return a + ret;
}

#define DEFINE_SHUFFLE(fname, T)                                                    \
    void fname(T *a, size_t n, lg_mt19937 *g)                                        \
    {                                                                                \
        if (n == 0)                                                                  \
            return;                                                                  \
        if (g->lib == LG_STDLIB_LIBCXX) {                                            \
            for (size_t f = 0, d = n - 1; d > 0; f++, d--) {                         \
                size_t j = (size_t)lg_uniform_u64(g, 0, d);                          \
                T tmp = a[f];                                                        \
                a[f] = a[f + j];                                                     \
                a[f + j] = tmp;                                                      \
            }                                                                        \
        } else if (g->lib != LG_STDLIB_GCC4 && g->lib != LG_STDLIB_MSVC && 0xffffffffull / n >= n) {             \
            size_t i = 1;                                                            \
            if ((n & 1) == 0) {                                                      \
                uint64_t j = lg_uniform_u64(g, 0, 1);                                \
                T tmp = a[1];                                                        \
                a[1] = a[j];                                                         \
                a[j] = tmp;                                                          \
                i = 2;                                                               \
            }                                                                        \
            while (i < n) {                                                          \
                uint64_t r = i + 1;                                                  \
                uint64_t x = lg_uniform_u64(g, 0, r * (r + 1) - 1);                  \
                size_t p1 = (size_t)(x / (r + 1)), p2 = (size_t)(x % (r + 1));       \
                T tmp = a[i];                                                        \
                a[i] = a[p1];                                                        \
                a[p1] = tmp;                                                         \
                tmp = a[i + 1];                                                      \
                a[i + 1] = a[p2];                                                    \
                a[p2] = tmp;                                                         \
                i += 2;                                                              \
            }                                                                        \
        } else {                                                                     \
            for (size_t i = 1; i < n; i++) {                                         \
                size_t j = (size_t)lg_uniform_u64(g, 0, i);                          \
                T tmp = a[i];                                                        \
                a[i] = a[j];                                                         \
                a[j] = tmp;                                                          \
            }                                                                        \
        }                                                                            \
    }

DEFINE_SHUFFLE(lg_shuffle_u64, uint64_t)
DEFINE_SHUFFLE(lg_shuffle_u32, uint32_t)
DEFINE_SHUFFLE(lg_shuffle_size, size_t)

double lg_canonical(lg_mt19937 *g)
{
    double lo = (double)lg_mt_next(g);
    double hi = (double)lg_mt_next(g);
    double s = lo + hi * 4294967296.0;
    double u = s / 18446744073709551616.0;
    if (u >= 1.0)
        u = nextafter(1.0, 0.0);
    return u;
}

double lg_uniform_real(lg_mt19937 *g, double a, double b)
{
    return lg_canonical(g) * (b - a) + a;
}

double lg_exponential(lg_mt19937 *g, double lambda)
{
    return -log(1.0 - lg_canonical(g)) / lambda;
}

int64_t lg_seconds_to_ns(double seconds)
{
    return (int64_t)(seconds * 1e9);
}
