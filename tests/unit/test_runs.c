/* The runs database (src/runs/): recording, the database path, filters, the noise test,
 * gc, export, and a recorder killed before COMMIT leaving no row. */
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include "runs/runs.h"
#include "testutil.h"

static void write_text(const char *dir, const char *name, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static const char summary[] =
    "SUT name : t\nScenario : SingleStream\nMode     : PerformanceOnly\n"
    "90.0th percentile latency (ns) : 2000\nResult is : VALID\n"
    "Early Stopping Result:\n * Early stopping 90.0th percentile estimate: 2100\n\n"
    "Min latency (ns)                : 1000\nMax latency (ns)                : 9000\n"
    "Mean latency (ns)               : 1500\n50.00 percentile latency (ns)   : 1400\n"
    "90.00 percentile latency (ns)   : 2000\n99.00 percentile latency (ns)   : 5000\n";
static const char detail[] =
    ":::MLLOG {\"key\": \"effective_min_query_count\", \"value\": 100, \"time_ms\": 1.0, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {}}\n"
    ":::MLLOG {\"key\": \"effective_scenario\", \"value\": \"SingleStream\", \"time_ms\": 1.0, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {}}\n"
    ":::MLLOG {\"key\": \"result_query_count\", \"value\": 10000, \"time_ms\": 1.0, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {}}\n";

static int64_t record_one(const char *db, const char *dir, const char *sut, ms_runs_before_commit hook)
{
    static char *argv[] = {"loadgen", "run", "--sut", "x", NULL};
    lg_test_settings s;
    lg_settings_default(&s);
    s.qsl_rng_seed = 18446744073709551615ull;
    const char *outs[] = {dir};
    ms_run_record r = {.kind = "loadgen run", .argc = 4, .argv = argv, .start_unix_ns = 1000000000,
                       .end_unix_ns = 3000000000, .sut = sut, .scenario = "SingleStream",
                       .settings = &s, .log_dir = dir, .outputs = outs, .noutputs = 1};
    ms_err e = {0};
    int64_t id = 0;
    ck_assert_int_eq(ms_runs_record(db, &r, &id, hook, NULL, &e), MS_OK);
    return id;
}

static void mkrun(char *dir, size_t n)
{
    ms_test_tmpdir(dir, n);
    write_text(dir, "mlperf_log_summary.txt", summary);
    write_text(dir, "mlperf_log_detail.txt", detail);
}

START_TEST(record_and_read_back)
{
    char dir[512], db[600];
    mkrun(dir, sizeof dir);
    snprintf(db, sizeof db, "%s/sub/dir/runs.sqlite", dir);
    ck_assert_int_eq(record_one(db, dir, "null", NULL), 1);
    ck_assert_int_eq(record_one(db, dir, "latency:fixed=1ms", NULL), 2);
    ms_err e = {0};
    ms_runs_db *d = ms_runs_open(db, 0, &e);
    ck_assert_ptr_nonnull(d);
    json_t *r = NULL;
    ck_assert_int_eq(ms_runs_get(d, 1, &r, &e), MS_OK);
    ck_assert_str_eq(json_string_value(json_object_get(r, "validity")), "VALID");
    ck_assert(json_real_value(json_object_get(r, "metric")) == 2000);
    ck_assert_str_eq(json_string_value(json_object_get(r, "metric_name")), "90.0th percentile latency (ns)");
    ck_assert(json_number_value(json_object_get(json_object_get(r, "latency"), "max")) == 9000);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(r, "latency"), "count")), 10000);
    ck_assert(json_number_value(json_object_get(json_object_get(json_object_get(r, "early_stopping"), "estimates"), "90.0")) == 2100);
    json_t *set = json_object_get(r, "settings");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(set, "requested"), "qsl_rng_seed")),
                     "18446744073709551615");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(set, "effective"), "min_query_count")), "100");
    ck_assert_int_eq(json_array_size(json_object_get(r, "files")), 2); /* the two logs */
    ck_assert_int_eq(json_string_length(json_object_get(json_array_get(json_object_get(r, "files"), 0), "sha256")), 64);
    json_decref(r);
    ck_assert_int_eq(ms_runs_get(d, 99, &r, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "no run 99"));

    ms_runs_filter f;
    ck_assert_int_eq(ms_runs_filter_parse("sut~latency", &f, &e), MS_OK);
    json_t *l = NULL;
    ck_assert_int_eq(ms_runs_list(d, &f, 1, 0, &l, &e), MS_OK);
    ck_assert_int_eq(json_array_size(l), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(l, 0), "id")), 2);
    json_decref(l);
    ck_assert_int_eq(ms_runs_filter_parse("metric>=2000", &f, &e), MS_OK);
    ck_assert_int_eq(ms_runs_list(d, &f, 1, 1, &l, &e), MS_OK);
    ck_assert_int_eq(json_array_size(l), 1); /* limit 1 */
    json_decref(l);

    int64_t ids[] = {1, 2};
    json_t *c = NULL;
    ck_assert_int_eq(ms_runs_compare(d, ids, 2, &c, &e), MS_OK);
    json_t *s0 = json_array_get(json_object_get(c, "settings"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(s0, "name")), "sut");
    json_decref(c);

    char *text = NULL;
    size_t len = 0;
    ck_assert_int_eq(ms_runs_export(d, "csv", &text, &len, &e), MS_OK);
    ck_assert(!strncmp(text, "id,kind,", 8));
    ck_assert_ptr_nonnull(strstr(text, "\"[\"\"loadgen\"\",\"\"run\"\""));  /* RFC 4180 quoting */
    free(text);
    ck_assert_int_eq(ms_runs_export(d, "xml", &text, &len, &e), MS_EUSAGE);
    ms_runs_close(d);

    d = ms_runs_open(db, 1, &e);
    size_t deleted = 0;
    ck_assert_int_eq(ms_runs_gc(d, 1, &deleted, &e), MS_OK);
    ck_assert_int_eq(deleted, 1);
    ck_assert_int_eq(ms_runs_get(d, 1, &r, &e), MS_EINPUT);
    ck_assert_int_eq(ms_runs_get(d, 2, &r, &e), MS_OK);
    json_decref(r);
    ms_runs_close(d);
}
END_TEST

static void die(void *ctx)
{
    (void)ctx;
    raise(SIGKILL);
}

START_TEST(killed_before_commit_leaves_no_row)
{
    char dir[512], db[600];
    mkrun(dir, sizeof dir);
    snprintf(db, sizeof db, "%s/runs.sqlite", dir);
    record_one(db, dir, "first", NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        record_one(db, dir, "killed", die);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    ms_err e = {0};
    ms_runs_db *d = ms_runs_open(db, 0, &e);
    ck_assert_ptr_nonnull(d);
    json_t *l = NULL;
    ck_assert_int_eq(ms_runs_list(d, NULL, 0, 0, &l, &e), MS_OK);
    ck_assert_int_eq(json_array_size(l), 1);
    json_decref(l);
    ms_runs_close(d);
    /* and the next recorder works and gets the next id */
    ck_assert_int_ge(record_one(db, dir, "after", NULL), 2);
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *q;
    sqlite3_prepare_v2(h, "SELECT count(*), (SELECT count(*) FROM runs WHERE sut='killed') FROM runs", -1, &q, NULL);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(q, 0), 2);
    ck_assert_int_eq(sqlite3_column_int(q, 1), 0);
    sqlite3_finalize(q);
    sqlite3_close(h);
}
END_TEST

START_TEST(db_path_order)
{
    ms_err e = {0};
    char *p = ms_runs_db_path("a.sqlite", "b.sqlite", "/x", "/h", &e);
    ck_assert_str_eq(p, "a.sqlite");
    free(p);
    p = ms_runs_db_path(NULL, "b.sqlite", "/x", "/h", &e);
    ck_assert_str_eq(p, "b.sqlite");
    free(p);
    p = ms_runs_db_path(NULL, "", "/x", "/h", &e);
    ck_assert_str_eq(p, "/x/mlsubmit/runs.sqlite");
    free(p);
    p = ms_runs_db_path(NULL, NULL, "relative", "/h", &e); /* XDG paths must be absolute */
    ck_assert_str_eq(p, "/h/.local/share/mlsubmit/runs.sqlite");
    free(p);
    ck_assert_ptr_null(ms_runs_db_path(NULL, NULL, NULL, NULL, &e));
    ck_assert_int_eq(e.code, MS_EUSAGE);
}
END_TEST

START_TEST(filters_parse_and_reject)
{
    ms_runs_filter f;
    ms_err e = {0};
    ck_assert_int_eq(ms_runs_filter_parse("scenario=Server", &f, &e), MS_OK);
    ck_assert_str_eq(f.key, "scenario");
    ck_assert_str_eq(f.op, "=");
    ck_assert_str_eq(f.value, "Server");
    ck_assert_int_eq(ms_runs_filter_parse("metric<=1e3", &f, &e), MS_OK);
    ck_assert_str_eq(f.op, "<=");
    ck_assert_int_eq(ms_runs_filter_parse("exit_code!=0", &f, &e), MS_OK);
    ck_assert_str_eq(f.op, "!=");
    ck_assert_int_eq(ms_runs_filter_parse("settings.min_query_count>5", &f, &e), MS_OK);
    ck_assert_int_eq(ms_runs_filter_parse("nope=1", &f, &e), MS_EUSAGE);
    ck_assert_int_eq(ms_runs_filter_parse("settings.a'b=1", &f, &e), MS_EUSAGE);
    ck_assert_int_eq(ms_runs_filter_parse("sut", &f, &e), MS_EUSAGE);
    ck_assert_int_eq(ms_runs_filter_parse("=x", &f, &e), MS_EUSAGE);
}
END_TEST

START_TEST(quantile_ci_separates_real_shifts_from_noise)
{
    /* a uniform 1000..2000 ns distribution: quantile(p) = 1000 + 1000 p */
    const double a[][2] = {{0, 1000}, {0.5, 1500}, {0.9, 1900}, {1, 2000}};
    double lo, hi;
    ck_assert_int_eq(ms_runs_quantile_ci(a, 4, 0.5, 10000, &lo, &hi), 0);
    /* +/- 1.96 * sqrt(0.25 / 10000) = 0.0098 */
    ck_assert(fabs(lo - 1490.2) < 0.1 && fabs(hi - 1509.8) < 0.1);
    /* fewer samples: a wider interval */
    double lo2, hi2;
    ck_assert_int_eq(ms_runs_quantile_ci(a, 4, 0.5, 100, &lo2, &hi2), 0);
    ck_assert(lo2 < lo && hi2 > hi);
    /* the extreme tail of a small run cannot be bounded */
    ck_assert_int_eq(ms_runs_quantile_ci(a, 4, 0.999, 100, &lo, &hi), -1);
    ck_assert_int_eq(ms_runs_quantile_ci(a, 1, 0.5, 100, &lo, &hi), -1);
    ck_assert_int_eq(ms_runs_quantile_ci(a, 4, 0.5, 0, &lo, &hi), -1);
}
END_TEST

static Suite *runs_suite(void)
{
    Suite *s = suite_create("runs");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, record_and_read_back);
    tcase_add_test(tc, killed_before_commit_leaves_no_row);
    tcase_add_test(tc, db_path_order);
    tcase_add_test(tc, filters_parse_and_reject);
    tcase_add_test(tc, quantile_ci_separates_real_shifts_from_noise);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(runs_suite)
