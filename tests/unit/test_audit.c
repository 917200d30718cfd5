/* Audits: the scores as Python prints them, the summary reader, rules data and audit.config files
 * (as the LoadGen parses them), TEST01 mode A / mode B / STRICT on crafted logs (upstream's
 * quirks), TEST01/TEST04/TEST05 performance verdicts and file texts, the audit.config evidence. */
#include <math.h>

#include "audit/audit_int.h"
#include "common/pyfmt.h"
#include "common/fsutil.h"
#include "common/summary.h"
#include "loadgen/internal.h"
#include "testutil.h"

static char tmp[256];

static void setup(void)
{
    ms_test_tmpdir(tmp, sizeof tmp);
}

static const char *tpath(const char *name)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmp, name);
    return buf;
}

static void put(const char *name, const char *text)
{
    ms_err e;
    ck_assert_int_eq(ms_write_file_atomic(tpath(name), text, strlen(text), &e), MS_OK);
}

static au_rules *rules(void)
{
    ms_err e = {0};
    au_rules *r = au_rules_load("rules/compliance.json", &e);
    ck_assert_msg(r != NULL, "%s", e.msg);
    return r;
}

/* ---- numbers ---- */

/* the scores of the verify files, as Python prints them (common/pyfmt.c) */
START_TEST(py_repr_matches_python)
{
    static const struct {
        double x;
        const char *want;
    } v[] = {{1341022.0, "1341022.0"}, {745.6999214032282, "745.6999214032282"}, {18.5856, "18.5856"},
             {1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
             {0.1 + 0.2, "0.30000000000000004"}, {-2.5, "-2.5"}, {0.0, "0.0"}, {-0.0, "-0.0"},
             {123456789012345678.0, "1.2345678901234568e+17"}, {1e9 / 1341022.0, "745.6999214032282"},
             {5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"}, {100.0, "100.0"}};
    char buf[MS_PY_FLOAT_MAX];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        ms_py_float_repr(v[i].x, buf);
        ck_assert_str_eq(buf, v[i].want);
    }
    ms_py_float_repr(NAN, buf);
    ck_assert_str_eq(buf, "nan");
    ms_py_float_repr(-INFINITY, buf);
    ck_assert_str_eq(buf, "-inf");
}
END_TEST

START_TEST(names_parse)
{
    ck_assert_int_eq(au_test_parse("TEST01"), AU_TEST01);
    ck_assert_int_eq(au_test_parse("test04"), AU_TEST04);
    ck_assert_int_eq(au_test_parse("5"), AU_TEST05);
    ck_assert_int_eq(au_test_parse("TEST06"), AU_TEST06);
    ck_assert_int_eq(au_test_parse("test09"), AU_TEST09);
    ck_assert_int_eq(au_test_parse("07"), AU_TEST07);
    ck_assert_int_eq(au_test_parse("TEST02"), -1);
    ck_assert_int_eq(au_test_parse("TEST10"), -1);
    ck_assert_str_eq(au_test_name(AU_TEST08), "TEST08");
    ck_assert_int_eq(au_dtype_parse("float32"), AU_DT_FLOAT32);
    ck_assert_int_eq(au_dtype_parse("int16"), -1);
    /* the rounds of each layout are data: "layouts" of rules/compliance.json */
    au_rules *r = rules();
    ck_assert_int_eq(au_layout_parse(r, "v5.1"), AU_LAYOUT_LEGACY);
    ck_assert_int_eq(au_layout_parse(r, "6.1"), AU_LAYOUT_UNIFIED);
    ck_assert_int_eq(au_layout_parse(r, "v6"), AU_LAYOUT_UNIFIED);
    ck_assert_int_eq(au_layout_parse(r, "v4.1"), -1);
    ck_assert_int_eq(au_layout_parse(r, "legacy"), AU_LAYOUT_LEGACY);
    ck_assert_int_eq(au_layout_parse(r, "unified"), AU_LAYOUT_UNIFIED);
    ck_assert_int_eq(au_layout_parse(r, "vlegacy"), -1);
    au_rules_free(r);
    ck_assert_int_eq(au_loads_set_from_count("6.0.6 @ abc"), 1);
    ck_assert_int_eq(au_loads_set_from_count("6.0.5 @ abc"), 0);
    ck_assert_int_eq(au_loads_set_from_count("5.1.0 @ abc"), 0);
    ck_assert_int_eq(au_loads_set_from_count("6.1.0"), 1);
    ck_assert_int_eq(au_test_from_path("a/b/TEST04/performance/run_1/x"), 4);
    ck_assert_int_eq(au_test_from_path("a/TEST04x/y"), 0);
}
END_TEST

/* ---- summary reader ---- */

START_TEST(summary_lines_and_values)
{
    const char *t = "Scenario : Offline\r\nSamples per second: 18.5856\n"
                    "no separator here\n * Early stopping 90.0th percentile estimate: 7631088\n";
    ms_summary s;
    ms_err e;
    ck_assert_int_eq(ms_summary_parse(&s, t, strlen(t), "x", &e), MS_OK);
    ck_assert_uint_eq(s.nlines, 4);
    char *v = ms_summary_get(&s, "Scenario");
    ck_assert_str_eq(v, "Offline");
    free(v);
    v = ms_summary_get(&s, "Samples per second");
    ck_assert_str_eq(v, "18.5856");
    free(v);
    ck_assert_ptr_null(ms_summary_get(&s, "no separator"));
    ck_assert_int_eq(ms_summary_find_prefix(&s, " * Early"), 3);
    ck_assert_int_eq(ms_summary_find_prefix(&s, "Result is"), -1);
    ms_summary_free(&s);
    ck_assert_int_eq(ms_summary_load(&s, "/nonexistent/summary", &e), MS_EINPUT);
}
END_TEST

/* ---- rules and audit.config ---- */

START_TEST(rules_per_model_values)
{
    au_rules *r = rules();
    ck_assert_uint_eq(au_rules_sampling_target(r, "resnet50"), 4096);
    ck_assert_uint_eq(au_rules_sampling_target(r, "resnet"), 4096);
    ck_assert_uint_eq(au_rules_sampling_target(r, "3d-unet-99.9"), 64);
    ck_assert_uint_eq(au_rules_sampling_target(r, "stable-diffusion-xl"), 128);
    ck_assert_uint_eq(au_rules_sampling_target(r, "retinanet"), 256);
    ck_assert_uint_eq(au_rules_sampling_target(r, "llama2-70b"), 0);
    ck_assert_int_eq(au_rules_required(r, "v5.1", AU_TEST04, "resnet50"), 1);
    ck_assert_int_eq(au_rules_required(r, "v5.1", AU_TEST04, "bert-99"), 0);
    ck_assert_int_eq(au_rules_required(r, "v6.1", AU_TEST01, "retinanet"), -1);
    ck_assert_int_eq(au_rules_required(r, "v6.0", AU_TEST04, "wan-2.2-t2v-a14b"), 1);
    ck_assert_int_eq(au_rules_required(r, "v6.1", AU_TEST05, "resnet"), 0);
    ck_assert_str_eq(au_rules_round_of(r, LG_COMPAT_5_1), "v5.1");
    ck_assert_str_eq(au_rules_round_of_version(r, "4.1.3 @ x"), "v4.1");
    ck_assert_str_eq(au_rules_round_of_version(r, "3.0.0"), "v3.0");
    /* "loadgen_round": a major's highest minor at or below, else its lowest; above every
     * major the newest; below, none */
    ck_assert_str_eq(au_rules_round_of(r, LG_COMPAT_6_0), "v6.1");
    ck_assert_str_eq(au_rules_round_of_version(r, "3.5.0"), "v3.1");
    ck_assert_str_eq(au_rules_round_of_version(r, "5.0.2"), "v5.1");
    ck_assert_str_eq(au_rules_round_of_version(r, "6.0.17"), "v6.1");
    ck_assert_str_eq(au_rules_round_of_version(r, "7.2"), "v6.1");
    ck_assert_ptr_null(au_rules_round_of_version(r, "2.1.0"));
    uint64_t s[3];
    ck_assert_int_eq(au_rules_test05_seeds(r, "v4.0", s), 0);
    ck_assert(s[1] == 11176391829184272374ULL);
    ck_assert(au_rules_fallback_delta(r, "bert-99.9") == 0.1);
    ck_assert(au_rules_fallback_delta(r, "rgat") == 1.0);
    ck_assert(au_rules_test01_seed(r) == 720381539243781796ULL);
    au_rules_free(r);
}
END_TEST

/* Applies an audit.config text as the LoadGen does at StartTest (model '*'). */
static void apply_audit(const char *text, lg_scenario sc, int test05, lg_test_settings *s, int *rc)
{
    ms_err e;
    lg_conf_session *cs = lg_conf_session_new(LG_COMPAT_6_0, NULL, &e);
    ck_assert_ptr_nonnull(cs);
    lg_settings_default(s);
    s->scenario = sc;
    lg_settings_apply_mlperf_conf(cs, s, "resnet50", lg_scenario_name(sc));
    s->mode = LG_SUBMISSION_RUN;
    lg_conf_session_set_audit_test05(cs, test05);
    *rc = lg_settings_from_config_text(cs, s, "audit.config", text, strlen(text), "*", lg_scenario_name(sc), 2);
    lg_conf_session_free(cs);
}

START_TEST(audit_config_files_apply)
{
    au_rules *r = rules();
    char *t;
    ms_err e;
    lg_test_settings s;
    int rc;
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST01, 0, "3d-unet-99", 0, "v6.1", NULL, &t, &e), MS_OK);
    ck_assert_ptr_nonnull(strstr(t, "*.*.accuracy_log_sampling_target = 64\n"));
    apply_audit(t, LG_OFFLINE, 0, &s, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(s.mode, LG_PERFORMANCE_ONLY);
    ck_assert(s.accuracy_log_rng_seed == 720381539243781796ULL);
    ck_assert_uint_eq(s.accuracy_log_sampling_target, 64);
    free(t);
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST01, 0, "mymodel", 0, "v6.1", NULL, &t, &e), MS_EUSAGE);
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST01, 0, "mymodel", 77, "v6.1", NULL, &t, &e), MS_OK);
    ck_assert_ptr_nonnull(strstr(t, "= 77\n"));
    free(t);

    ck_assert_int_eq(au_audit_config_text(r, AU_TEST04, 0, "stable-diffusion-xl", 0, "v6.1", NULL, &t, &e), MS_OK);
    apply_audit(t, LG_MULTI_STREAM, 0, &s, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(s.performance_issue_same, 1);
    ck_assert_uint_eq(s.performance_issue_same_index, 3);
    ck_assert_int_eq(s.performance_issue_unique, 0);
    apply_audit(t, LG_OFFLINE, 0, &s, &rc);
    ck_assert_uint_eq(s.min_query_count, 24576); /* the SDXL-only line is ignored with model '*' */
    free(t);

    ck_assert_int_eq(au_audit_config_text(r, AU_TEST04, 1, "resnet50", 0, "v6.1", NULL, &t, &e), MS_OK);
    apply_audit(t, LG_SERVER, 0, &s, &rc);
    ck_assert_int_eq(s.performance_issue_unique, 1);
    ck_assert_int_eq(s.performance_issue_same, 0);
    free(t);

    uint64_t seeds[3] = {11, 22, 18446744073709551615ULL};
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST05, 0, "digits", 0, "v6.1", seeds, &t, &e), MS_OK);
    apply_audit(t, LG_SINGLE_STREAM, 1, &s, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(s.test05, 1);
    ck_assert(s.test05_schedule_rng_seed == 18446744073709551615ULL);
    /* without the alternate-seed audit the LoadGen ignores test05 in audit.config, like master */
    apply_audit(t, LG_SINGLE_STREAM, 0, &s, &rc);
    ck_assert_int_eq(s.test05, 0);
    ck_assert(s.test05_qsl_rng_seed == 7975553102935885558ULL);
    free(t);
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST05, 0, "digits", 0, "v6.1", NULL, &t, &e), MS_OK);
    ck_assert_ptr_nonnull(strstr(t, "*.*.test05_sample_index_rng_seed = 11403566307062068064\n"));
    free(t);
    au_rules_free(r);
}
END_TEST

/* TEST06-TEST09: per-benchmark values, and audit.config files the LoadGen applies without error
 * (the verifier-only threshold keys included) */
START_TEST(bench_audit_configs)
{
    au_rules *r = rules();
    char *t;
    ms_err e = {0};
    lg_test_settings s;
    int rc;
    au_bench b;
    ck_assert_int_eq(au_rules_bench(r, AU_TEST06, "llama3.1-8b-interactive", &b, &e), MS_OK);
    ck_assert_str_eq(b.name, "llama3.1-8b");
    ck_assert_int_eq(b.eos_id, 128009);
    ck_assert_int_eq(b.compat_eos_id, 2);
    ck_assert_str_eq(au_bench_setting(&b, "accuracy_log_sampling_target"), "100");
    ck_assert_int_eq(au_rules_bench(r, AU_TEST06, "resnet", &b, &e), MS_EUSAGE);
    ck_assert_ptr_nonnull(strstr(e.msg, "TEST06 does not apply to model 'resnet'"));
    ck_assert_int_eq(au_rules_bench(r, AU_TEST09, "gpt-oss-120b", &b, &e), MS_OK);
    ck_assert(b.min_tokens == 1150.38 && b.max_tokens == 1406.02 && b.dataset_size == 6396);
    ck_assert_int_eq(au_rules_bench(r, AU_TEST08, "dlrm-v3", &b, &e), MS_OK);
    ck_assert(b.tolerance == 0.001);
    ck_assert_int_eq(au_rules_bench(r, AU_TEST07, "gpt-oss-120b", &b, &e), MS_OK);
    ck_assert(b.threshold == 60.698);
    ck_assert_str_eq(b.score_pattern, "'exact_match':\\s*([\\d.]+)");

    ck_assert_int_eq(au_audit_config_text(r, AU_TEST06, 0, "llama2-70b-99", 0, "v6.1", NULL, &t, &e), MS_OK);
    ck_assert_ptr_nonnull(strstr(t, "\n*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n"));
    apply_audit(t, LG_SERVER, 0, &s, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(s.accuracy_log_sampling_target, 100);
    ck_assert_uint_eq(s.min_query_count, 100);
    ck_assert_uint_eq(s.min_duration_ms, 0);
    ck_assert_int_eq(s.sample_concatenate_permutation, 0);
    free(t);
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST07, 0, "gpt-oss-120b", 0, "v6.1", NULL, &t, &e), MS_OK);
    ck_assert_ptr_nonnull(strstr(t, "\n*.*.test07_accuracy_threshold = 60.698\n"));
    apply_audit(t, LG_OFFLINE, 0, &s, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(s.performance_issue_unique, 1);
    ck_assert_uint_eq(s.accuracy_log_sampling_target, 990);
    free(t);
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST09, 0, "e2e-rag-qna", 0, "v6.1", NULL, &t, &e), MS_OK);
    ck_assert_ptr_nonnull(strstr(t, "\n*.*.test09_min_output_tokens = 246.43\n*.*.test09_max_output_tokens = 301.19\n"));
    ck_assert_ptr_null(strstr(t, "performance_issue_unique"));
    apply_audit(t, LG_OFFLINE, 0, &s, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(s.min_query_count, 824);
    free(t);
    ck_assert_int_eq(au_audit_config_text(r, AU_TEST08, 0, "digits", 0, "v6.1", NULL, &t, &e), MS_EUSAGE);
    au_rules_free(r);
}
END_TEST

/* ---- TEST01 accuracy ---- */

static void acclog(const char *name, const char *const *recs)
{
    ms_buf b = MS_BUF_INIT;
    ms_buf_puts(&b, "[\n");
    for (size_t i = 0; recs[i]; i++)
        ms_buf_printf(&b, "%s%s\n", recs[i], recs[i + 1] ? "," : "");
    ms_buf_puts(&b, "]\n");
    put(name, b.data);
    ms_buf_free(&b);
}

#define REC(seq, idx, hex) "{ \"seq_id\" : " #seq ", \"qsl_idx\" : " #idx ", \"data\" : \"" hex "\" }"

static void t01(au_t01 *t, au_dtype dt, int unixmode, int strict, ms_buf *out, ms_buf *rep)
{
    memset(t, 0, sizeof *t);
    char r[512], c[512];
    snprintf(r, sizeof r, "%s", tpath("ref.json"));
    snprintf(c, sizeof c, "%s", tpath("perf.json"));
    t->ref_log = strdup(r);
    t->test_log = strdup(c);
    t->dtype = dt;
    t->unixmode = unixmode;
    t->strict = strict;
    au_rep rp = {rep, 0, 0, 0};
    ms_err e = {0};
    ck_assert_int_eq(au_test01_accuracy(t, out, &rp, NULL, &e), MS_OK);
    free((char *)t->ref_log);
    free((char *)t->test_log);
}

START_TEST(test01_mode_a_quirks)
{
    static const char *const ref[] = {REC(0, 1, "01000000"), REC(1, 2, "02000000"), REC(2, 2, "02000000"),
                                      REC(3, 3, "03000000"), REC(4, 3, "0300000A"), NULL};
    /* 2 differs (FF); its second record is compared with the first compliance record (no
     * mismatch); 9 is missing, then compared with the previous compliance record (mismatch) */
    static const char *const perf[] = {REC(10, 1, "01000000"), REC(11, 2, "FF000000"), REC(12, 2, "FF000000"),
                                       REC(13, 9, "09000000"), REC(14, 9, "0A000000"), NULL};
    acclog("ref.json", ref);
    acclog("perf.json", perf);
    au_t01 t;
    ms_buf out = MS_BUF_INIT, rep = MS_BUF_INIT;
    t01(&t, AU_DT_BYTE, 0, 1, &out, &rep);
    ck_assert_str_eq(out.data, "Verifying accuracy. This might take a while...\n"
                               "Reading accuracy mode results...\nReading performance mode results...\n"
                               "num_acc_log_entries = 5\nnum_acc_log_duplicate_keys = 2\n"
                               "num_acc_log_data_mismatch = 1\nnum_perf_log_entries = 5\n"
                               "num_perf_log_qsl_idx_match = 4\nnum_perf_log_data_mismatch = 2\n"
                               "num_missing_qsl_idxs = 1\nTEST FAIL\n\n");
    /* STRICT: against the first reference record only: both records of 2 differ */
    ck_assert_uint_eq(t.full_mismatch, 2);
    ck_assert_uint_eq(t.covered, 2);
    ms_buf_free(&out);
    ms_buf_free(&rep);
}
END_TEST

START_TEST(test01_mode_a_dtypes)
{
    /* float32 NaN never equals itself; the byte view only sees 00 */
    static const char *const ref[] = {REC(0, 1, "0000C07F"), REC(1, 2, ""), REC(2, 3, "05000000"), NULL};
    static const char *const perf[] = {REC(0, 1, "0000C07F"), REC(1, 2, ""), REC(2, 3, "05000001"), NULL};
    acclog("ref.json", ref);
    acclog("perf.json", perf);
    au_t01 t;
    ms_buf out = MS_BUF_INIT, rep = MS_BUF_INIT;
    t01(&t, AU_DT_FLOAT32, 0, 1, &out, &rep);
    ck_assert_uint_eq(t.data_mismatch, 2);   /* NaN, and 05000000 vs 05000001 as one float each */
    ck_assert_int_eq(t.pass, 0);
    ms_buf_reset(&out);
    t01(&t, AU_DT_BYTE, 0, 1, &out, &rep);
    ck_assert_uint_eq(t.data_mismatch, 0);
    ck_assert_int_eq(t.pass, 1);
    ck_assert_uint_eq(t.full_mismatch, 1);  /* STRICT sees the last byte */
    ms_buf_reset(&out);
    /* empty vs non-empty: a mismatch whatever the first element */
    static const char *const perf2[] = {REC(0, 2, "00"), NULL};
    acclog("perf.json", perf2);
    t01(&t, AU_DT_BYTE, 0, 0, &out, &rep);
    ck_assert_uint_eq(t.data_mismatch, 1);
    ms_buf_reset(&out);
    /* 1 byte is not a whole int32: upstream aborts; we say why and fail */
    t01(&t, AU_DT_INT32, 0, 0, &out, &rep);
    ck_assert_int_eq(t.input_error, 1);
    ck_assert_ptr_nonnull(strstr(out.data, "not a whole number of int32 elements"));
    ck_assert_ptr_nonnull(strstr(out.data, "\nTEST FAIL\n"));
    ms_buf_free(&out);
    ms_buf_free(&rep);
}
END_TEST

START_TEST(test01_empty_and_truncated_logs)
{
    static const char *const ref[] = {REC(0, 1, "01000000"), NULL};
    static const char *const none[] = {NULL};
    acclog("ref.json", ref);
    acclog("perf.json", none);
    au_t01 t;
    ms_buf out = MS_BUF_INIT, rep = MS_BUF_INIT;
    t01(&t, AU_DT_BYTE, 0, 1, &out, &rep);
    ck_assert_int_eq(t.pass, 0);   /* 0 matches */
    ck_assert_int_eq(t.input_error, 0);
    ck_assert_ptr_nonnull(strstr(rep.data, "FAIL  full-byte comparison"));
    ms_buf_reset(&out);
    /* a log cut by the packaging tool */
    char big[9000];
    memset(big, 'A', sizeof big);
    const char *head = "[\n{ \"seq_id\" : 0, \"qsl_idx\" : 1, \"data\" : \"";
    memcpy(big, head, strlen(head));
    memcpy(big + 4096, "\n\n...\n\n", 7);
    big[8199] = '\0';
    put("perf.json", big);
    t01(&t, AU_DT_BYTE, 0, 0, &out, &rep);
    ck_assert_int_eq(t.input_error, 1);
    ck_assert_msg(strstr(out.data, "truncated by the packaging tool") != NULL, "%s", out.data);
    /* only the banner: upstream's json.load fails before "Reading accuracy mode results..." */
    ck_assert_ptr_null(strstr(out.data, "Reading"));
    ms_buf_free(&out);
    ms_buf_free(&rep);
}
END_TEST

START_TEST(test01_mode_b)
{
    /* reference duplicates of one index join into one digest: a mismatch in mode B */
    static const char *const ref[] = {REC(0, 1, "01000000"), REC(1, 2, "02000000"), REC(2, 2, "02000000"),
                                      REC(3, 12, "0C000000"), REC(4, 120, "78000000"), NULL};
    static const char *const perf[] = {REC(70, 1, "01000000"), REC(71, 2, "02000000"), REC(72, 12, "0C000000"),
                                       NULL};
    acclog("ref.json", ref);
    acclog("perf.json", perf);
    au_t01 t;
    ms_buf out = MS_BUF_INIT, rep = MS_BUF_INIT;
    t01(&t, AU_DT_BYTE, 1, 0, &out, &rep);
    ck_assert_str_eq(out.data, "Verifying accuracy. This might take a while...\n"
                               "Each dot represents 1% completion:\n.....\n"
                               "num_acc_log_entries = 5\nnum_perf_log_data_mismatch = 1\n"
                               "num_perf_log_entries = 3\nTEST FAIL\n\n");
    ck_assert_uint_eq(t.qsl_match, 2);
    ms_buf_free(&out);
    ms_buf_free(&rep);
}
END_TEST

/* ---- performance verification ---- */

static void detail(const char *name, const char *scenario, const char *key, const char *value, const char *extra)
{
    ms_buf b = MS_BUF_INIT;
    const char *fmt = ":::MLLOG {\"key\": \"%s\", \"value\": %s, \"time_ms\": 0.1, \"namespace\": \"mlperf::logging\", "
                      "\"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": %s, \"is_warning\": false, "
                      "\"file\": \"x\", \"line_no\": 1, \"pid\": 1, \"tid\": 1}}\n";
    char sc[64];
    snprintf(sc, sizeof sc, "\"%s\"", scenario);
    ms_buf_printf(&b, fmt, "effective_scenario", sc, "false");
    ms_buf_printf(&b, fmt, "effective_target_latency_ns", "15000000", "false");
    ms_buf_printf(&b, fmt, "result_validity", "\"VALID\"", "false");
    ms_buf_printf(&b, fmt, key, value, "false");
    if (extra)
        ms_buf_printf(&b, fmt, "error_invalid_config", extra, "true");
    put(name, b.data);
    ms_buf_free(&b);
}

static int t01perf(ms_buf *out)
{
    au_rules *r = rules();
    int pass = -1;
    double a, b;
    char rp[512];
    snprintf(rp, sizeof rp, "%s", tpath("ref.txt"));
    ms_buf_reset(out);
    ck_assert_int_eq(au_test01_performance(r, rp, tpath("test.txt"), out, &pass, &a, &b, NULL), MS_OK);
    au_rules_free(r);
    return pass;
}

START_TEST(test01_performance_tolerances)
{
    ms_buf out = MS_BUF_INIT;
    detail("ref.txt", "SingleStream", "early_stopping_latency_ss", "200000", NULL);
    detail("test.txt", "SingleStream", "early_stopping_latency_ss", "240000", NULL);
    ck_assert_int_eq(t01perf(&out), 1); /* r <= 200 us: 20 %, inclusive */
    ck_assert_str_eq(out.data, "Verifying performance.\nReference score = 200000.0\nTest score = 240000.0\nTEST PASS\n");
    detail("ref.txt", "SingleStream", "early_stopping_latency_ss", "200001", NULL);
    detail("test.txt", "SingleStream", "early_stopping_latency_ss", "230000", NULL);
    ck_assert_int_eq(t01perf(&out), 0);
    ck_assert_ptr_nonnull(strstr(out.data, "TEST FAIL: Test score invalid\n"));
    detail("ref.txt", "Offline", "result_samples_per_second", "100", NULL);
    detail("test.txt", "Offline", "result_samples_per_second", "89.9", NULL);
    ck_assert_int_eq(t01perf(&out), 0);  /* two-sided: slower fails too */
    detail("test.txt", "Server", "result_completed_samples_per_sec", "100", NULL);
    ck_assert_int_eq(t01perf(&out), 0);
    ck_assert_str_eq(out.data, "Verifying performance.\nTEST FAIL: Test and reference scenarios do not match!\n");
    /* error entries: upstream crashes; a warning and the comparison */
    detail("test.txt", "Offline", "result_samples_per_second", "101", "\"Multiple conf files are used.\"");
    ck_assert_int_eq(t01perf(&out), 1);
    ck_assert_ptr_nonnull(strstr(out.data, "WARNING: 1 ERROR reported in "));
    ms_buf_free(&out);
}
END_TEST

static int sumperf(au_test t, const char *ref, const char *test, ms_buf *out)
{
    au_rules *r = rules();
    put("ref.sum", ref);
    put("test.sum", test);
    int pass = -1;
    double a, b;
    char rp[512];
    snprintf(rp, sizeof rp, "%s", tpath("ref.sum"));
    ms_buf_reset(out);
    au_summary_performance(r, t, rp, tpath("test.sum"), out, &pass, &a, &b, NULL);
    au_rules_free(r);
    return pass;
}

START_TEST(summary_performance_quirks)
{
    ms_buf out = MS_BUF_INIT;
    const char *ss_ref = "Scenario : SingleStream\nResult is : VALID\n * Early stopping 90.0th percentile estimate: 1341022\n";
    const char *ss_test = "Scenario : SingleStream\n1 ERROR encountered. See detailed log.\n"
                          " * Early stopping 90th percentile estimate: 1200000\n";
    /* TEST04: latencies converted to rates; 20 % because the rate is below 200000 (Q4) */
    ck_assert_int_eq(sumperf(AU_TEST04, ss_ref, ss_test, &out), 1);
    ck_assert_str_eq(out.data, "Verifying performance.\nWARNING: 1 ERROR reported in test results\n"
                               "reference score = 745.6999214032282\ntest score = 833.3333333333334\nTEST PASS\n");
    /* TEST05: latencies kept; 1341022 > 200000 so 5 %, one-sided: faster passes, slower fails */
    ck_assert_int_eq(sumperf(AU_TEST05, ss_ref, ss_test, &out), 1);
    ck_assert_ptr_nonnull(strstr(out.data, "reference score = 1341022\ntest score = 1200000\n"));
    ck_assert_int_eq(sumperf(AU_TEST05, ss_test, ss_ref, &out), 0);
    /* Server: the text as printed; target latency never compared by COMPAT */
    const char *sv_ref = "Scenario : Server\nCompleted samples per second    : 16.20\ntarget_latency (ns): 1\n";
    const char *sv_test = "Scenario : Server\nCompleted samples per second    : 17.81\ntarget_latency (ns): 2\n";
    ck_assert_int_eq(sumperf(AU_TEST04, sv_ref, sv_test, &out), 1);
    ck_assert_str_eq(out.data, "Verifying performance.\nreference score = 16.20\ntest score = 17.81\nTEST PASS\n");
    const char *sv_fast = "Scenario : Server\nCompleted samples per second    : 17.82\n";
    ck_assert_int_eq(sumperf(AU_TEST04, sv_ref, sv_fast, &out), 0);
    /* scenario mismatch: no "TEST FAIL" prefix upstream, and no pass */
    ck_assert_int_eq(sumperf(AU_TEST04, sv_ref, ss_test, &out), 0);
    ck_assert_str_eq(out.data, "Verifying performance.\nWARNING: 1 ERROR reported in test results\n"
                               "Test and reference scenarios do not match!\n");
    ck_assert_int_eq(sumperf(AU_TEST04, "Scenario : Offline\nResult is : INVALID\n", sv_ref, &out), 0);
    ck_assert_str_eq(out.data, "Verifying performance.\nTEST FAIL: Reference results are invalid\n");
    /* a score that is not found stays 0 */
    ck_assert_int_eq(sumperf(AU_TEST05, "Scenario : Offline\n", "Scenario : Offline\nSamples per second: 5\n", &out), 1);
    ck_assert_ptr_nonnull(strstr(out.data, "reference score = 0\n"));
    ms_buf_free(&out);
}
END_TEST

START_TEST(applied_evidence)
{
    au_rules *r = rules();
    ms_buf b = MS_BUF_INIT;
    put("d.txt",
        ":::MLLOG {\"key\": \"qsl_reported_total_count\", \"value\": 10, \"metadata\": {\"is_error\": false}}\n"
        ":::MLLOG {\"key\": \"qsl_reported_performance_count\", \"value\": 10, \"metadata\": {\"is_error\": false}}\n"
        ":::MLLOG {\"key\": \"warning_generic_message\", \"value\": \"Found Audit Config file (audit.config). x\", \"metadata\": {\"is_warning\": true}}\n"
        ":::MLLOG {\"key\": \"error_invalid_config\", \"value\": \"value needs to be integer or double, line=3\", \"metadata\": {\"is_error\": true}}\n"
        ":::MLLOG {\"key\": \"requested_scenario\", \"value\": \"Offline\", \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"requested_test_mode\", \"value\": \"PerformanceOnly\", \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"effective_test_mode\", \"value\": \"PerformanceOnly\", \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"effective_performance_issue_same\", \"value\": false, \"metadata\": {}}\n");
    ms_mllog log;
    char why[2048];
    ck_assert_int_eq(au_load_detail(tpath("d.txt"), &log, why, sizeof why), 0);
    au_rep rep = {&b, 0, 0, 0};
    au_check_applied(&rep, AU_TEST04, &log, r, 0, NULL, -1);
    ck_assert_ptr_nonnull(strstr(b.data, "PASS  warning 'Found Audit Config file"));
    ck_assert_ptr_nonnull(strstr(b.data, "FAIL  audit.config parsed: rejected by the LoadGen (line 4:"));
    ck_assert_ptr_nonnull(strstr(b.data, "FAIL  effective_performance_issue_same = true, logged: false"));
    ck_assert_ptr_nonnull(strstr(b.data, "FAIL  effective_performance_issue_same_index = 3: the key is not in the log"));
    ck_assert_int_eq(rep.passes, 2);
    ck_assert_int_eq(rep.fails, 4);
    ms_mllog_free(&log);
    put("d.txt", "");
    ck_assert_int_eq(au_load_detail(tpath("d.txt"), &log, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "the file is empty"));
    ms_buf_free(&b);
    au_rules_free(r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("audit");
    TCase *tc = tcase_create("audit");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, py_repr_matches_python);
    tcase_add_test(tc, names_parse);
    tcase_add_test(tc, summary_lines_and_values);
    tcase_add_test(tc, rules_per_model_values);
    tcase_add_test(tc, audit_config_files_apply);
    tcase_add_test(tc, bench_audit_configs);
    tcase_add_test(tc, test01_mode_a_quirks);
    tcase_add_test(tc, test01_mode_a_dtypes);
    tcase_add_test(tc, test01_empty_and_truncated_logs);
    tcase_add_test(tc, test01_mode_b);
    tcase_add_test(tc, test01_performance_tolerances);
    tcase_add_test(tc, summary_performance_quirks);
    tcase_add_test(tc, applied_evidence);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
