/* Unit tests for the digits benchmark (src/loadgen/digits.c): CSV parser, split, deterministic
 * exp, training determinism, model files, INT8 against the target, accuracy-log scoring. Tests
 * on the real dataset skip when data/digits (make data) is absent. */
#include <jansson.h>
#include <math.h>
#include <pthread.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "loadgen/digits.h"
#include "testutil.h"

static const char *digits_dir(char *buf, size_t n)
{
    const char *d = getenv("MLSUBMIT_DATA");
    snprintf(buf, n, "%s/digits", d && *d ? d : "data");
    char f[600];
    snprintf(f, sizeof f, "%s/" DIGITS_CSV_NAME, buf);
    return ms_is_regular_file(f) ? buf : NULL;
}

#define NEED_DATA(dir)                                                                  \
    char dir##_buf[512];                                                                \
    const char *dir = digits_dir(dir##_buf, sizeof dir##_buf);                          \
    if (!dir) {                                                                         \
        fprintf(stderr, "SKIP %s: data/digits is absent (run make data)\n", __func__); \
        return;                                                                         \
    }

/* A CSV row: pixel i = (seed + i) % 17, label. */
static void row(ms_buf *b, int seed, int label)
{
    for (int i = 0; i < DIGITS_PIXELS; i++)
        ms_buf_printf(b, "%d,", (seed + i) % 17);
    ms_buf_printf(b, "%d", label);
}

START_TEST(csv_parses_rows)
{
    ms_buf b = MS_BUF_INIT;
    row(&b, 0, 3);
    ms_buf_puts(&b, "\r\n");
    row(&b, 5, 9); /* no final newline */
    digits_dataset ds;
    ms_err e = {0};
    ck_assert_int_eq(digits_parse_csv(b.data, b.len, "t.csv", &ds, &e), MS_OK);
    ck_assert_uint_eq(ds.n, 2);
    ck_assert_uint_eq(ds.labels[0], 3);
    ck_assert_uint_eq(ds.labels[1], 9);
    ck_assert_uint_eq(ds.pixels[0][16], 16);
    ck_assert_uint_eq(ds.pixels[0][17], 0);
    ck_assert_uint_eq(ds.pixels[1][63], (5 + 63) % 17);
    digits_dataset_free(&ds);
    ms_buf_free(&b);
}
END_TEST

START_TEST(csv_errors_name_file_line_and_field)
{
    static const struct {
        const char *tail; /* appended to a valid first line and a valid 63-pixel prefix */
        const char *msg;
    } cases[] = {
        {"0,7", "too many values"},         /* 64 pixels + 2 more */
        {"", "64 values, expected 65"},    /* no label: ends after the comma */
        {"17", "expected an integer 0..9, got '17'"},
        {"3.0", "field 65 (label): expected an integer 0..9, got '3.0'"},
        {"x", "got 'x'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_buf b = MS_BUF_INIT;
        row(&b, 1, 1);
        ms_buf_puts(&b, "\n");
        for (int k = 0; k < DIGITS_PIXELS; k++)
            ms_buf_puts(&b, "0,");
        ms_buf_puts(&b, cases[i].tail);
        ms_buf_puts(&b, "\n");
        digits_dataset ds;
        ms_err e = {0};
        ck_assert_int_eq(digits_parse_csv(b.data, b.len, "t.csv", &ds, &e), MS_EINPUT);
        ck_assert_msg(strstr(e.msg, "t.csv:2:"), "case %zu: %s", i, e.msg);
        ck_assert_msg(strstr(e.msg, cases[i].msg), "case %zu: '%s' lacks '%s'", i, e.msg, cases[i].msg);
        ck_assert_ptr_null(ds.pixels);
        ms_buf_free(&b);
    }
    digits_dataset ds;
    ms_err e = {0};
    const char *few = "1,2,3\n";
    ck_assert_int_eq(digits_parse_csv(few, strlen(few), "f.csv", &ds, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "f.csv:1: too few values"));
    ms_buf b = MS_BUF_INIT;
    row(&b, 0, 0);
    ms_buf_puts(&b, "\n\n");
    row(&b, 0, 0);
    ck_assert_int_eq(digits_parse_csv(b.data, b.len, "g.csv", &ds, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "g.csv:2: empty line"));
    ms_buf_reset(&b);
    for (int k = 0; k < DIGITS_PIXELS; k++)
        ms_buf_puts(&b, k == 10 ? "17," : "0,");
    ms_buf_puts(&b, "1");
    ck_assert_int_eq(digits_parse_csv(b.data, b.len, "h.csv", &ds, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "h.csv:1: field 11 (pixel): expected an integer 0..16, got '17'"));
    ck_assert_int_eq(digits_parse_csv("", 0, "i.csv", &ds, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "no rows"));
    ms_buf_free(&b);
}
END_TEST

START_TEST(load_plain_file_through_libarchive)
{
    char dir[256], path[300];
    ms_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/plain.csv", dir);
    ms_buf b = MS_BUF_INIT;
    row(&b, 2, 4);
    ms_buf_puts(&b, "\n");
    ms_err e = {0};
    ck_assert_int_eq(ms_write_file_atomic(path, b.data, b.len, &e), MS_OK);
    digits_dataset ds;
    ck_assert_int_eq(digits_load_csv(path, &ds, &e), MS_OK);
    ck_assert_uint_eq(ds.n, 1);
    ck_assert_uint_eq(ds.labels[0], 4);
    digits_dataset_free(&ds);
    /* a directory without the dataset: names the file and how to get it */
    ck_assert_int_eq(digits_load_dir(dir, &ds, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "digits.csv.gz: missing"));
    ck_assert_ptr_nonnull(strstr(e.msg, "make data"));
    /* a wrong file under the dataset's name: checksum mismatch */
    snprintf(path, sizeof path, "%s/" DIGITS_CSV_NAME, dir);
    ck_assert_int_eq(ms_write_file_atomic(path, b.data, b.len, &e), MS_OK);
    ck_assert_int_eq(digits_load_dir(dir, &ds, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "does not match the manifest"));
    ms_buf_free(&b);
}
END_TEST

START_TEST(split_is_fixed)
{
    ck_assert_uint_eq(digits_split_rows(DIGITS_ROWS, DIGITS_SPLIT_TRAIN, NULL), 1080);
    ck_assert_uint_eq(digits_split_rows(DIGITS_ROWS, DIGITS_SPLIT_CALIB, NULL), 180);
    ck_assert_uint_eq(digits_split_rows(DIGITS_ROWS, DIGITS_SPLIT_VAL, NULL), 537);
    size_t rows[537];
    digits_split_rows(DIGITS_ROWS, DIGITS_SPLIT_VAL, rows);
    ck_assert_uint_eq(rows[0], 7);
    ck_assert_uint_eq(rows[1], 8);
    ck_assert_uint_eq(rows[2], 9);
    ck_assert_uint_eq(rows[3], 17);
    ck_assert_uint_eq(rows[536], 1789);
    ck_assert_int_eq(digits_split_of_row(1796), DIGITS_SPLIT_CALIB);
    ck_assert_int_eq(digits_split_of_row(1795), DIGITS_SPLIT_TRAIN);
}
END_TEST

START_TEST(exp_is_accurate)
{
    for (double x = -700.0; x <= 700.0; x += 0.0137) {
        double a = digits_exp(x), b = exp(x);
        ck_assert_msg(fabs(a - b) <= 4e-16 * b, "exp(%g): %.17g vs %.17g", x, a, b);
    }
    ck_assert(digits_exp(0.0) == 1.0);
    ck_assert(digits_exp(-1000.0) == 0.0);
}
END_TEST

START_TEST(response_encoding)
{
    unsigned char r[4];
    digits_encode_response(7, r);
    ck_assert(r[0] == 7 && r[1] == 0 && r[2] == 0 && r[3] == 0);
    ck_assert_int_eq(digits_decode_response(r, 4), 7);
    ck_assert_int_eq(digits_decode_response(r, 3), -1);
    unsigned char ff[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    ck_assert_int_eq(digits_decode_response(ff, 4), -1);
}
END_TEST

static int load_rules(digits_rules *rl)
{
    ms_err e = {0};
    int rc = digits_rules_load("rules/digits.json", rl, &e);
    ck_assert_msg(rc == MS_OK, "%s", e.msg);
    return rc;
}

START_TEST(rules_match_the_code)
{
    digits_rules rl;
    load_rules(&rl);
    ck_assert_str_eq(rl.sha256, DIGITS_CSV_SHA256);
    ck_assert_double_eq(rl.target_fraction, 0.99);
    ck_assert_uint_eq(rl.ref_total, 537);
    /* the manifest for `dataset verify` carries the same checksum */
    char *text;
    size_t len;
    ms_err e = {0};
    ck_assert_int_eq(ms_read_file("rules/datasets/digits.sha256", 4096, &text, &len, &e), MS_OK);
    ck_assert_str_eq(text, DIGITS_CSV_SHA256 "  " DIGITS_CSV_NAME "\n");
    free(text);
    /* the target rule: 519/537 reference, 99% */
    digits_rules r2 = {519, 537, 0.99, ""};
    ck_assert(digits_rules_meets(&r2, 519, 537));
    ck_assert(digits_rules_meets(&r2, 514, 537));  /* 95.717% >= 95.682% */
    ck_assert(!digits_rules_meets(&r2, 513, 537)); /* 95.531% */
    ck_assert(!digits_rules_meets(&r2, 0, 0));
    /* rule errors name the file */
    char dir[256], path[300];
    ms_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/r.json", dir);
    const char *bad = "{\"accuracy\": {\"fp32_reference_good\": 600, \"fp32_reference_total\": 537}}";
    ms_write_file_atomic(path, bad, strlen(bad), &e);
    ck_assert_int_eq(digits_rules_load(path, &r2, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "r.json"));
}
END_TEST

/* ---- on the real dataset -------------------------------------------------------------------- */

START_TEST(real_dataset_loads)
{
    NEED_DATA(dir);
    digits_dataset ds;
    ms_err e = {0};
    ck_assert_msg(digits_load_dir(dir, &ds, &e) == MS_OK, "%s", e.msg);
    ck_assert_uint_eq(ds.n, DIGITS_ROWS);
    /* first row of the file: a 0 */
    ck_assert_uint_eq(ds.labels[0], 0);
    ck_assert_uint_eq(ds.pixels[0][2], 5);
    ck_assert_uint_eq(ds.pixels[0][3], 13);
    size_t per_class[DIGITS_CLASSES] = {0};
    for (size_t i = 0; i < ds.n; i++)
        per_class[ds.labels[i]]++;
    ck_assert_uint_eq(per_class[0], 178);
    ck_assert_uint_eq(per_class[8], 174);
    digits_dataset_free(&ds);
}
END_TEST

START_TEST(training_is_deterministic_and_matches_the_reference)
{
    NEED_DATA(dir);
    digits_dataset ds;
    ms_err e = {0};
    ck_assert_int_eq(digits_load_dir(dir, &ds, &e), MS_OK);
    digits_train_params p;
    digits_train_params_default(&p);
    digits_fp32 *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    ck_assert_int_eq(digits_train(&ds, &p, a, &e), MS_OK);
    ck_assert_int_eq(digits_train(&ds, &p, b, &e), MS_OK);
    unsigned char *sa, *sb;
    size_t la, lb;
    ck_assert_int_eq(digits_fp32_serialize(a, &sa, &la, &e), MS_OK);
    ck_assert_int_eq(digits_fp32_serialize(b, &sb, &lb, &e), MS_OK);
    ck_assert_uint_eq(la, lb);
    ck_assert(memcmp(sa, sb, la) == 0);
    /* the recorded FP32 reference is what this training gives */
    digits_rules rl;
    load_rules(&rl);
    size_t good, total;
    digits_accuracy_fp32(a, &ds, DIGITS_SPLIT_VAL, &good, &total);
    ck_assert_uint_eq(total, rl.ref_total);
    ck_assert_uint_eq(good, rl.ref_good);
    /* another seed gives other weights */
    p.seed++;
    ck_assert_int_eq(digits_train(&ds, &p, b, &e), MS_OK);
    free(sb);
    ck_assert_int_eq(digits_fp32_serialize(b, &sb, &lb, &e), MS_OK);
    ck_assert(memcmp(sa, sb, la) != 0);

    /* save/load round trip, atomically written */
    char tdir[256], path[300];
    ms_test_tmpdir(tdir, sizeof tdir);
    snprintf(path, sizeof path, "%s/m.bin", tdir);
    ck_assert_int_eq(digits_fp32_save(path, a, &e), MS_OK);
    ck_assert_int_eq(digits_fp32_load(path, b, &e), MS_OK);
    ck_assert(memcmp(a, b, sizeof *a) == 0);
    /* corruption is detected */
    sa[100] ^= 1;
    ck_assert_int_eq(ms_write_file_atomic(path, sa, la, &e), MS_OK);
    ck_assert_int_eq(digits_fp32_load(path, b, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "checksum mismatch"));
    ck_assert_int_eq(ms_write_file_atomic(path, "MLSDIGW1xx", 10, &e), MS_OK);
    ck_assert_int_eq(digits_fp32_load(path, b, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "retrain"));
    ck_assert_int_eq(ms_write_file_atomic(path, "junk", 4, &e), MS_OK);
    ck_assert_int_eq(digits_fp32_load(path, b, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "bad magic"));
    free(sa);
    free(sb);
    free(a);
    free(b);
    digits_dataset_free(&ds);
}
END_TEST

typedef struct pred_job {
    const digits_fp32 *m;
    const digits_int8 *q;
    const digits_dataset *ds;
    int *out; /* 2 per row */
} pred_job;

static void *predict_all_reverse(void *arg)
{
    pred_job *j = arg;
    for (size_t i = j->ds->n; i-- > 0;) {
        j->out[2 * i] = digits_predict_fp32(j->m, j->ds->pixels[i]);
        j->out[2 * i + 1] = digits_predict_int8(j->q, j->ds->pixels[i]);
    }
    return NULL;
}

START_TEST(int8_meets_the_target_and_inference_is_deterministic)
{
    NEED_DATA(dir);
    digits_dataset ds;
    ms_err e = {0};
    ck_assert_int_eq(digits_load_dir(dir, &ds, &e), MS_OK);
    digits_train_params p;
    digits_train_params_default(&p);
    digits_fp32 *m = malloc(sizeof *m);
    digits_int8 *q = malloc(sizeof *q), *q2 = malloc(sizeof *q2);
    ck_assert_int_eq(digits_train(&ds, &p, m, &e), MS_OK);
    ck_assert_int_eq(digits_quantize(m, &ds, q, &e), MS_OK);
    ck_assert_int_eq(digits_quantize(m, &ds, q2, &e), MS_OK);
    ck_assert(memcmp(q, q2, sizeof *q) == 0);
    digits_rules rl;
    load_rules(&rl);
    size_t good, total;
    digits_accuracy_int8(q, &ds, DIGITS_SPLIT_VAL, &good, &total);
    ck_assert_msg(digits_rules_meets(&rl, good, total), "INT8 %zu/%zu below the target", good, total);

    /* calibration uses only the calibration split: changing a validation or training image
     * leaves the quantised model unchanged, changing a calibration image can change it */
    digits_dataset alt = ds;
    alt.pixels = malloc(ds.n * sizeof *alt.pixels);
    memcpy(alt.pixels, ds.pixels, ds.n * sizeof *alt.pixels);
    for (size_t r = 0; r < ds.n; r++)
        if (digits_split_of_row(r) != DIGITS_SPLIT_CALIB)
            memset(alt.pixels[r], 16, DIGITS_PIXELS);
    ck_assert_int_eq(digits_quantize(m, &alt, q2, &e), MS_OK);
    ck_assert(memcmp(q, q2, sizeof *q) == 0);
    for (size_t r = 0; r < ds.n; r++)
        if (digits_split_of_row(r) == DIGITS_SPLIT_CALIB)
            memset(alt.pixels[r], 16, DIGITS_PIXELS);
    ck_assert_int_eq(digits_quantize(m, &alt, q2, &e), MS_OK);
    ck_assert(q2->h_scale != q->h_scale);
    free(alt.pixels);

    /* same results in another thread and another order */
    int *ref = malloc(ds.n * 2 * sizeof *ref), *got = malloc(ds.n * 2 * sizeof *got);
    for (size_t i = 0; i < ds.n; i++) {
        ref[2 * i] = digits_predict_fp32(m, ds.pixels[i]);
        ref[2 * i + 1] = digits_predict_int8(q, ds.pixels[i]);
    }
    pred_job j = {m, q, &ds, got};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, predict_all_reverse, &j), 0);
    pthread_join(th, NULL);
    ck_assert(memcmp(ref, got, ds.n * 2 * sizeof *ref) == 0);
    /* FP32 logits are bit-identical run to run */
    float l1[DIGITS_CLASSES], l2[DIGITS_CLASSES];
    digits_logits_fp32(m, ds.pixels[5], l1);
    digits_logits_fp32(m, ds.pixels[5], l2);
    ck_assert(memcmp(l1, l2, sizeof l1) == 0);
    free(ref);
    free(got);
    free(m);
    free(q);
    free(q2);
    digits_dataset_free(&ds);
}
END_TEST

START_TEST(scoring_accuracy_logs)
{
    NEED_DATA(dir);
    digits_dataset ds;
    ms_err e = {0};
    ck_assert_int_eq(digits_load_dir(dir, &ds, &e), MS_OK);
    size_t rows[537];
    digits_split_rows(ds.n, DIGITS_SPLIT_VAL, rows);
    char tdir[256], path[300];
    ms_test_tmpdir(tdir, sizeof tdir);
    snprintf(path, sizeof path, "%s/mlperf_log_accuracy.json", tdir);

    /* every sample, the first 100 answered wrong, plus 5 duplicates (ignored) */
    ms_buf b = MS_BUF_INIT;
    ms_buf_puts(&b, "[");
    for (size_t i = 0; i < 542; i++) {
        size_t idx = i < 537 ? i : i - 537;
        int cls = ds.labels[rows[idx]];
        if (idx < 100)
            cls = (cls + 1) % 10;
        if (i >= 537)
            cls = ds.labels[rows[idx]]; /* a correct duplicate must not count */
        ms_buf_printf(&b, "%s{ \"seq_id\" : %zu, \"qsl_idx\" : %zu, \"data\" : \"%02X000000\" }", i ? ",\n" : "\n", i,
                      idx, cls);
    }
    ms_buf_puts(&b, "\n]\n");
    ck_assert_int_eq(ms_write_file_atomic(path, b.data, b.len, &e), MS_OK);
    digits_score sc;
    ck_assert_msg(digits_score_log(path, &ds, &sc, &e) == MS_OK, "%s", e.msg);
    ck_assert_uint_eq(sc.entries, 542);
    ck_assert_uint_eq(sc.duplicates, 5);
    ck_assert_uint_eq(sc.total, 537);
    ck_assert_uint_eq(sc.good, 437);
    ck_assert_uint_eq(sc.dataset, 537);

    const char *oob = "[{\"seq_id\":0,\"qsl_idx\":537,\"data\":\"00000000\"}]";
    ck_assert_int_eq(ms_write_file_atomic(path, oob, strlen(oob), &e), MS_OK);
    ck_assert_int_eq(digits_score_log(path, &ds, &sc, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "qsl_idx 537 is outside the digits QSL"));
    const char *size = "[\n{\"seq_id\":0,\"qsl_idx\":3,\"data\":\"0000\"}]";
    ck_assert_int_eq(ms_write_file_atomic(path, size, strlen(size), &e), MS_OK);
    ck_assert_int_eq(digits_score_log(path, &ds, &sc, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, ":2: entry 0 (qsl_idx 3): response is 2 bytes"));
    const char *trunc = "[\n{\"seq_id\":0,\"qsl_idx\":3,\"data\":\"00000000\"},\n";
    ck_assert_int_eq(ms_write_file_atomic(path, trunc, strlen(trunc), &e), MS_OK);
    ck_assert_int_eq(digits_score_log(path, &ds, &sc, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "truncated"));
    ms_buf_free(&b);
    digits_dataset_free(&ds);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("digits");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, csv_parses_rows);
    tcase_add_test(tc, csv_errors_name_file_line_and_field);
    tcase_add_test(tc, load_plain_file_through_libarchive);
    tcase_add_test(tc, split_is_fixed);
    tcase_add_test(tc, exp_is_accurate);
    tcase_add_test(tc, response_encoding);
    tcase_add_test(tc, rules_match_the_code);
    tcase_add_test(tc, real_dataset_loads);
    tcase_add_test(tc, training_is_deterministic_and_matches_the_reference);
    tcase_add_test(tc, int8_meets_the_target_and_inference_is_deterministic);
    tcase_add_test(tc, scoring_accuracy_logs);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
