/* Results: radix sort, early-stopping numbers of the reference LoadGen (early_stopping.cc), exactness of the fast odds
 * decision against the reference evaluation. */
#include <math.h>

#include "loadgen/results.h"
#include "testutil.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

START_TEST(radix_sort_matches_qsort)
{
    size_t sizes[] = {0, 1, 7, 255, 256, 1000, 100000};
    uint64_t s = 88172645463325252ull;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        int64_t *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
        for (size_t i = 0; i < n; i++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            a[i] = b[i] = (i % 3 == 0) ? -(int64_t)(s % 1000000) : (int64_t)(s >> 1);
        }
        ck_assert_int_eq(lg_sort_i64(a, n), 0);
        qsort(b, n, sizeof *b, cmp_i64);
        for (size_t i = 0; i < n; i++)
            ck_assert(a[i] == b[i]);
        free(a);
        free(b);
    }
}
END_TEST

START_TEST(early_stopping_table_fresh_finder)
{
    const double ps[4] = {0.90, 0.97, 0.99, 0.999};
    const int64_t ts[7] = {0, 1, 2, 5, 10, 100, 1000};
    const int64_t want[4][7] = {{44, 63, 79, 122, 187, 1146, 9722},
                                {152, 218, 275, 428, 657, 4082, 34831},
                                {459, 661, 836, 1302, 2000, 12471, 106569},
                                {4603, 6635, 8401, 13100, 20130, 125726, 1075032}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 7; j++) {
            lg_es_finder *f = lg_es_finder_new();
            int64_t h = lg_es_find(f, ts[j], ps[i], 0.0, 0.99);
            ck_assert_msg(h == want[i][j], "p=%g t=%lld: got %lld want %lld", ps[i],
                          (long long)ts[j], (long long)h, (long long)want[i][j]);
            lg_es_finder_free(f);
        }
}
END_TEST

/* The sequential SingleStream scan of the reference: first t with Q < h(t) + t. */
static int64_t sequential_t(int64_t Q, double p)
{
    lg_es_finder *f = lg_es_finder_new();
    int64_t t = 1;
    for (int64_t i = 2; i < Q + 1; ++i) {
        int64_t h = lg_es_find(f, i, p, 0.0, 0.99);
        if (Q < h + i) {
            t = i - 1;
            break;
        }
    }
    lg_es_finder_free(f);
    return t;
}

START_TEST(early_stopping_discard_counts_of_real_logs)
{
    ck_assert_int_eq(sequential_t(79118, 0.9), 7715);
    ck_assert_int_eq(sequential_t(453399, 0.9), 44870);   /* Lenovo v5.1 SingleStream log */
    ck_assert_int_eq(sequential_t(1235124, 0.99), 12094);
}
END_TEST

START_TEST(fast_odds_decision_is_exact)
{
    const double thr = 1 - 0.99;
    const double ps[3] = {0.9, 0.99, 0.9990000000000001};
    int checked = 0;
    for (int pi = 0; pi < 3; pi++) {
        double p = ps[pi];
        for (int64_t t = 0; t <= 3000; t += (t < 50 ? 1 : 37)) {
            lg_es_finder *f = lg_es_finder_new();
            int64_t h0 = lg_es_find(f, t, p, 0.0, 0.99);
            lg_es_finder_free(f);
            for (int64_t h = h0 - 40; h <= h0 + 40; h++) {
                if (h < 1)
                    continue;
                int slow = lg_es_odds(h, t, p, 0.0) < thr;
                ck_assert_msg(lg_es_odds_below(h, t, p, 0.0, thr) == slow, "p=%g h=%lld t=%lld", p,
                              (long long)h, (long long)t);
                checked++;
            }
        }
    }
    ck_assert_int_gt(checked, 10000);
}
END_TEST

static Suite *results_suite(void)
{
    Suite *s = suite_create("results");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, radix_sort_matches_qsort);
    tcase_add_test(tc, early_stopping_table_fresh_finder);
    tcase_add_test(tc, early_stopping_discard_counts_of_real_logs);
    tcase_add_test(tc, fast_odds_decision_is_exact);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(results_suite)
