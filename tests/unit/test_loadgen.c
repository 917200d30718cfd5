/* LoadGen settings, config files, effective settings and query generation against the spec's
 * rules and vectors, and the loaded sets of real v5.x logs (compat 5.1). */
#include <dirent.h>
#include <math.h>

#include "common/fsutil.h"
#include "common/jschema.h"
#include "common/mllog.h"
#include "loadgen/internal.h"
#include "loadgen/loadgen.h"
#include "loadgen/rng.h"
#include "loadgen/querygen.h"
#include "loadgen/results.h"
#include "testutil.h"

#define V51_QSL 1780908523862526354ull
#define V51_SAMPLE 14771362308971278857ull
#define V51_SCHED 18209322760996052031ull

static lg_conf_session *session(void)
{
    ms_err e;
    lg_conf_session *cs = lg_conf_session_new(LG_COMPAT_6_0, NULL, &e);
    ck_assert_msg(cs != NULL, "%s", e.msg);
    return cs;
}

static int apply(lg_conf_session *cs, lg_test_settings *s, const char *text, const char *model,
                 const char *scen, int type)
{
    return lg_settings_from_config_text(cs, s, "test.conf", text, strlen(text), model, scen, type);
}

static size_t count_kind(lg_conf_session *cs, lg_conf_finding_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < lg_conf_session_nfindings(cs); i++)
        if (lg_conf_session_finding(cs, i)->kind == k)
            n++;
    return n;
}

START_TEST(defaults_match_spec)
{
    lg_test_settings s;
    lg_settings_default(&s);
    ck_assert_int_eq(s.scenario, LG_SINGLE_STREAM);
    ck_assert_int_eq(s.mode, LG_PERFORMANCE_ONLY);
    ck_assert(s.single_stream_expected_latency_ns == 1000000);
    ck_assert(s.multi_stream_expected_latency_ns == 8000000);
    ck_assert(s.multi_stream_samples_per_query == 8);
    ck_assert(s.server_target_latency_ns == 100000000);
    ck_assert(s.server_target_latency_percentile == 0.99);
    ck_assert(s.min_duration_ms == 10000 && s.min_query_count == 100);
    ck_assert(s.server_ttft_latency == 100000000 && s.server_tpot_latency == 100000000);
    ck_assert(s.server_find_peak_qps_decimals_of_precision == 1);
}
END_TEST

START_TEST(set_by_name)
{
    lg_test_settings s;
    lg_settings_default(&s);
    ms_err e;
    ck_assert_int_eq(lg_settings_set(&s, "qsl_rng_seed", "18446744073709551615", &e), MS_OK);
    ck_assert(s.qsl_rng_seed == UINT64_MAX);
    ck_assert_int_eq(lg_settings_set(&s, "min_query_count", "-3", &e), MS_EUSAGE);
    ck_assert_int_eq(lg_settings_set(&s, "min_query_cont", "3", &e), MS_EUSAGE);
    ck_assert_ptr_nonnull(strstr(e.msg, "min_query_count"));
    ck_assert_int_eq(lg_settings_set(&s, "mode", "AccuracyOnly", &e), MS_OK);
    ck_assert_int_eq(s.mode, LG_ACCURACY_ONLY);
    ck_assert_int_eq(lg_settings_set(&s, "performance_issue_unique", "true", &e), MS_OK);
    ck_assert_int_eq(s.performance_issue_unique, 1);
    ck_assert_int_eq(lg_settings_set(&s, "server_target_qps", "nan", &e), MS_EUSAGE);
}
END_TEST

START_TEST(grammar_quirks)
{
    lg_conf_session *cs = session();
    lg_test_settings s;
    lg_settings_default(&s);
    /* a lone '#' comment, k=1 single token ignored, base-0 integers, fraction dropped */
    const char *t = "# comment line\n"
                    "*.*.min_query_count=5\n"
                    "*.*.max_query_count = 0x10\n"
                    "*.*.min_duration = 15.5\n"
                    "#single\n"
                    "\n"
                    "*.Offline.target_qps = 7 9\n";
    ck_assert_int_eq(apply(cs, &s, t, "resnet50", "Offline", 3), 0);
    ck_assert(s.min_query_count == 100); /* k=1 was ignored */
    ck_assert(s.max_query_count == 16);
    ck_assert(s.min_duration_ms == 15);
    ck_assert(s.offline_expected_qps == 9); /* later numeric tokens overwrite */
    ck_assert_uint_ge(count_kind(cs, LG_CONF_IGNORED), 2);
    lg_conf_session_free(cs);

    /* trailing comment after a value and '#text more' are syntax errors: file not applied */
    cs = session();
    lg_settings_default(&s);
    ck_assert_int_eq(apply(cs, &s, "*.*.min_query_count = 5\n*.*.max_query_count = 1 # c\n",
                           "m", "Offline", 3), -22);
    ck_assert(s.min_query_count == 100);
    ck_assert_uint_eq(count_kind(cs, LG_CONF_MALFORMED), 1);
    ck_assert_str_eq(lg_conf_session_log_error(cs, 0), "value needs to be integer or double, line=2");
    ck_assert_int_eq(apply(cs, &s, "#text more\n", "m", "Offline", 3), -22);
    ck_assert_str_eq(lg_conf_session_log_error(cs, 1), "expected 'key=value', line=1");
    lg_conf_session_free(cs);
}
END_TEST

START_TEST(lookup_order_and_multipliers)
{
    lg_conf_session *cs = session();
    lg_test_settings s;
    lg_settings_default(&s);
    const char *t = "resnet50.*.min_query_count = 1\n"
                    "*.Offline.min_query_count = 2\n"
                    "*.*.target_qps = 3.5\n"
                    "*.*.target_latency = 12\n"
                    "*.SingleStream.target_latency_percentile = 99.9\n";
    ck_assert_int_eq(apply(cs, &s, t, "resnet50", "Offline", 3), 0);
    ck_assert(s.min_query_count == 2); /* scenario wildcard beats model wildcard */
    ck_assert(s.server_target_qps == 3.5 && s.offline_expected_qps == 3.5);
    ck_assert(s.single_stream_expected_latency_ns == 12e6);
    ck_assert(s.server_target_latency_ns == 12000000);
    ck_assert(s.single_stream_target_latency_percentile == 99.9 * 0.01);
    ck_assert(s.single_stream_target_latency_percentile != 0.999);
    lg_conf_session_free(cs);
}
END_TEST

START_TEST(user_conf_brings_mlperf_conf_and_keeps_seeds)
{
    lg_conf_session *cs = session();
    lg_test_settings s;
    lg_settings_default(&s);
    ck_assert_int_eq(apply(cs, &s, "*.*.qsl_rng_seed = 5\nresnet50.Offline.target_qps = 100\n",
                           "resnet50", "Offline", 1), 0);
    ck_assert(s.qsl_rng_seed == 2085463073848966840ull); /* mlperf.conf only */
    ck_assert(s.performance_sample_count_override == 1024);
    ck_assert(s.min_query_count == 24576);
    ck_assert(s.offline_expected_qps == 100);
    ck_assert(s.min_duration_ms == 600000);
    ck_assert_uint_eq(count_kind(cs, LG_CONF_IGNORED), 1);
    /* a second user.conf logs the reference's error */
    ck_assert_int_eq(apply(cs, &s, "", "resnet50", "Offline", 1), 0);
    ck_assert_str_eq(lg_conf_session_log_error(cs, 0),
                     "Multiple conf files are used. This is not valid for official submission.");
    lg_conf_session_free(cs);
}
END_TEST

START_TEST(audit_config_model_star_and_token_keys)
{
    lg_conf_session *cs = session();
    lg_test_settings s;
    lg_settings_default(&s);
    const char *audit = "*.*.mode = 2\n*.*.accuracy_log_rng_seed = 720381539243781796\n"
                        "*.*.accuracy_log_sampling_target = 4096\n"
                        "resnet50.Offline.min_query_count = 7\n*.*.test05 = 1\n";
    ck_assert_int_eq(apply(cs, &s, audit, "*", "Offline", 2), 0);
    ck_assert(s.accuracy_log_rng_seed == 720381539243781796ull);
    ck_assert(s.accuracy_log_sampling_target == 4096);
    ck_assert(s.min_query_count == 100);
    ck_assert_int_eq(s.test05, 0);
    ck_assert_uint_eq(count_kind(cs, LG_CONF_IGNORED), 2);
    lg_conf_session_free(cs);

    /* ttft/tpot only read when use_token_latencies is on after this file's lookup */
    cs = session();
    lg_settings_default(&s);
    ck_assert_int_eq(apply(cs, &s, "*.Server.ttft_latency = 5\n", "m", "Server", 3), 0);
    ck_assert(s.server_ttft_latency == 100000000);
    ck_assert_int_eq(apply(cs, &s, "*.*.use_token_latencies = 1\n*.Server.ttft_latency = 5\n", "m", "Server", 3), 0);
    ck_assert(s.server_ttft_latency == 5000000);
    lg_conf_session_free(cs);
}
END_TEST

START_TEST(check_conf_findings)
{
    lg_conf_session *cs = session();
    lg_test_settings s;
    lg_settings_default(&s);
    const char *t = "resnet50.Offline.target_qps = 10\n"    /* overridden by line 2 */
                    "resnet50.Offline.target_qps = 20\n"
                    "resnet50.Offline.min_duraton = 5\n"    /* unknown, hint */
                    "resnet50.offline.target_qps = 5\n"     /* bad scenario */
                    "resnt50.Offline.target_qps = 5\n"      /* unknown model */
                    "bert.Offline.target_qps = 5\n"         /* another model: note */
                    "resnet50.Server.min_duration = 5\n"    /* another scenario: note */
                    "*.Offline.max_query_count = 1\n"       /* shadowed */
                    "resnet50.Offline.max_query_count = 2\n";
    ck_assert_int_eq(apply(cs, &s, t, "resnet50", "Offline", 3), 0);
    lg_conf_session_finish(cs);
    ck_assert(s.offline_expected_qps == 20);
    ck_assert_uint_eq(count_kind(cs, LG_CONF_UNKNOWN), 1);
    ck_assert_uint_eq(count_kind(cs, LG_CONF_OVERRIDDEN), 2);
    ck_assert_uint_eq(count_kind(cs, LG_CONF_IGNORED), 2);
    ck_assert_uint_eq(count_kind(cs, LG_CONF_NOT_APPLICABLE), 2);
    int saw_hint = 0;
    for (size_t i = 0; i < lg_conf_session_nfindings(cs); i++) {
        const lg_conf_finding *f = lg_conf_session_finding(cs, i);
        if (f->kind == LG_CONF_UNKNOWN) {
            ck_assert_uint_eq(f->line, 3);
            saw_hint = strstr(f->text, "min_duration") != NULL;
        }
    }
    ck_assert(saw_hint);
    lg_conf_session_free(cs);
}
END_TEST

START_TEST(effective_examples)
{
    lg_test_settings s;
    lg_settings_default(&s);
    lg_effective ef;
    /* Offline: 1.1 x 2400 s x 93 = 245520 (a real llama2-70b log) */
    s.scenario = LG_OFFLINE;
    s.min_duration_ms = 2400000;
    s.offline_expected_qps = 93;
    s.min_query_count = 24576;
    lg_effective_derive(&ef, &s, 24576, 24576);
    ck_assert(ef.samples_per_query == 245520);
    ck_assert(ef.min_query_count == 1 && ef.target_duration_ms == 0);
    ck_assert(ef.min_sample_count == 245520);
    /* SingleStream equal issue (a real 3d-unet log): min_query_count 6063 */
    lg_settings_default(&s);
    s.scenario = LG_SINGLE_STREAM;
    s.min_duration_ms = 600000;
    s.single_stream_expected_latency_ns = 199.045e6;
    s.sample_concatenate_permutation = 1;
    lg_effective_derive(&ef, &s, 43, 43);
    ck_assert_uint_eq(ef.min_query_count, 6063);
    /* validation errors */
    lg_settings_default(&s);
    s.performance_issue_same = 1;
    s.performance_issue_same_index = 16;
    lg_effective_derive(&ef, &s, 100, 16);
    ck_assert_int_eq(ef.n_errors, 1);
    s.scenario = LG_SERVER;
    s.server_target_qps = -1;
    s.performance_issue_same_index = 0;
    lg_effective_derive(&ef, &s, 100, 16);
    ck_assert(ef.target_qps == 1);
    ck_assert_int_eq(ef.n_errors, 1);
}
END_TEST

/* Spec 4.8: QSL 100/16, v5.1 seeds, min_query_count 50, min_duration 0. */
static void vector_48(lg_compat compat, lg_scenario scen, const size_t *want_set,
                      const size_t *want_first20)
{
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = scen;
    s.qsl_rng_seed = V51_QSL;
    s.sample_index_rng_seed = V51_SAMPLE;
    s.schedule_rng_seed = V51_SCHED;
    s.min_query_count = 50;
    s.min_duration_ms = 0;
    s.server_target_qps = 100000;
    lg_effective ef;
    lg_effective_derive(&ef, &s, 100, 16);
    lg_lset *sets;
    size_t n;
    ms_err e;
    ck_assert_int_eq(lg_make_loadable_sets(&ef, 100, compat, 0, &sets, &n, &e), MS_OK);
    for (int i = 0; i < 16; i++)
        ck_assert_uint_eq(sets[0].idx[i], want_set[i]);
    lg_qgen g;
    ck_assert_int_eq(lg_qgen_init(&g, &ef, &sets[0], 0, &e), MS_OK);
    size_t buf[8];
    int64_t d;
    const int64_t want_sched[8] = {0, 18326, 36267, 47252, 50682, 52966, 61486, 64747};
    for (int i = 0; i < 20; i++) {
        ck_assert_uint_eq(lg_qgen_next(&g, buf, &d), 1);
        ck_assert_uint_eq(buf[0], want_first20[i]);
        if (scen == LG_SERVER && i < 8)
            ck_assert_int_eq(d, want_sched[i]);
    }
    lg_qgen_free(&g);
    lg_lsets_free(sets, n);
}

START_TEST(end_to_end_vectors)
{
    const size_t m_set[16] = {0, 2, 11, 9, 14, 7, 1, 5, 3, 4, 10, 6, 13, 15, 8, 12};
    const size_t m_q[20] = {14, 7, 4, 7, 15, 3, 14, 0, 5, 15, 7, 14, 12, 1, 0, 10, 1, 5, 2, 5};
    const size_t v_set[16] = {0, 74, 67, 81, 42, 68, 88, 20, 3, 37, 82, 60, 13, 39, 50, 12};
    const size_t v_q[20] = {42, 68, 37, 68, 39, 3, 42, 0, 20, 39, 68, 42, 12, 88, 0, 82, 88, 20, 74, 20};
    vector_48(LG_COMPAT_6_0, LG_SINGLE_STREAM, m_set, m_q);
    vector_48(LG_COMPAT_5_1, LG_SINGLE_STREAM, v_set, v_q);
    vector_48(LG_COMPAT_6_0, LG_SERVER, m_set, m_q);
    /* 200-query Server variant: generated_query_duration 1779849 ns */
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_SERVER;
    s.schedule_rng_seed = V51_SCHED;
    s.min_query_count = 200;
    s.min_duration_ms = 0;
    s.server_target_qps = 100000;
    lg_effective ef;
    lg_effective_derive(&ef, &s, 100, 16);
    lg_lset *sets;
    size_t n;
    ms_err e;
    ck_assert_int_eq(lg_make_loadable_sets(&ef, 100, LG_COMPAT_6_0, 0, &sets, &n, &e), MS_OK);
    lg_qgen g;
    ck_assert_int_eq(lg_qgen_init(&g, &ef, &sets[0], 0, &e), MS_OK);
    ck_assert_uint_eq(g.query_count, 200);
    ck_assert_int_eq(g.total_duration_ns, 1779849);
    lg_qgen_free(&g);
    lg_lsets_free(sets, n);
}
END_TEST

START_TEST(equal_issue_llm_server_counts)
{
    /* Server llama2-70b at 83.5 QPS, equal issue, |L| = 24576 -> 73728 queries */
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_SERVER;
    s.qsl_rng_seed = V51_QSL;
    s.sample_index_rng_seed = V51_SAMPLE;
    s.schedule_rng_seed = V51_SCHED;
    s.server_target_qps = 83.5;
    s.min_duration_ms = 600000;
    s.sample_concatenate_permutation = 1;
    lg_effective ef;
    lg_effective_derive(&ef, &s, 24576, 24576);
    lg_lset *sets;
    size_t n;
    ms_err e;
    ck_assert_int_eq(lg_make_loadable_sets(&ef, 24576, LG_COMPAT_5_1, 0, &sets, &n, &e), MS_OK);
    lg_qgen g;
    ck_assert_int_eq(lg_qgen_init(&g, &ef, &sets[0], 0, &e), MS_OK);
    ck_assert_uint_eq(g.query_count, 73728);
    lg_qgen_free(&g);
    lg_lsets_free(sets, n);
    /* SingleStream 40 us, 600 s: 30,000,001 queries */
    lg_settings_default(&s);
    s.single_stream_expected_latency_ns = 40000;
    s.min_duration_ms = 600000;
    lg_effective_derive(&ef, &s, 1024, 1024);
    ck_assert_int_eq(lg_make_loadable_sets(&ef, 1024, LG_COMPAT_6_0, 0, &sets, &n, &e), MS_OK);
    ck_assert_int_eq(lg_qgen_init(&g, &ef, &sets[0], 0, &e), MS_OK);
    ck_assert_uint_eq(g.query_count, 30000001);
    lg_qgen_free(&g);
    lg_lsets_free(sets, n);
}
END_TEST

START_TEST(plan_matches_generation)
{
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_OFFLINE;
    s.mode = LG_ACCURACY_ONLY;
    s.qsl_rng_seed = 2085463073848966840ull;
    s.min_duration_ms = 0;
    s.min_query_count = 1;
    s.offline_expected_qps = 3000;
    lg_plan p;
    ms_err e;
    ck_assert_int_eq(lg_plan_test(&s, 3000, 700, LG_COMPAT_6_0, 1, &p, &e), MS_OK);
    ck_assert_uint_eq(p.nseries, 5); /* 4 x 700 + 200 */
    ck_assert_uint_eq(p.series[4].nloaded, 200);
    ck_assert_uint_eq(p.series[0].loaded[0], 216);
    ck_assert_uint_eq(p.series[0].query_count, 1);
    ck_assert_uint_eq(p.series[0].samples_per_query, 700);
    ck_assert_int_eq(p.series[0].duration_ns, 333333);
    lg_plan_free(&p);
    /* TEST01 sampling probability: 4096 / max(expected, minimum) */
    lg_settings_default(&s);
    s.scenario = LG_SERVER;
    s.server_target_qps = 100;
    s.min_duration_ms = 600000;
    s.accuracy_log_sampling_target = 4096;
    ck_assert_int_eq(lg_plan_test(&s, 1000, 1000, LG_COMPAT_6_0, 0, &p, &e), MS_OK);
    ck_assert(p.accuracy_log_probability == 4096.0 / 60000.0);
    ck_assert_uint_eq(p.nseries, 1);
    lg_plan_free(&p);
}
END_TEST

/* ---- the LoadGen releases' rules (versions.c) and the standard libraries' shuffles ---- */

START_TEST(version_rules_table)
{
    const lg_version_rules *v = lg_version_rules_of(".5a1 @ df0221ee94");
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->major, 1);
    ck_assert(v->ms_from_target_qps && v->issue_same_as_unique && !v->equal_issue && !v->test05_flag);
    v = lg_version_rules_of("2.0 @ ce0a2fae13");
    ck_assert(v->major == 2 && v->minor == 0 && v->issue_same_as_unique && v->equal_issue == 1);
    v = lg_version_rules_of("2.1 @ 5dd9ed739c");
    ck_assert(v->minor == 1 && !v->issue_same_as_unique && !v->test05_flag);
    v = lg_version_rules_of("3.0 @ f536725011");
    ck_assert(v->major == 3 && v->test05_flag && v->equal_issue == 1);
    v = lg_version_rules_of("4.0.2 @ x");
    ck_assert(v->major == 4 && v->equal_issue == 2 && v->equal_issue_pads_offline_queries && !v->logs_concatenation);
    v = lg_version_rules_of("4.1.23 @ x");
    ck_assert(v->major == 4 && v->equal_issue == 2 && v->equal_issue_pads_offline_queries && !v->logs_query_spq);
    ck_assert(v->logs_concatenation);
    v = lg_version_rules_of("5.1.0 @ 091d51f041");
    ck_assert(v->major == 5 && v->logs_query_spq && !v->loaded_set_from_count);
    ck_assert_ptr_eq(lg_version_rules_of("6.0.5"), v);
    ck_assert_ptr_eq(lg_version_rules_of_compat(LG_COMPAT_5_1), v);
    v = lg_version_rules_of("6.0.6 @ x");
    ck_assert(v->loaded_set_from_count && v->logs_accuracy_sample_count);
    ck_assert_ptr_eq(v, lg_version_rules_latest());
    ck_assert_ptr_eq(lg_version_rules_of_compat(LG_COMPAT_6_0), v);
    ck_assert_ptr_null(lg_version_rules_of("unknown"));
    ck_assert_ptr_null(lg_version_rules_of(NULL));
    /* rows are ordered, and every row is named by its first release */
    char a[16], b[16];
    for (size_t i = 0; i + 1 < lg_version_rules_count(); i++) {
        const lg_version_rules *x = lg_version_rules_at(i), *y = lg_version_rules_at(i + 1);
        ck_assert(x->major * 10000 + x->minor * 100 + x->patch < y->major * 10000 + y->minor * 100 + y->patch);
        ck_assert_ptr_eq(lg_version_rules_of(lg_version_rules_name(y, a, sizeof a)), y);
        ck_assert_str_ne(lg_version_rules_name(x, a, sizeof a), lg_version_rules_name(y, b, sizeof b));
    }
    ck_assert_ptr_null(lg_version_rules_at(lg_version_rules_count()));
}
END_TEST

/* ---- the version table (rules/loadgen.json, compiled in) --------------------------------- */

/* The data file is valid against its schema, and the compiled table is that file. */
START_TEST(version_table_matches_data_file)
{
    ms_jschema *sc;
    ms_err e;
    ck_assert_msg(ms_jschema_load(&sc, "schemas/loadgen.schema.json", &e) == MS_OK, "%s", e.msg);
    json_error_t je;
    json_t *doc = json_load_file("rules/loadgen.json", 0, &je);
    ck_assert_msg(doc != NULL, "rules/loadgen.json: %s", je.text);
    ms_jschema_errors errs = {0};
    int v = ms_jschema_validate(sc, doc, &errs, 5, &e);
    ck_assert_msg(v == 1, "rules/loadgen.json: %s %s", errs.n ? errs.v[0].pointer : "",
                  errs.n ? errs.v[0].message : e.msg);
    ms_jschema_errors_free(&errs);
    json_t *vs = json_object_get(doc, "versions");
    ck_assert_uint_eq(json_array_size(vs), lg_version_rules_count());
    for (size_t i = 0; i < lg_version_rules_count(); i++) {
        const lg_version_rules *r = lg_version_rules_at(i);
        json_t *o = json_array_get(vs, i);
        ck_assert_str_eq(r->name, json_string_value(json_object_get(o, "name")));
        ck_assert_str_eq(r->mlperf_conf, json_string_value(json_object_get(o, "mlperf_conf")));
        ck_assert_int_eq(r->early_multistream, (int)json_integer_value(json_object_get(o, "early_multistream")));
        ck_assert_int_eq(r->equal_issue, (int)json_integer_value(json_object_get(o, "equal_issue")));
    }
    json_t *bad = json_pack("{s:[{s:s, s:i, s:i, s:i, s:s, s:s, s:s, s:i}]}", "versions", "name", "9.9", "major", 9,
                            "minor", 9, "patch", 0, "loadgen_version", "9.9", "mlperf_conf", "mlperf-9.9.conf",
                            "tpot_word", "per", "early_multistream", 2);
    ck_assert_int_eq(ms_jschema_validate(sc, bad, NULL, 0, &e), 0);
    json_decref(bad);
    json_decref(doc);
    ms_jschema_free(sc);
}
END_TEST

/* Every row: its name is a --loadgen-compat value, its mlperf.conf is embedded and applies. */
START_TEST(version_table_every_row)
{
    for (size_t i = 0; i < lg_version_rules_count(); i++) {
        const lg_version_rules *r = lg_version_rules_at(i);
        int c = lg_compat_parse(r->name);
        ck_assert_msg(c >= 0, "%s", r->name);
        ck_assert_ptr_eq(lg_version_rules_of_compat(c), r);
        ck_assert_str_eq(lg_compat_name(c), r->name);
        ck_assert_str_eq(lg_compat_version(c), r->loadgen_version);
        size_t len = 0;
        const char *name = NULL;
        ck_assert_msg(lg_embedded_mlperf_conf(c, &len, &name) != NULL && len > 0, "%s: %s", r->name, r->mlperf_conf);
        ms_err e;
        lg_conf_session *cs = lg_conf_session_new(c, NULL, &e);
        ck_assert_msg(cs != NULL, "%s", e.msg);
        lg_test_settings s;
        lg_settings_default(&s);
        ck_assert_int_eq(lg_settings_apply_mlperf_conf(cs, &s, "resnet50", "SingleStream"), 0);
        ck_assert_msg(s.qsl_rng_seed != 0, "%s: the embedded mlperf.conf sets the seeds", r->name);
        ck_assert(r->tpot_word && (!strcmp(r->tpot_word, "to") || !strcmp(r->tpot_word, "per")));
        ck_assert(!r->text_detail_log || r->early_multistream);
        ck_assert(!r->early_multistream || (r->ms_from_target_qps && r->stability_runs > 0));
        lg_conf_session_free(cs);
    }
    ck_assert_int_eq(lg_compat_parse("5"), LG_COMPAT_5_1);
    ck_assert_int_eq(lg_compat_parse("6"), LG_COMPAT_6_0);
    ck_assert_int_eq(lg_compat_parse("master"), LG_COMPAT_6_0);
    ck_assert_int_eq(lg_compat_parse("0"), lg_compat_parse("0.7"));
    ck_assert_int_eq(lg_compat_parse("0.6"), -1);
    ck_assert_int_eq(lg_compat_parse(""), -1);
    ck_assert_int_eq(lg_compat_parse("5.1x"), -1);
    ck_assert_ptr_eq(lg_version_rules_of_compat(LG_COMPAT_LATEST), lg_version_rules_latest());
    char names[256];
    ck_assert_str_eq(lg_compat_names(names, sizeof names),
                     "0.5, 0.7, 1.0, 1.1, 2.0, 2.1, 3.0, 3.1, 4.0, 4.1, 5.0, 5.1, 6.0");
}
END_TEST

/* The facts of each era's row. */
START_TEST(version_table_facts)
{
    const lg_version_rules *v05 = lg_version_rules_of_compat(lg_compat_parse("0.5"));
    const lg_version_rules *v07 = lg_version_rules_of_compat(lg_compat_parse("0.7"));
    for (int k = 0; k < 2; k++) {
        const lg_version_rules *v = k ? v07 : v05;
        ck_assert(v->early_multistream && v->text_detail_log && v->ms_from_target_qps);
        ck_assert_int_eq(v->stability_runs, 5);
        ck_assert_uint_eq(v->rules_table.single_stream.min_queries, 1024);
        ck_assert(v->rules_table.single_stream.percentile == 0.90);
        ck_assert_uint_eq(v->rules_table.server_image.min_queries, 270336);
        ck_assert(v->rules_table.server_image.percentile == 0.99);
        ck_assert_uint_eq(v->rules_table.server_other.min_queries, 90112);
        ck_assert(v->rules_table.server_other.percentile == 0.97);
        ck_assert_uint_eq(v->rules_table.multi_stream.min_queries, 24576);
        ck_assert(v->rules_table.multi_stream.percentile == 0.90);
        ck_assert_uint_eq(v->rules_table.offline_min_samples, 24576);
        ck_assert_uint_eq(v->rules_table.min_duration_ms, 60000);
        ck_assert(!v->loaded_set_from_count && !v->logs_accuracy_sample_count && !v->equal_issue);
    }
    for (const char *const *n = (const char *const[]){"1.0", "1.1", NULL}; *n; n++) {
        const lg_version_rules *v = lg_version_rules_of_compat(lg_compat_parse(*n));
        ck_assert(v->early_multistream && !v->text_detail_log && v->ms_from_target_qps);
        ck_assert(v->issue_same_as_unique && v->offline_percentile_unset);
        ck_assert(!v->early_stopping);
    }
    ck_assert(!v05->early_stopping && !v07->early_stopping);
    for (const char *const *n = (const char *const[]){"2.0", "2.1", "3.0", "3.1", "4.0", "4.1", "5.0", "5.1", "6.0", NULL};
         *n; n++) {
        const lg_version_rules *v = lg_version_rules_of_compat(lg_compat_parse(*n));
        ck_assert_msg(!v->early_multistream && !v->text_detail_log && !v->ms_from_target_qps, "%s", *n);
        ck_assert_msg(v->equal_issue >= 1, "%s", *n);
        ck_assert_msg(v->early_stopping, "%s", *n);
    }
    ck_assert_str_eq(lg_version_rules_of_compat(LG_COMPAT_6_0)->tpot_word, "per");
    ck_assert_str_eq(lg_version_rules_of_compat(LG_COMPAT_5_1)->tpot_word, "to");
    ck_assert(lg_version_rules_of_compat(LG_COMPAT_6_0)->loaded_set_from_count);
    ck_assert(!lg_version_rules_of_compat(LG_COMPAT_5_1)->loaded_set_from_count);
    /* the next change skips rows with the same rules: 3.0 -> 4.0, 1.0 -> 2.0, 6.0 none */
    char b[16];
    ck_assert_str_eq(lg_version_rules_name(lg_version_rules_next_change(lg_version_rules_of("3.0")), b, sizeof b), "4.0");
    ck_assert_str_eq(lg_version_rules_name(lg_version_rules_next_change(lg_version_rules_of(".5a1 @ x")), b, sizeof b), "2.0");
    ck_assert_ptr_null(lg_version_rules_next_change(lg_version_rules_latest()));
}
END_TEST

/* The era's mlperf.conf and the early MultiStream's keys (reference r0.5 FromConfig). */
START_TEST(early_multistream_settings)
{
    ms_err e;
    lg_conf_session *cs = lg_conf_session_new(lg_compat_parse("0.5"), NULL, &e);
    ck_assert_ptr_nonnull(cs);
    lg_test_settings s;
    lg_settings_default(&s);
    ck_assert(s.multi_stream_target_qps == 10.0 && s.multi_stream_max_async_queries == 1);
    ck_assert_int_eq(lg_settings_apply_mlperf_conf(cs, &s, "resnet50", "MultiStream"), 0);
    ck_assert(s.multi_stream_target_qps == 20.0);
    ck_assert_uint_eq(s.multi_stream_samples_per_query, 4);
    ck_assert_uint_eq(s.multi_stream_max_async_queries, 1);
    ck_assert_uint_eq(s.min_query_count, 270336);
    ck_assert(fabs(s.multi_stream_target_latency_percentile - 0.99) < 1e-12);
    lg_settings_default(&s);
    ck_assert_int_eq(lg_settings_apply_mlperf_conf(cs, &s, "gnmt", "MultiStream"), 0);
    ck_assert(s.multi_stream_target_qps == 10.0 && s.min_query_count == 90112);
    lg_conf_session_free(cs);
    /* the keys are not read under a later release */
    cs = session();
    lg_settings_default(&s);
    ck_assert_int_eq(apply(cs, &s, "*.MultiStream.target_qps = 33\n", "resnet50", "MultiStream", 1), 0);
    ck_assert(s.multi_stream_target_qps == 10.0);
    lg_conf_session_free(cs);
    /* effective settings: the interval and latency bound come from target_qps / max_async */
    lg_settings_default(&s);
    s.scenario = LG_MULTI_STREAM;
    s.multi_stream_target_qps = 20;
    s.multi_stream_max_async_queries = 2;
    s.multi_stream_samples_per_query = 6;
    lg_effective ef;
    lg_effective_derive(&ef, &s, 256, 256);
    lg_effective_apply_rules(&ef, &s, lg_version_rules_of_compat(lg_compat_parse("0.7")), s.multi_stream_target_qps,
                             s.multi_stream_max_async_queries);
    ck_assert(ef.target_qps == 20 && ef.max_async_queries == 2);
    ck_assert_uint_eq(ef.target_latency_ns, 100000000);
    ck_assert_uint_eq(ef.samples_per_query, 6);
    ck_assert_int_eq(lg_settings_set(&s, "multi_stream_target_qps", "12.5", &e), MS_OK);
    ck_assert(s.multi_stream_target_qps == 12.5);
}
END_TEST

/* The early MultiStream's verdict: a skipped interval at the target percentile fails it
 * (reference r0.5 PerformanceSummary::PerfConstraintsMet); the headline is the stream count. */
START_TEST(early_multistream_results)
{
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_MULTI_STREAM;
    s.multi_stream_samples_per_query = 3;
    s.min_query_count = 10;
    s.min_duration_ms = 0;
    s.multi_stream_target_latency_percentile = 0.9;
    lg_effective ef;
    lg_effective_derive(&ef, &s, 64, 64);
    lg_effective_apply_rules(&ef, &s, lg_version_rules_of_compat(lg_compat_parse("0.5")), 10, 1);
    for (int k = 0; k < 3; k++) {
        int64_t slat[30], qlat[10], iv[10];
        for (int i = 0; i < 30; i++)
            slat[i] = 1000 + i;
        for (int i = 0; i < 10; i++) {
            qlat[i] = 2000 + i;
            iv[i] = 1;
        }
        if (k == 1)
            iv[4] = 3;             /* one overrun query: the 90th percentile (index 9 of 10) is 3 */
        if (k == 2)
            iv[2] = iv[7] = 2;     /* two overruns: still a skipped interval at the 90th */
        lg_perf_input in = {.ef = &ef, .compat = lg_compat_parse("0.5"), .sut_name = "x", .sample_lat = slat,
                            .sample_count = 30, .query_lat = qlat, .queries_issued = 10, .early_ms = 1,
                            .query_intervals = iv, .max_latency = 1, .final_query_scheduled_time = 1,
                            .final_query_issued_time = 1, .final_query_all_samples_done_time = 1};
        lg_perf_result r;
        ck_assert_int_eq(lg_perf_compute(&in, &r), 0);
        ck_assert_int_eq(r.perf_constraints_met, k == 0);
        ck_assert_int_eq(r.valid, k == 0);
        ck_assert_uint_eq(r.overtime_query_count, (uint64_t)(k == 0 ? 0 : k == 1 ? 1 : 2));
        ck_assert_uint_eq(r.skipped_intervals, (uint64_t)(k == 0 ? 0 : 2));
        ck_assert(r.metric == 3);
        ms_buf sum = MS_BUF_INIT;
        ck_assert_int_eq(lg_perf_summary(&in, &r, &sum), 0);
        ck_assert_ptr_nonnull(strstr(sum.data, "Samples per query : 3\n"));
        ck_assert_ptr_nonnull(strstr(sum.data, k ? "Performance constraints satisfied : NO" : "Performance constraints satisfied : Yes"));
        ck_assert_ptr_null(strstr(sum.data, "Early stopping"));
        ms_buf_free(&sum);
        lg_perf_result_free(&r);
    }
}
END_TEST

/* A requested double the log prints as 3.07681e+06: 390016 queries of 3076811 ns are exactly the
 * logged 1200005518976 ns; the text read back (3076810) gives another duration. */
START_TEST(plan_rounded_expected_latency)
{
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_SINGLE_STREAM;
    s.mode = LG_PERFORMANCE_ONLY;
    s.min_duration_ms = 600000;
    s.min_query_count = 100;
    s.single_stream_expected_latency_ns = 3076811;
    lg_plan p;
    ms_err e;
    ck_assert_int_eq(lg_plan_test(&s, 50000, 1024, LG_COMPAT_5_1, 0, &p, &e), MS_OK);
    ck_assert_uint_eq(p.series[0].query_count, 390016);
    ck_assert_int_eq(p.series[0].duration_ns, 1200005518976);
    lg_plan_free(&p);
    s.single_stream_expected_latency_ns = 3.07681e+06;
    ck_assert_int_eq(lg_plan_test(&s, 50000, 1024, LG_COMPAT_5_1, 0, &p, &e), MS_OK);
    ck_assert_int_ne(p.series[0].duration_ns, 1200005518976);
    lg_plan_free(&p);
}
END_TEST

/* LoadGen 1.x: performance_issue_same (TEST04-B) generates |L| / spq queries with no duration,
 * and Offline's query holds performance_sample_count samples; later releases do neither. */
/* ---- the one run builder (setup.c) ---- */

/* dir/name with text */
static void conf_file(char *path, size_t n, const char *dir, const char *name, const char *text)
{
    ms_err e;
    snprintf(path, n, "%s/%s", dir, name);
    ck_assert_int_eq(ms_write_file_atomic(path, text, strlen(text), &e), MS_OK);
}

START_TEST(settings_build_applies_the_files_in_order)
{
    char dir[256], user[300], audit[300], bad[300];
    ms_test_tmpdir(dir, sizeof dir);
    conf_file(user, sizeof user, dir, "user.conf", "resnet50.Offline.target_qps = 123\n");
    conf_file(audit, sizeof audit, dir, "audit.config",
              "*.*.accuracy_log_sampling_target = 1024\n*.*.target_qps = 7\n");
    conf_file(bad, sizeof bad, dir, "bad.conf", "resnet50.Offline.target_qps = 5 = 6\n");
    ms_err e;
    lg_run_setup r;
    /* a user.conf, then an audit.config (model "*") over it: the later file wins */
    const char *files[] = {user, audit};
    lg_run_spec sp = {.scenario = LG_OFFLINE, .mode = -1, .model = "resnet50", .compat = LG_COMPAT_6_0,
                      .conf_files = files, .nconf_files = 2, .check_files = 1};
    ck_assert_int_eq(lg_run_settings_build(&sp, &r, &e), MS_OK);
    ck_assert_ptr_null(r.sut);
    ck_assert(r.settings.offline_expected_qps == 7);
    ck_assert_uint_eq(r.settings.accuracy_log_sampling_target, 1024);
    ck_assert_uint_eq(r.settings.min_duration_ms, 600000); /* mlperf.conf came with the user.conf */
    lg_run_setup_free(&r);
    /* the other order: the user.conf last */
    const char *files2[] = {audit, user};
    sp.conf_files = files2;
    ck_assert_int_eq(lg_run_settings_build(&sp, &r, &e), MS_OK);
    ck_assert(r.settings.offline_expected_qps == 123);
    lg_run_setup_free(&r);
    /* a rejected file: a finding when checking files, an error for a run */
    const char *files3[] = {bad, user};
    sp.conf_files = files3;
    ck_assert_int_eq(lg_run_settings_build(&sp, &r, &e), MS_OK);
    ck_assert_int_eq(r.user_conf_rejected, 0);
    ck_assert(r.settings.offline_expected_qps == 123);
    lg_run_setup_free(&r);
    sp.check_files = 0;
    ck_assert_int_eq(lg_run_settings_build(&sp, &r, &e), MS_EINPUT);
    ck_assert_int_eq(r.user_conf_rejected, 1);
    ck_assert_ptr_nonnull(strstr(e.msg, "bad.conf was not applied"));
    lg_run_setup_free(&r);
    /* no file: mlperf.conf applied for a run (a model is named), not when checking files */
    lg_run_spec none = {.scenario = LG_OFFLINE, .mode = -1, .model = "resnet50", .compat = LG_COMPAT_6_0};
    ck_assert_int_eq(lg_run_settings_build(&none, &r, &e), MS_OK);
    ck_assert_uint_eq(r.settings.min_duration_ms, 600000);
    lg_run_setup_free(&r);
    none.check_files = 1;
    ck_assert_int_eq(lg_run_settings_build(&none, &r, &e), MS_OK);
    lg_test_settings def;
    lg_settings_default(&def);
    ck_assert_uint_eq(r.settings.min_duration_ms, def.min_duration_ms);
    lg_run_setup_free(&r);
    unlink(user);
    unlink(audit);
    unlink(bad);
    rmdir(dir);
}
END_TEST

START_TEST(setup_build_falls_back_to_a_counting_qsl)
{
    ms_err e;
    lg_run_setup r;
    /* the null SUT has no dataset: without a size it cannot be made */
    lg_run_spec sp = {.scenario = LG_OFFLINE, .mode = -1, .compat = LG_COMPAT_6_0, .sut_spec = "null"};
    ck_assert_int_ne(lg_run_setup_build(&sp, &r, &e), MS_OK);
    ck_assert_ptr_null(r.sut);
    lg_run_setup_free(&r);
    sp.fallback_samples = 100;
    ck_assert_int_eq(lg_run_setup_build(&sp, &r, &e), MS_OK);
    ck_assert_uint_eq(lg_sut_instance_qsl(r.sut)->total_sample_count, 100);
    lg_run_setup_free(&r);
    /* an explicit size wins over the fallback */
    sp.total_samples = 10;
    ck_assert_int_eq(lg_run_setup_build(&sp, &r, &e), MS_OK);
    ck_assert_uint_eq(lg_sut_instance_qsl(r.sut)->total_sample_count, 10);
    lg_run_setup_free(&r);
}
END_TEST

START_TEST(plan_release_rules_issue_same)
{
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_SINGLE_STREAM;
    s.mode = LG_PERFORMANCE_ONLY;
    s.min_duration_ms = 60000;
    s.min_query_count = 1024;
    s.single_stream_expected_latency_ns = 1000000;
    s.performance_issue_same = 1;
    s.performance_issue_same_index = 3;
    lg_plan p;
    ms_err e;
    lg_plan_request rq = {.s = &s, .qsl_total = 50000, .qsl_perf = 256, .rules = lg_version_rules_of(".5a1")};
    ck_assert_int_eq(lg_plan_test_req(&rq, &p, &e), MS_OK);
    ck_assert_uint_eq(p.series[0].query_count, 256);
    ck_assert_int_eq(p.series[0].duration_ns, 256 * 1000000ll);
    lg_plan_free(&p);
    rq.rules = lg_version_rules_of("2.1");
    ck_assert_int_eq(lg_plan_test_req(&rq, &p, &e), MS_OK);
    ck_assert_uint_eq(p.series[0].query_count, 120001);
    lg_plan_free(&p);
    s.scenario = LG_OFFLINE;
    s.offline_expected_qps = 1000;
    rq.rules = lg_version_rules_of("2.0");
    ck_assert_int_eq(lg_plan_test_req(&rq, &p, &e), MS_OK);
    ck_assert_uint_eq(p.ef.samples_per_query, 256);
    ck_assert_uint_eq(p.series[0].samples_per_query, 256);
    lg_plan_free(&p);
    rq.rules = lg_version_rules_of("2.1");
    ck_assert_int_eq(lg_plan_test_req(&rq, &p, &e), MS_OK);
    ck_assert_uint_eq(p.ef.samples_per_query, 66000);
    lg_plan_free(&p);
    /* LoadGen 1.x MultiStream: a query of 8 samples every 1/20 s, one in flight */
    lg_settings_default(&s);
    s.scenario = LG_MULTI_STREAM;
    s.mode = LG_PERFORMANCE_ONLY;
    s.min_duration_ms = 60000;
    s.min_query_count = 270336;
    s.multi_stream_samples_per_query = 8;
    rq = (lg_plan_request){.s = &s, .qsl_total = 5000, .qsl_perf = 1024, .rules = lg_version_rules_of(".5a1"),
                           .ms_target_qps = 20, .ms_max_async_queries = 1};
    ck_assert_int_eq(lg_plan_test_req(&rq, &p, &e), MS_OK);
    ck_assert(p.ef.target_qps == 20);
    ck_assert_uint_eq(p.ef.target_latency_ns, 50000000);
    ck_assert_uint_eq(p.ef.max_async_queries, 1);
    ck_assert_uint_eq(p.ef.min_sample_count, 270336 * 8);
    ck_assert_uint_eq(p.series[0].query_count, 270336);
    ck_assert_int_eq(p.series[0].duration_ns, 270336ll * 50000000);
    ck_assert_uint_eq(p.series[0].nloaded, 1024 + 7);
    lg_plan_free(&p);
}
END_TEST

/* Each standard library's shuffle is a permutation, and they differ from one another; the default
 * engine is the one lg_mt_seed gives. (The real logs of ../shared/rounds check the draws
 * themselves: tests/e2e/test_audit_replay.sh.) */
START_TEST(stdlib_shuffles)
{
    enum { N = 1000 };
    static size_t a[LG_STDLIB_COUNT][N];
    for (int lib = 0; lib < LG_STDLIB_COUNT; lib++) {
        lg_mt19937 g;
        lg_mt_seed_lib(&g, 12345, (lg_stdlib)lib);
        for (size_t i = 0; i < N; i++)
            a[lib][i] = i;
        lg_shuffle_size(a[lib], N, &g);
        static unsigned char seen[N];
        memset(seen, 0, sizeof seen);
        for (size_t i = 0; i < N; i++) {
            ck_assert_uint_lt(a[lib][i], N);
            ck_assert(!seen[a[lib][i]]);
            seen[a[lib][i]] = 1;
        }
        for (int o = 0; o < lib; o++)
            ck_assert(memcmp(a[lib], a[o], sizeof a[lib]) != 0);
        ck_assert_str_ne(lg_stdlib_name((lg_stdlib)lib), "?");
    }
    lg_mt19937 g1, g2;
    lg_mt_seed(&g1, 7);
    lg_mt_seed_lib(&g2, 7, LG_STDLIB_GCC11);
    ck_assert_uint_eq(lg_uniform_u64(&g1, 0, 999), lg_uniform_u64(&g2, 0, 999));
}
END_TEST

/* ---- real logs: loaded sets (compat 5.1) and early-stopping discard counts ---- */

static int n_logs_checked;

static void check_log(const char *path)
{
    ms_mllog log;
    ms_err e;
    ck_assert_int_eq(ms_mllog_load(&log, path, 0, &e), MS_OK);
    char *scen = ms_mllog_get_str(&log, "effective_scenario");
    char *mode = ms_mllog_get_str(&log, "effective_test_mode");
    uint64_t seed, total, perf, acc_count = 0;
    int have = scen && mode && !ms_mllog_get_u64(&log, "effective_qsl_rng_seed", &seed) &&
               !ms_mllog_get_u64(&log, "qsl_reported_total_count", &total) &&
               !ms_mllog_get_u64(&log, "effective_performance_sample_count", &perf);
    if (have) {
        lg_test_settings s;
        lg_settings_default(&s);
        s.scenario = (lg_scenario)lg_scenario_parse(scen);
        s.qsl_rng_seed = seed;
        s.performance_sample_count_override = perf;
        lg_effective ef;
        lg_effective_derive(&ef, &s, total, perf);
        int acc = !strcmp(mode, "AccuracyOnly");
        (void)acc_count;
        lg_lset *sets;
        size_t nsets;
        ck_assert_int_eq(lg_make_loadable_sets(&ef, total, LG_COMPAT_5_1, acc, &sets, &nsets, &e), MS_OK);
        /* every loaded_qsl_set record, in order, is the next chunk */
        size_t chunk = 0;
        for (size_t i = 0; i < log.nrecs; i++) {
            if (strcmp(log.recs[i].key, "loaded_qsl_set"))
                continue;
            uint64_t *arr;
            size_t n;
            ck_assert_int_eq(ms_mllog_rec_u64_list(&log.recs[i], &arr, &n), 0);
            ck_assert_msg(chunk < nsets, "%s: more loaded sets than expected", path);
            ck_assert_msg(n == sets[chunk].len, "%s: set %zu has %zu entries, expected %zu", path,
                          chunk, n, sets[chunk].len);
            for (size_t j = 0; j < n; j++)
                ck_assert_msg(arr[j] == sets[chunk].idx[j], "%s: set %zu differs at %zu", path, chunk, j);
            free(arr);
            chunk++;
            if (!acc)
                break; /* a log may contain several runs; check the first */
        }
        lg_lsets_free(sets, nsets);
        n_logs_checked++;
        /* SingleStream early stopping: "Would discard" of the logged query count */
        const ms_mllog_rec *r = ms_mllog_find(&log, "early_stopping_result");
        uint64_t q;
        double p;
        if (!acc && r && !strcmp(scen, "SingleStream") &&
            !ms_mllog_get_u64(&log, "result_query_count", &q) &&
            !ms_mllog_get_double(&log, "effective_target_latency_percentile", &p)) {
            char *text = ms_mllog_rec_str(r);
            const char *w = strstr(text, "Would discard ");
            ck_assert_ptr_nonnull(w);
            long long logged = atoll(w + 14);
            lg_es_finder *f = lg_es_finder_new();
            int64_t t = 1;
            for (int64_t i = 2; i < (int64_t)q + 1; ++i) {
                int64_t h = lg_es_find(f, i, p, 0.0, 0.99);
                if ((int64_t)q < h + i) {
                    t = i - 1;
                    break;
                }
            }
            lg_es_finder_free(f);
            ck_assert_msg(t - 1 == logged, "%s: would discard %lld, logged %lld", path, (long long)(t - 1), logged);
            free(text);
        }
    }
    free(scen);
    free(mode);
    ms_mllog_free(&log);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(p);
        else if (!strcmp(de->d_name, "mlperf_log_detail.txt"))
            check_log(p);
    }
    closedir(d);
}

START_TEST(real_logs_loaded_sets_v51)
{
    MS_SKIP_IF_NO_SHARED();
    char dir[512];
    n_logs_checked = 0;
    walk(ms_test_shared_path(dir, sizeof dir, "testdata"));
    ck_assert_int_ge(n_logs_checked, 60);
}
END_TEST

static Suite *loadgen_suite(void)
{
    Suite *s = suite_create("loadgen");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, defaults_match_spec);
    tcase_add_test(tc, set_by_name);
    tcase_add_test(tc, grammar_quirks);
    tcase_add_test(tc, lookup_order_and_multipliers);
    tcase_add_test(tc, user_conf_brings_mlperf_conf_and_keeps_seeds);
    tcase_add_test(tc, audit_config_model_star_and_token_keys);
    tcase_add_test(tc, check_conf_findings);
    tcase_add_test(tc, effective_examples);
    tcase_add_test(tc, end_to_end_vectors);
    tcase_add_test(tc, equal_issue_llm_server_counts);
    tcase_add_test(tc, plan_matches_generation);
    tcase_add_test(tc, version_rules_table);
    tcase_add_test(tc, version_table_matches_data_file);
    tcase_add_test(tc, version_table_every_row);
    tcase_add_test(tc, version_table_facts);
    tcase_add_test(tc, early_multistream_settings);
    tcase_add_test(tc, early_multistream_results);
    tcase_add_test(tc, plan_rounded_expected_latency);
    tcase_add_test(tc, plan_release_rules_issue_same);
    tcase_add_test(tc, stdlib_shuffles);
    tcase_add_test(tc, real_logs_loaded_sets_v51);
    tcase_add_test(tc, settings_build_applies_the_files_in_order);
    tcase_add_test(tc, setup_build_falls_back_to_a_counting_qsl);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(loadgen_suite)
