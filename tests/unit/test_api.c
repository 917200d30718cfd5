/* The public C API as a user's SUT sees it: a QSL that records loads, an SUT answering from its
 * own thread with first tokens and callbacks, and the run result. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/textlog.h"
#include "loadgen/loadgen.h"
#include "testutil.h"

typedef struct my_sut {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    lg_query_sample q[4096];
    size_t n;
    lg_test *test;
    int stop;
    pthread_t th;
    int tokens;
    _Atomic int flushes;
    _Atomic int callbacks;
    int loads, unloads;
    size_t loaded;
} my_sut;

static const char *sut_name(void *ctx)
{
    (void)ctx;
    return "api-test SUT";
}

static const char *qsl_name(void *ctx)
{
    (void)ctx;
    return "api-test QSL";
}

static void issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    my_sut *m = ctx;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < n && m->n < 4096; i++)
        m->q[m->n++] = s[i];
    m->test = test;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

static void flush(void *ctx)
{
    atomic_fetch_add(&((my_sut *)ctx)->flushes, 1);
}

static void on_response(void *ctx, lg_response *r)
{
    (void)r;
    atomic_fetch_add(&((my_sut *)ctx)->callbacks, 1);
}

static void *worker(void *arg)
{
    my_sut *m = arg;
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        if (m->n == 0) {
            pthread_cond_wait(&m->cv, &m->mu);
            continue;
        }
        lg_query_sample s = m->q[--m->n];
        lg_test *t = m->test;
        pthread_mutex_unlock(&m->mu);
        uint64_t payload = s.index * 3;
        lg_response r = {s.id, (uintptr_t)&payload, sizeof payload, m->tokens};
        if (m->tokens)
            lg_first_token_complete(t, &r, 1);
        lg_query_samples_complete_cb(t, &r, 1, on_response, m);
        pthread_mutex_lock(&m->mu);
    }
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

static int load(void *ctx, const lg_sample_index *idx, size_t n)
{
    my_sut *m = ctx;
    (void)idx;
    m->loads++;
    m->loaded = n;
    return 0;
}

static int unload(void *ctx, const lg_sample_index *idx, size_t n)
{
    (void)idx;
    (void)n;
    ((my_sut *)ctx)->unloads++;
    return 0;
}

static void start(my_sut *m, int tokens)
{
    memset(m, 0, sizeof *m);
    m->tokens = tokens;
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    pthread_create(&m->th, NULL, worker, m);
}

static void stop(my_sut *m)
{
    pthread_mutex_lock(&m->mu);
    m->stop = 1;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->th, NULL);
}

static char *read_all(const char *dir, const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    char *t;
    ms_err e;
    ck_assert_int_eq(ms_read_file(p, 0, &t, NULL, &e), MS_OK);
    return t;
}

/* Logs in dir without the trace, no audit.config. */
static void logs_in(const char *dir, lg_log_settings *ls, lg_run_options *ro)
{
    lg_log_settings_default(ls);
    ls->outdir = dir;
    ls->enable_trace = 0;
    lg_run_options_default(ro);
    ro->audit_config_path = "";
}

START_TEST(user_sut_submission_run_with_tokens)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    my_sut m;
    start(&m, 7);
    lg_sut sut = {&m, sut_name, issue, flush};
    lg_qsl qsl = {&m, qsl_name, 200, 50, load, unload};
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_SERVER;
    s.mode = LG_SUBMISSION_RUN;
    s.server_target_qps = 4000;
    s.min_duration_ms = 250;
    s.use_token_latencies = 1;
    lg_log_settings ls;
    lg_run_options ro;
    logs_in(dir, &ls, &ro);
    lg_run_result res;
    ms_err e;
    ck_assert_int_eq(lg_start_test(&sut, &qsl, &s, &ls, &ro, &res, &e), MS_OK);
    stop(&m);
    ck_assert(res.ran_performance);
    ck_assert_msg(res.valid, "run not valid");
    ck_assert_uint_eq(res.n_errors, 0);
    ck_assert_int_eq(m.loads, 5); /* 4 accuracy chunks of 50 + the performance set */
    ck_assert_int_eq(m.unloads, 5);
    ck_assert_int_eq(atomic_load(&m.flushes), 5);
    ck_assert_int_ge(atomic_load(&m.callbacks), 200); /* every accuracy-mode response */
    char *acc = read_all(dir, "mlperf_log_accuracy.json");
    /* 8-byte payload, token data (same payload) and the token count */
    ck_assert_ptr_nonnull(strstr(acc, "\"token_data\" : \""));
    ck_assert_ptr_nonnull(strstr(acc, "\"token_count\" : 7 }"));
    free(acc);
    char *sum = read_all(dir, "mlperf_log_summary.txt");
    ck_assert_ptr_nonnull(strstr(sum, "SUT name : api-test SUT"));
    ck_assert_ptr_nonnull(strstr(sum, "Mode     : SubmissionRun"));
    ck_assert_ptr_nonnull(strstr(sum, "Completed tokens per second"));
    free(sum);
}
END_TEST

/* The library prints nothing: what the reference LoadGen prints on stdout (print_timestamps,
 * copy_*_to_stdout) goes to lg_run_options.console, from any thread. */
typedef struct console_cap {
    pthread_mutex_t mu;
    ms_buf b;
} console_cap;

static void console_take(void *ctx, const char *text, size_t len)
{
    console_cap *c = ctx;
    pthread_mutex_lock(&c->mu);
    ck_assert_int_eq(ms_buf_append(&c->b, text, len), 0);
    pthread_mutex_unlock(&c->mu);
}

START_TEST(console_output_goes_to_the_callback)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    my_sut m;
    start(&m, 0);
    lg_sut sut = {&m, sut_name, issue, flush};
    lg_qsl qsl = {&m, qsl_name, 200, 50, load, unload};
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_OFFLINE;
    s.mode = LG_PERFORMANCE_ONLY;
    s.min_duration_ms = 0;
    s.min_query_count = 1;
    s.offline_expected_qps = 100;
    s.print_timestamps = 1;
    lg_log_settings ls;
    lg_run_options ro;
    logs_in(dir, &ls, &ro);
    ls.copy_summary_to_stdout = 1;
    ls.copy_detail_to_stdout = 1;
    console_cap cap = {.b = MS_BUF_INIT};
    pthread_mutex_init(&cap.mu, NULL);
    ro.console = console_take;
    ro.console_ctx = &cap;
    lg_run_result res;
    ms_err e;
    ck_assert_int_eq(lg_start_test(&sut, &qsl, &s, &ls, &ro, &res, &e), MS_OK);
    stop(&m);
    ck_assert_ptr_nonnull(cap.b.data);
    ck_assert_ptr_nonnull(strstr(cap.b.data, "Loadgen :: Perf mode start. system_clock Timestamp = "));
    ck_assert_ptr_nonnull(strstr(cap.b.data, "Loadgen :: PerfClock/system_clock ratio = "));
    ck_assert_ptr_nonnull(strstr(cap.b.data, ":::MLLOG {\"key\": \"effective_scenario\""));
    ck_assert_ptr_nonnull(strstr(cap.b.data, "Scenario : Offline"));
    ck_assert_ptr_nonnull(strstr(cap.b.data, "No errors encountered during test."));
    ms_buf_free(&cap.b);
    pthread_mutex_destroy(&cap.mu);
}
END_TEST

/* The text detail log the LoadGen writes for 0.5 (AsyncLog::LogDetail of the r0.5 LoadGen)
 * read back by the checker's reader of old logs (common/textlog.h): every line is a record,
 * the format is detected, the settings and the result come back as written. */
static char *text_value(const ms_textlog *log, const char *key)
{
    const ms_textlog_rec *r = ms_textlog_find(log, key);
    return r ? ms_textlog_value(r) : NULL;
}

START_TEST(text_detail_log_round_trips_through_the_reader)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    my_sut m;
    start(&m, 0);
    lg_sut sut = {&m, sut_name, issue, flush};
    lg_qsl qsl = {&m, qsl_name, 200, 50, load, unload};
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_OFFLINE;
    s.mode = LG_PERFORMANCE_ONLY;
    s.min_duration_ms = 0;
    s.min_query_count = 1;
    s.offline_expected_qps = 100;
    lg_log_settings ls;
    lg_run_options ro;
    logs_in(dir, &ls, &ro);
    ro.compat = lg_compat_parse("0.5");
    ck_assert_int_ge(ro.compat, 0);
    lg_run_result res;
    ms_err e;
    ck_assert_int_eq(lg_start_test(&sut, &qsl, &s, &ls, &ro, &res, &e), MS_OK);
    stop(&m);
    char path[512], *text = NULL;
    size_t len = 0;
    snprintf(path, sizeof path, "%s/mlperf_log_detail.txt", dir);
    ck_assert_int_eq(ms_read_file(path, 1 << 26, &text, &len, &e), MS_OK);
    ck_assert_int_eq(ms_log_detect(text, len), MS_LOGFMT_TEXT);
    ms_textlog log;
    ck_assert_int_eq(ms_textlog_parse(&log, text, len, &e), MS_OK);
    ck_assert_uint_gt(log.nrecs, 10);
    ck_assert_uint_eq(log.nbad, 0);
    ck_assert_uint_eq(log.n_errors, 0);
    /* the entries of the reference r0.5 LoadGen's text log (version.cc LogLoadgenVersion,
     * loadgen.cc StartTest, test_settings_internal.cc LogRequestedTestSettings) */
    char *v = text_value(&log, "version");
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(strstr(v, lg_compat_version(ro.compat)));
    free(v);
    v = text_value(&log, "Scenario");
    ck_assert_str_eq(v, "Offline");
    free(v);
    v = text_value(&log, "offline_expected_qps");
    ck_assert_ptr_nonnull(v);
    ck_assert_double_eq_tol(strtod(v, NULL), 100.0, 1e-9);
    free(v);
    v = text_value(&log, "QSL total size");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, "200");
    free(v);
    ck_assert_ptr_null(text_value(&log, "requested_scenario")); /* no keys in the text log */
    ms_textlog_free(&log);
    free(text);
}
END_TEST

START_TEST(late_and_bogus_completions_are_harmless)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    my_sut m;
    start(&m, 0);
    lg_sut sut = {&m, sut_name, issue, flush};
    lg_qsl qsl = {&m, qsl_name, 100, 100, load, unload};
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_OFFLINE;
    s.min_duration_ms = 0;
    lg_log_settings ls;
    lg_log_settings_default(&ls);
    ls.outdir = dir;
    lg_run_options ro;
    lg_run_options_default(&ro);
    ro.audit_config_path = "";
    lg_run_result res;
    ms_err e;
    ck_assert_int_eq(lg_start_test(&sut, &qsl, &s, &ls, &ro, &res, &e), MS_OK);
    stop(&m);
    ck_assert_uint_eq(res.n_errors, 0);
    ck_assert_int_eq(m.loaded, 100);
}
END_TEST

/* A SUT that completes inline and cancels the test at its 20th query (like a harness whose
 * issue_query raised). */
typedef struct cancel_sut {
    _Atomic int cancel;
    int queries;
    int fds[8];
    char paths[8][600];
    int nfds;
} cancel_sut;

static void cancel_issue(void *ctx, lg_test *test, const lg_query_sample *s, size_t n)
{
    cancel_sut *c = ctx;
    for (size_t i = 0; i < n; i++) {
        lg_response r = {s[i].id, 0, 0, 0};
        lg_query_samples_complete(test, &r, 1);
    }
    if (++c->queries == 20)
        atomic_store(&c->cancel, 1);
}

static void cancel_flush(void *ctx) { (void)ctx; }

static void cancel_log_file(void *ctx, int fd, const char *final_path)
{
    cancel_sut *c = ctx;
    c->fds[c->nfds] = dup(fd);
    snprintf(c->paths[c->nfds], sizeof c->paths[0], "%s", final_path);
    c->nfds++;
}

START_TEST(cancel_leaves_logs_unnamed_and_keeps_the_test)
{
    char dir[256];
    ms_test_tmpdir(dir, sizeof dir);
    cancel_sut c;
    memset(&c, 0, sizeof c);
    lg_sut sut = {&c, sut_name, cancel_issue, cancel_flush};
    lg_qsl qsl = {&c, qsl_name, 100, 100, NULL, NULL};
    lg_test_settings s;
    lg_settings_default(&s);
    s.scenario = LG_SINGLE_STREAM;
    s.min_duration_ms = 60000; /* would run a minute without the cancel */
    lg_log_settings ls;
    lg_run_options ro;
    logs_in(dir, &ls, &ro);
    ro.cancel = &c.cancel;
    ro.on_log_file = cancel_log_file;
    ro.on_log_file_ctx = &c;
    lg_run_result res;
    ms_err e;
    ck_assert_int_eq(lg_start_test(&sut, &qsl, &s, &ls, &ro, &res, &e), MS_ERUNTIME);
    ck_assert(res.canceled);
    ck_assert_int_eq(c.queries, 20); /* nothing issued after the cancel */
    ck_assert_ptr_nonnull(res.abandoned);
    lg_query_sample late = {1, 0};
    lg_response r = {late.id, 0, 0, 0};
    lg_query_samples_complete(res.abandoned, &r, 1); /* ignored, not a crash */
    lg_test_free(res.abandoned);
    char p[600];
    snprintf(p, sizeof p, "%s/mlperf_log_summary.txt", dir);
    ck_assert_int_ne(access(p, F_OK), 0); /* not committed */
    ck_assert_int_eq(c.nfds, 4);
    for (int i = 0; i < c.nfds; i++) {
        if (c.fds[i] >= 0 && lg_logs_finish_incomplete(c.fds[i], c.paths[i], "canceled by the test", &e) != MS_OK)
            ck_abort_msg("%s", e.msg);
        close(c.fds[i]);
    }
    char *sum = read_all(dir, "mlperf_log_summary.txt");
    ck_assert_ptr_nonnull(strstr(sum, "TEST INCOMPLETE: canceled by the test"));
    free(sum);

    /* keep_test: a normal run hands the test back too */
    memset(&c, 0, sizeof c);
    c.queries = -1000000;
    s.min_duration_ms = 0;
    ro.cancel = NULL;
    ro.on_log_file = NULL;
    ro.keep_test = 1;
    ck_assert_int_eq(lg_start_test(&sut, &qsl, &s, &ls, &ro, &res, &e), MS_OK);
    ck_assert(!res.canceled);
    ck_assert_ptr_nonnull(res.abandoned);
    lg_test_free(res.abandoned);
}
END_TEST

START_TEST(bad_arguments)
{
    lg_test_settings s;
    lg_settings_default(&s);
    lg_sut sut = {NULL, sut_name, NULL, flush};
    lg_qsl qsl = {NULL, qsl_name, 10, 10, NULL, NULL};
    ms_err e;
    ck_assert_int_eq(lg_start_test(&sut, &qsl, &s, NULL, NULL, NULL, &e), MS_EUSAGE);
    /* an output directory that does not exist: the reference's message */
    my_sut m;
    memset(&m, 0, sizeof m);
    lg_sut ok_sut = {&m, sut_name, issue, flush};
    lg_log_settings ls;
    lg_log_settings_default(&ls);
    ls.outdir = "/nonexistent/dir";
    ck_assert_int_eq(lg_start_test(&ok_sut, &qsl, &s, &ls, NULL, NULL, &e), MS_ERUNTIME);
    ck_assert_ptr_nonnull(strstr(e.msg, "LoadGen: Failed to open summary file"));
}
END_TEST

START_TEST(sut_registry_and_specs)
{
    ms_err e;
    lg_test_settings s;
    lg_settings_default(&s);
    lg_sut_env env = {&s, "data", 100, 10};
    lg_sut_instance *si = lg_sut_create("latency:uniform=1ms..3ms,seed=7", &env, &e);
    ck_assert_msg(si != NULL, "%s", e.msg);
    ck_assert_uint_eq(lg_sut_instance_qsl(si)->total_sample_count, 100);
    ck_assert_uint_eq(lg_sut_instance_qsl(si)->performance_sample_count, 10);
    lg_sut_destroy(si);
    ck_assert_ptr_null(lg_sut_create("latency:uniform=3ms..1ms", &env, &e));
    ck_assert_ptr_nonnull(strstr(e.msg, "uniform=3ms..1ms"));
    ck_assert_ptr_null(lg_sut_create("batch:max=0", &env, &e));
    ck_assert_ptr_null(lg_sut_create("batch:max=4,max=5", &env, &e));
    ck_assert_ptr_nonnull(strstr(e.msg, "given twice"));
    ck_assert_ptr_null(lg_sut_create(":x", &env, &e));
    lg_sut_env noqsl = {&s, "data", 0, 0};
    ck_assert_ptr_null(lg_sut_create("null", &noqsl, &e));
    ck_assert_ptr_nonnull(strstr(e.msg, "--total-samples"));
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, user_sut_submission_run_with_tokens);
    tcase_add_test(tc, late_and_bogus_completions_are_harmless);
    tcase_add_test(tc, console_output_goes_to_the_callback);
    tcase_add_test(tc, text_detail_log_round_trips_through_the_reader);
    tcase_add_test(tc, cancel_leaves_logs_unnamed_and_keeps_the_test);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, sut_registry_and_specs);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(api_suite)
