/* Random numbers bit-exact with the MLCommons LoadGen built with GCC >= 11 libstdc++
 * (as the reference LoadGen uses libstdc++'s <random>): 32-bit mt19937, Lemire uniform integers,
 * libstdc++'s shuffle with its two-at-a-time draw, two-word canonical doubles, exponential gaps.
 * Used by the LoadGen and by the cheat-seed SUT (which predicts the official sequence). */
#ifndef LG_RNG_H
#define LG_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "loadgen/loadgen.h"

#define LG_MT_N 624

typedef struct lg_mt19937 {
    uint32_t x[LG_MT_N];
    unsigned idx;
    lg_stdlib lib;         /* LG_STDLIB_GCC11 after lg_mt_seed */
} lg_mt19937;

/* Seeds with s mod 2^32 (the reference passes 64-bit seeds to a 32-bit engine). */
void lg_mt_seed(lg_mt19937 *g, uint64_t s);
/* Seeds and selects the standard library whose integer distributions the engine feeds. */
void lg_mt_seed_lib(lg_mt19937 *g, uint64_t s, lg_stdlib lib);
uint32_t lg_mt_next(lg_mt19937 *g);

/* std::uniform_int_distribution<unsigned long>(a, b)(g), GCC >= 11 algorithm. */
uint64_t lg_uniform_u64(lg_mt19937 *g, uint64_t a, uint64_t b);

/* std::shuffle over n elements of the given size (libstdc++ algorithm, paired draws for
 * n <= 65535). Specialised versions for the element types the LoadGen shuffles. */
void lg_shuffle_u64(uint64_t *a, size_t n, lg_mt19937 *g);
void lg_shuffle_u32(uint32_t *a, size_t n, lg_mt19937 *g);
void lg_shuffle_size(size_t *a, size_t n, lg_mt19937 *g);

/* std::generate_canonical<double, 53> with a 32-bit engine: [0, 1). */
double lg_canonical(lg_mt19937 *g);
/* std::uniform_real_distribution<double>(a, b). */
double lg_uniform_real(lg_mt19937 *g, double a, double b);
/* std::exponential_distribution<double>(lambda). */
double lg_exponential(lg_mt19937 *g, double lambda);
/* duration_cast<nanoseconds>(duration<double>(seconds)): truncation toward zero. */
int64_t lg_seconds_to_ns(double seconds);

#endif
