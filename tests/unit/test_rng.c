/* Bit-exactness of the LoadGen RNG layer: the C++ standard library engines and distributions the
 * reference LoadGen draws with (std::mt19937_64 and libstdc++'s distributions), against known
 * output vectors. */
#include "loadgen/rng.h"
#include "testutil.h"

START_TEST(mt19937_check_values)
{
    lg_mt19937 g;
    lg_mt_seed(&g, 5489);
    uint32_t want[] = {3499211612u, 581869302u, 3890346734u, 3586334585u, 545404204u};
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(lg_mt_next(&g), want[i]);
    lg_mt_seed(&g, 5489);
    uint32_t v = 0;
    for (int i = 0; i < 10000; i++)
        v = lg_mt_next(&g);
    ck_assert_uint_eq(v, 4123659995u);
    lg_mt_seed(&g, 0);
    uint32_t want0[] = {2357136044u, 2546248239u, 3071714933u, 3626093760u, 2588848963u};
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(lg_mt_next(&g), want0[i]);
}
END_TEST

START_TEST(seeds_use_low_32_bits)
{
    lg_mt19937 a, b;
    lg_mt_seed(&a, 1780908523862526354ull);
    lg_mt_seed(&b, 3863644562ull);
    for (int i = 0; i < 100; i++)
        ck_assert_uint_eq(lg_mt_next(&a), lg_mt_next(&b));
}
END_TEST

START_TEST(uniform_int_lemire)
{
    lg_mt19937 g;
    lg_mt_seed(&g, 0);
    int want[] = {5, 5, 7, 8, 6, 8, 5, 8, 4, 6, 6, 3};
    for (int i = 0; i < 12; i++)
        ck_assert_int_eq((int)lg_uniform_u64(&g, 0, 9), want[i]);
    lg_mt_seed(&g, 0);
    int want2[] = {54881, 59284, 71518, 84426, 60276, 85794};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq((int)lg_uniform_u64(&g, 0, 99999), want2[i]);
}
END_TEST

static void check_shuffle(uint64_t seed, size_t n, const uint64_t *want, size_t nwant)
{
    uint64_t *a = malloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        a[i] = i;
    lg_mt19937 g;
    lg_mt_seed(&g, seed);
    lg_shuffle_u64(a, n, &g);
    for (size_t i = 0; i < nwant; i++)
        ck_assert_msg(a[i] == want[i], "seed %llu n %zu pos %zu: %llu != %llu",
                      (unsigned long long)seed, n, i, (unsigned long long)a[i],
                      (unsigned long long)want[i]);
    free(a);
}

START_TEST(shuffle_vectors)
{
    check_shuffle(0, 10, (uint64_t[]){0, 2, 1, 5, 9, 8, 4, 7, 6, 3}, 10);
    check_shuffle(0, 11, (uint64_t[]){10, 4, 6, 0, 5, 1, 9, 3, 7, 8, 2}, 11);
    check_shuffle(0, 70000,
                  (uint64_t[]){26990, 68204, 21904, 3028, 29287, 11021, 25046, 752, 38935, 23972}, 10);
    uint64_t v51 = 1780908523862526354ull;
    check_shuffle(v51, 16, (uint64_t[]){0, 2, 11, 9, 14, 7, 1, 5, 3, 4, 10, 6, 13, 15, 8, 12}, 16);
    check_shuffle(v51, 24576,
                  (uint64_t[]){20404, 23872, 22533, 9215, 6911, 18811, 17417, 6375, 6870, 16305, 7840,
                               13002},
                  12);
    check_shuffle(v51, 50000,
                  (uint64_t[]){44700, 23872, 48569, 9215, 6911, 43346, 48696, 6375, 6870, 27658, 49155,
                               37391},
                  12);
    check_shuffle(v51, 24781,
                  (uint64_t[]){20393, 23825, 4585, 1990, 21922, 14962, 7716, 4624, 6875, 19771, 7970,
                               12997},
                  12);
    check_shuffle(2085463073848966840ull, 1024,
                  (uint64_t[]){216, 267, 822, 906, 663, 580, 710, 908, 410, 882, 910, 801}, 12);
}
END_TEST

START_TEST(shuffle_types_agree)
{
    uint32_t a32[1000];
    size_t asz[1000];
    uint64_t a64[1000];
    for (int i = 0; i < 1000; i++)
        a32[i] = (uint32_t)i, asz[i] = (size_t)i, a64[i] = (uint64_t)i;
    lg_mt19937 g1, g2, g3;
    lg_mt_seed(&g1, 42);
    lg_mt_seed(&g2, 42);
    lg_mt_seed(&g3, 42);
    lg_shuffle_u32(a32, 1000, &g1);
    lg_shuffle_size(asz, 1000, &g2);
    lg_shuffle_u64(a64, 1000, &g3);
    for (int i = 0; i < 1000; i++)
        ck_assert(a32[i] == asz[i] && asz[i] == a64[i]);
    /* one element consumes nothing */
    lg_mt_seed(&g1, 7);
    lg_mt_seed(&g2, 7);
    lg_shuffle_u32(a32, 1, &g1);
    ck_assert_uint_eq(lg_mt_next(&g1), lg_mt_next(&g2));
}
END_TEST

START_TEST(canonical_and_exponential)
{
    lg_mt19937 g;
    lg_mt_seed(&g, 0);
    ck_assert(lg_canonical(&g) == 0.59284461651668263);
    ck_assert(lg_canonical(&g) == 0.84426574425659828);
    ck_assert(lg_canonical(&g) == 0.85794561998982988);
    lg_mt_seed(&g, 0);
    int64_t want[] = {898560, 1859604, 1951545, 1878964, 977006, 485128};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(lg_seconds_to_ns(lg_exponential(&g, 1000.0)), want[i]);
    lg_mt_seed(&g, 18209322760996052031ull);
    int64_t w2[] = {21947868, 21487151, 13156731, 4108869, 2736222, 10203765};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(lg_seconds_to_ns(lg_exponential(&g, 83.5)), w2[i]);
    lg_mt_seed(&g, 18209322760996052031ull);
    int64_t w3[] = {18326, 17941, 10985, 3430, 2284, 8520};
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(lg_seconds_to_ns(lg_exponential(&g, 100000.0)), w3[i]);
}
END_TEST

START_TEST(accuracy_log_engine_values)
{
    lg_mt19937 g;
    lg_mt_seed(&g, 5489);
    ck_assert(lg_uniform_real(&g, 0, 1) == 0.1354770042967805);
    ck_assert(lg_uniform_real(&g, 0, 1) == 0.8350085899945795);
    ck_assert(lg_uniform_real(&g, 0, 1) == 0.96886777112423139);
    ck_assert(lg_uniform_real(&g, 0, 1) == 0.2210340429827049);
    lg_mt_seed(&g, 720381539243781796ull);
    ck_assert(lg_uniform_real(&g, 0, 1) == 0.49069568815352677);
}
END_TEST

static Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, mt19937_check_values);
    tcase_add_test(tc, seeds_use_low_32_bits);
    tcase_add_test(tc, uniform_int_lemire);
    tcase_add_test(tc, shuffle_vectors);
    tcase_add_test(tc, shuffle_types_agree);
    tcase_add_test(tc, canonical_and_exponential);
    tcase_add_test(tc, accuracy_log_engine_values);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(rng_suite)
