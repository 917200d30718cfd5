/* Unit tests of the report module's building blocks: the RFC 4180 CSV reader, Python-exact JSON
 * strings, scenario names, never-overwriting copies, and the package reader on bad input. */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/csv.h"
#include "report/internal.h"
#include "report/report.h"
#include "testutil.h"

START_TEST(list_sorts_and_takes_a_failed_path)
{
    char dir[256], sub[300];
    ms_test_tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/b", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    snprintf(sub, sizeof sub, "%s/a", dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    char **v;
    size_t n;
    ms_err e;
    ck_assert_int_eq(rp_list(dir, 1, &v, &n, &e), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(v[0], "a");
    ck_assert_str_eq(v[1], "b");
    rp_list_free(v, n);
    /* a path that could not be formatted (NULL) is out of memory, not an empty folder */
    ck_assert_int_ne(rp_list(NULL, 1, &v, &n, &e), 0);
    ck_assert_ptr_null(v);
    ck_assert_uint_eq(n, 0);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/b", dir);
    rmdir(sub);
    rmdir(dir);
}
END_TEST

START_TEST(csv_rfc4180)
{
    const char *t = "a,b,c\r\n1,\"x, y\",\"he said \"\"hi\"\"\"\n\n2,\"multi\nline\",\n";
    ms_csv c;
    ms_err e;
    ck_assert_int_eq(ms_csv_parse(t, strlen(t), "t.csv", &c, &e), 0);
    ck_assert_uint_eq(c.nrows, 3);
    ck_assert_str_eq(c.rows[1].fields[1], "x, y");
    ck_assert_str_eq(c.rows[1].fields[2], "he said \"hi\"");
    ck_assert_str_eq(c.rows[2].fields[1], "multi\nline");
    ck_assert_str_eq(c.rows[2].fields[2], "");
    ck_assert_uint_eq(c.rows[2].n, 3);
    ck_assert_uint_eq(c.rows[2].line, 4);
    ck_assert_int_eq(ms_csv_col(&c, "c"), 2);
    ck_assert_int_eq(ms_csv_col(&c, "d"), -1);
    ms_csv_free(&c);
}
END_TEST

START_TEST(csv_legacy_quotes_and_errors)
{
    /* the legacy checker quotes without escaping: kept literally, like Python's csv module */
    const char *t = "n,s\n1,\"15\" laptop\"\n2,a\"b\n";
    ms_csv c;
    ms_err e;
    ck_assert_int_eq(ms_csv_parse(t, strlen(t), "t.csv", &c, &e), 0);
    ck_assert_str_eq(c.rows[1].fields[1], "15 laptop\"");
    ck_assert_str_eq(c.rows[2].fields[1], "a\"b");
    ms_csv_free(&c);
    const char *bad = "a\n\"never closed\n";
    ck_assert_int_eq(ms_csv_parse(bad, strlen(bad), "bad.csv", &c, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "bad.csv:2: quoted field not closed"));
    ms_buf b = MS_BUF_INIT;
    ms_csv_put_field(&b, "plain");
    ms_buf_putc(&b, ',');
    ms_csv_put_field(&b, "with \"quote\", comma");
    ck_assert_str_eq(b.data, "plain,\"with \"\"quote\"\", comma\"");
    ms_buf_free(&b);
}
END_TEST

START_TEST(json_strings_like_python)
{
    /* expected values from CPython: json.dumps(s) with the default ensure_ascii=True */
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"Intel\xe2\x80\xaf" "Xeon", "\"Intel\\u202fXeon\""},
        {"tab\tnl\ncr\rq\"bs\\", "\"tab\\tnl\\ncr\\rq\\\"bs\\\\\""},
        {"\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\""},
        {"caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\\u00e9 \\ud83d\\ude00\""},
        {"/<>&", "\"/<>&\""},
        {"bad\xff", "\"bad\\ufffd\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ms_buf b = MS_BUF_INIT;
        ck_assert_int_eq(rp_json_str(&b, cases[i].in), 0);
        ck_assert_str_eq(b.data, cases[i].out);
        ms_buf_free(&b);
    }
}
END_TEST

START_TEST(scenario_names)
{
    ck_assert_str_eq(ru_scenario_canon(NULL, "offline"), "Offline");
    ck_assert_str_eq(ru_scenario_canon(NULL, "MultiStream"), "MultiStream");
    ck_assert_str_eq(ru_scenario_canon(NULL, "singlestream"), "SingleStream");
    ck_assert_ptr_null(ru_scenario_canon(NULL, "OFFLINE"));
    ck_assert_ptr_null(ru_scenario_canon(NULL, "Offline2"));
}
END_TEST

START_TEST(copy_never_overwrites)
{
    char d[512], p[1100], q[1100];
    ms_test_tmpdir(d, sizeof d);
    snprintf(p, sizeof p, "%s/src", d);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(q, sizeof q, "%s/src/f.txt", d);
    FILE *f = fopen(q, "w");
    ck_assert_ptr_nonnull(f);
    fputs("data\n", f);
    fclose(f);
    snprintf(q, sizeof q, "%s/dst", d);
    ms_err e;
    uint64_t files = 0, bytes = 0;
    ck_assert_int_eq(rp_copy_tree(p, q, &files, &bytes, &e), 0);
    ck_assert_uint_eq(files, 1);
    ck_assert_uint_eq(bytes, 5);
    ck_assert_int_eq(rp_copy_tree(p, q, NULL, NULL, &e), MS_ERUNTIME);
    ck_assert_ptr_nonnull(strstr(e.msg, "already exists"));
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static size_t tar_mem(unsigned char *buf, size_t cap, const char *first)
{
    struct archive *a = archive_write_new();
    archive_write_add_filter_gzip(a);
    archive_write_set_format_pax_restricted(a);
    size_t used = 0;
    archive_write_open_memory(a, buf, cap, &used);
    struct archive_entry *en = archive_entry_new();
    archive_entry_set_pathname(en, first);
    archive_entry_set_filetype(en, AE_IFREG);
    archive_entry_set_perm(en, 0644);
    archive_entry_set_size(en, 5);
    archive_write_header(a, en);
    archive_write_data(a, "hello", 5);
    archive_entry_free(en);
    archive_write_close(a);
    archive_write_free(a);
    return used;
}

START_TEST(package_reader_rejects)
{
    ms_err e;
    rp_verify_stats st;
    ck_assert_int_eq(rp_package_verify_mem("nope", 4, "x.tar.gz", NULL, NULL, &st, &e), MS_EINPUT);
    static unsigned char buf[1 << 16];
    size_t n = tar_mem(buf, sizeof buf, "closed/a.txt");
    ck_assert_int_eq(rp_package_verify_mem(buf, n, "y.tar.gz", NULL, NULL, &st, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "not an mlsubmit package"));
    /* an index member that is not a database */
    n = tar_mem(buf, sizeof buf, RP_PACKAGE_INDEX);
    ck_assert_int_eq(rp_package_verify_mem(buf, n, "z.tar.gz", NULL, NULL, &st, &e), MS_EINPUT);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, csv_rfc4180);
    tcase_add_test(tc, csv_legacy_quotes_and_errors);
    tcase_add_test(tc, json_strings_like_python);
    tcase_add_test(tc, scenario_names);
    tcase_add_test(tc, copy_never_overwrites);
    tcase_add_test(tc, package_reader_rejects);
    tcase_add_test(tc, list_sorts_and_takes_a_failed_path);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
