/* mlsubmit serve's request layer (src/serve/views.c) without a socket: routes, status codes,
 * parameter validation, HTML escaping of database text, path traversal. */
#include <sqlite3.h>

#include "runs/runs.h"
#include "serve/serve.h"
#include "testutil.h"

static void make_index(const char *path)
{
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    const char *sql =
        "CREATE TABLE results(id INTEGER PRIMARY KEY, row_type TEXT, result_num REAL, version TEXT,"
        " \"Division\" TEXT, \"SystemType\" TEXT, \"Organization\" TEXT, \"Availability\" TEXT,"
        " \"SystemName\" TEXT, \"Platform\" TEXT, \"Model\" TEXT, \"Scenario\" TEXT, \"Units\" TEXT,"
        " \"Accuracy\" TEXT, \"accelerator_model_name\" TEXT, \"Location\" TEXT);"
        "CREATE TABLE systems(division TEXT, submitter TEXT, system TEXT, path TEXT, system_name TEXT,"
        " json TEXT, PRIMARY KEY(division, submitter, system));"
        "CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER, sha256 TEXT, division TEXT, submitter TEXT);"
        "INSERT INTO systems VALUES('closed','Org','sys1','closed/Org/systems/sys1.json',"
        " '<script>alert(1)</script>','{\"system_name\":\"<script>alert(1)</script>\"}');"
        "INSERT INTO files VALUES('closed/Org/results/sys1/resnet50/Offline/performance/run_1/mlperf_log_summary.txt',"
        " 10, 'ab', 'closed', 'Org');"
        "INSERT INTO results VALUES(1,'performance',100,'v5.1','closed','edge','Org','available',"
        " '<script>alert(1)</script>','sys1','resnet50','Offline','Samples/s','acc','acc1','closed/Org/results/sys1');"
        "INSERT INTO results VALUES(2,'performance',300,'v6.0','closed','edge','Org','available',"
        " 'S','sys1','resnet50','Offline','Samples/s','acc','acc1','closed/Org/results/sys1');"
        "INSERT INTO results VALUES(3,'performance',200,'v6.0','closed','edge','Org','available',"
        " 'S','sys1','bert','Offline','Samples/s','acc','acc1','closed/Org/results/sys1');";
    ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static ms_serve_ctx *ctx_new(char *dir, size_t n, int with_runs)
{
    ms_test_tmpdir(dir, n);
    char ix[700], rn[700];
    snprintf(ix, sizeof ix, "%s/ix.sqlite", dir);
    snprintf(rn, sizeof rn, "%s/runs.sqlite", dir);
    make_index(ix);
    if (with_runs) {
        static char *argv[] = {"loadgen", "run", NULL};
        ms_run_record r = {.kind = "loadgen run", .argc = 2, .argv = argv, .sut = "null"};
        ms_err e = {0};
        ck_assert_int_eq(ms_runs_record(rn, &r, NULL, NULL, NULL, &e), MS_OK);
        r.sut = "latency:fixed=1ms";
        ck_assert_int_eq(ms_runs_record(rn, &r, NULL, NULL, NULL, &e), MS_OK);
    }
    ms_err e = {0};
    ms_serve_ctx *c = ms_serve_ctx_new(ix, with_runs ? rn : NULL, &e);
    ck_assert_msg(c != NULL, "%s", e.msg);
    return c;
}

static int get(ms_serve_ctx *c, const char *path, const ms_serve_param *p, size_t n, ms_serve_response *r)
{
    ms_serve_handle(c, path, p, n, r);
    return r->status;
}

START_TEST(index_routes_and_validation)
{
    char dir[512];
    ms_serve_ctx *c = ctx_new(dir, sizeof dir, 0);
    ms_serve_response r;
    ck_assert_int_eq(get(c, "/api/rounds", NULL, 0, &r), 200);
    ck_assert_str_eq(r.content_type, "application/json");
    ck_assert_ptr_nonnull(strstr(r.body, "\"v6.0\""));
    ms_serve_response_free(&r);

    ms_serve_param f[] = {{"model", "resnet50"}, {"sort", "result"}, {"order", "desc"}};
    ck_assert_int_eq(get(c, "/api/results", f, 3, &r), 200);
    json_t *j = json_loads(r.body, 0, NULL);
    json_t *res = json_object_get(j, "results");
    ck_assert_int_eq(json_array_size(res), 2);
    ck_assert(json_number_value(json_object_get(json_array_get(res, 0), "result")) == 300);
    ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(res, 0), "system_id")), 1);
    json_decref(j);
    ms_serve_response_free(&r);

    ms_serve_param bad[][1] = {{{"sort", "result; DROP TABLE results"}}, {{"order", "sideways"}},
                               {{"limit", "0"}}, {{"nosuch", "1"}}};
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(get(c, "/api/results", bad[i], 1, &r), 400);
        ck_assert_ptr_nonnull(strstr(r.body, "\"error\""));
        ms_serve_response_free(&r);
    }
    char longv[400];
    memset(longv, 'a', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    ms_serve_param lp[] = {{"model", longv}};
    ck_assert_int_eq(get(c, "/api/results", lp, 1, &r), 400);
    ms_serve_response_free(&r);
    /* a value that is SQL stays data */
    ms_serve_param inj[] = {{"model", "x' OR '1'='1"}};
    ck_assert_int_eq(get(c, "/api/results", inj, 1, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"results\": []"));
    ms_serve_response_free(&r);

    /* a system page escapes what the tree holds */
    ck_assert_int_eq(get(c, "/systems/1", NULL, 0, &r), 200);
    ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    ck_assert_ptr_null(strstr(r.body, "<script>"));
    ck_assert_ptr_nonnull(strstr(r.body, "&lt;script&gt;"));
    ck_assert_ptr_nonnull(strstr(r.body, "mlperf_log_summary.txt"));
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/results", f, 3, &r), 200);
    ck_assert_ptr_null(strstr(r.body, "<script>"));
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/api/systems/2", NULL, 0, &r), 404);
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/api/systems/x", NULL, 0, &r), 400);
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/api/systems/1/../../etc", NULL, 0, &r), 400);
    ms_serve_response_free(&r);

    ms_serve_param h[] = {{"model", "resnet50"}, {"scenario", "Offline"}};
    ck_assert_int_eq(get(c, "/api/history", h, 2, &r), 200);
    j = json_loads(r.body, 0, NULL);
    ck_assert_int_eq(json_array_size(json_object_get(j, "best_per_round")), 2);
    json_decref(j);
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/history", h, 2, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "class=\"bar\""));
    ms_serve_response_free(&r);

    /* no runs database: its pages say so */
    ck_assert_int_eq(get(c, "/api/runs", NULL, 0, &r), 404);
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/nope", NULL, 0, &r), 404);
    ck_assert_str_eq(r.content_type, "text/html; charset=utf-8");
    ms_serve_response_free(&r);
    ms_serve_ctx_free(c);
}
END_TEST

START_TEST(runs_routes)
{
    char dir[512];
    ms_serve_ctx *c = ctx_new(dir, sizeof dir, 1);
    ms_serve_response r;
    ck_assert_int_eq(get(c, "/api/runs", NULL, 0, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "latency:fixed=1ms"));
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/api/runs/2", NULL, 0, &r), 200);
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/runs/2", NULL, 0, &r), 200);
    ck_assert_ptr_null(strstr(r.body, "/trace\"")); /* no trace recorded: no link */
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/runs/2/trace", NULL, 0, &r), 404);
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/api/runs/3", NULL, 0, &r), 404);
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/runs/0", NULL, 0, &r), 400);
    ms_serve_response_free(&r);
    ms_serve_param ids[] = {{"ids", "1,2"}};
    ck_assert_int_eq(get(c, "/api/compare", ids, 1, &r), 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"sut\""));
    ms_serve_response_free(&r);
    ck_assert_int_eq(get(c, "/compare", ids, 1, &r), 200);
    ms_serve_response_free(&r);
    ms_serve_param bad[][1] = {{{"ids", "1"}}, {{"ids", "1,,x"}}, {{"ids", "1,2,3,4,5,6,7,8,9"}}};
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(get(c, "/api/compare", bad[i], 1, &r), 400);
        ms_serve_response_free(&r);
    }
    ms_serve_param unk[] = {{"ids", "1,99"}};
    ck_assert_int_eq(get(c, "/api/compare", unk, 1, &r), 404);
    ms_serve_response_free(&r);
    ms_serve_ctx_free(c);
}
END_TEST

START_TEST(bad_databases_are_refused)
{
    char dir[512];
    ms_test_tmpdir(dir, sizeof dir);
    char p[700];
    snprintf(p, sizeof p, "%s/empty.sqlite", dir);
    sqlite3 *db;
    ck_assert_int_eq(sqlite3_open(p, &db), SQLITE_OK);
    sqlite3_exec(db, "CREATE TABLE runs(path TEXT)", NULL, NULL, NULL); /* an index's runs table */
    sqlite3_close(db);
    ms_err e = {0};
    ck_assert_ptr_null(ms_serve_ctx_new(p, NULL, &e));
    ck_assert_int_eq(e.code, MS_EINPUT);
    ck_assert_ptr_null(ms_serve_ctx_new(NULL, p, &e));
    ck_assert_int_eq(e.code, MS_EINPUT);
}
END_TEST

static Suite *serve_suite(void)
{
    Suite *s = suite_create("serve");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, index_routes_and_validation);
    tcase_add_test(tc, runs_routes);
    tcase_add_test(tc, bad_databases_are_refused);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(serve_suite)
