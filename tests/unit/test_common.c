/* Unit tests for src/common: buffers, paths, atomic files, digests, the detail-log reader. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdint.h>
#include <pthread.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/lazy_archive.h"
#include "common/lazy_crypto.h"
#include "common/lazy_curl.h"
#include "common/lazy_mhd.h"
#include "common/lazylib.h"
#include "common/mllog.h"
#include "common/pmqos.h"
#include "common/strutil.h"
#include "common/textlog.h"
#include "testutil.h"

START_TEST(buf_grows_and_formats)
{
    ms_buf b = MS_BUF_INIT;
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(ms_buf_printf(&b, "%d,", i), 0);
    ck_assert(ms_starts_with(b.data, "0,1,2,"));
    ck_assert_uint_eq(b.len, strlen(b.data));
    char *s = ms_buf_steal(&b);
    ck_assert_ptr_null(b.data);
    free(s);
}
END_TEST

/* MS_GROW: doubling from the first capacity, the array kept on overflow */
START_TEST(array_growth_helper)
{
    int *v = NULL;
    size_t n = 0, cap = 0;
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_eq(MS_GROW(v, cap, n + 1, 16), 0);
        v[n++] = i;
    }
    ck_assert_uint_eq(cap, 1024);
    ck_assert_int_eq(v[999], 999);
    ck_assert_int_eq(MS_GROW(v, cap, 10, 16), 0); /* already large enough */
    ck_assert_uint_eq(cap, 1024);
    int *keep = v;
    ck_assert_int_eq(MS_GROW(v, cap, (size_t)-1 / 2, 16), -1); /* elements of 4 bytes overflow */
    ck_assert_int_eq(MS_GROW(v, cap, (size_t)-1, 16), -1);     /* no doubling reaches it */
    ck_assert_ptr_eq(v, keep);
    ck_assert_uint_eq(cap, 1024);
    free(v);
    char *c = NULL;
    size_t cc = 0;
    ck_assert_int_eq(MS_GROW(c, cc, 3, 0), 0);
    ck_assert_uint_eq(cc, 4);
    free(c);
}
END_TEST

START_TEST(path_join_normalises_slashes)
{
    char *p = ms_path_join("a/", "/b");
    ck_assert_str_eq(p, "a/b");
    free(p);
    p = ms_path_join("/", "x");
    ck_assert_str_eq(p, "/x");
    free(p);
}
END_TEST

/* A fresh temporary directory holding one file name with content (path: its path). */
static void temp_file(char *dir, size_t dn, char *path, size_t pn, const char *name, const char *content)
{
    ms_test_tmpdir(dir, dn);
    snprintf(path, pn, "%s/%s", dir, name);
    ms_err e;
    ck_assert_int_eq(ms_write_file_atomic(path, content, strlen(content), &e), MS_OK);
}

START_TEST(atomic_file_commit_and_abort)
{
    char dir[256], path[300];
    temp_file(dir, sizeof dir, path, sizeof path, "out.txt", "hello");
    ms_err e;
    char *text;
    size_t len;
    ck_assert_int_eq(ms_read_file(path, 0, &text, &len, &e), MS_OK);
    ck_assert_str_eq(text, "hello");
    free(text);
    /* an aborted write leaves the old content and no temporary file */
    ms_afile af;
    ck_assert_int_eq(ms_afile_open(&af, path, &e), MS_OK);
    fputs("partial", af.fp);
    ms_afile_abort(&af);
    ck_assert_int_eq(ms_read_file(path, 0, &text, &len, &e), MS_OK);
    ck_assert_str_eq(text, "hello");
    free(text);
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        if (de->d_name[0] != '.' || strlen(de->d_name) > 2)
            n++;
    closedir(d);
    ck_assert_int_eq(n, 1);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(read_file_names_missing_path)
{
    ms_err e;
    char *t;
    ck_assert_int_eq(ms_read_file("/nonexistent/x.txt", 0, &t, NULL, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/x.txt"));
}
END_TEST

/* ms_read_file stops at the size fstat gave without a read that returns 0; a file without a size
 * (/proc: st_size 0, read a page at a time) is still read to its end */
/* the temporaries a killed writer left are swept when its pid is gone, or a zombie that no one
 * reaps (its parent killed, PID 1 of a container not reaping): a live writer's are kept */
START_TEST(sweep_stale_temps_of_dead_and_zombie_writers)
{
    char dir[256], out[300], t[400];
    ms_test_tmpdir(dir, sizeof dir);
    snprintf(out, sizeof out, "%s/log.json", dir);
    pid_t live = fork();
    ck_assert_int_ge(live, 0);
    if (live == 0) {
        pause();
        _exit(0);
    }
    pid_t zombie = fork();
    ck_assert_int_ge(zombie, 0);
    if (zombie == 0)
        _exit(0);
    /* wait until it is a zombie (not reaped: no waitpid yet) */
    for (int i = 0; i < 2000; i++) {
        char sp[64], st[256] = "";
        snprintf(sp, sizeof sp, "/proc/%ld/stat", (long)zombie);
        FILE *f = fopen(sp, "r");
        if (f) {
            size_t n = fread(st, 1, sizeof st - 1, f);
            st[n] = '\0';
            fclose(f);
        }
        const char *c = strrchr(st, ')');
        if (c && c[1] == ' ' && c[2] == 'Z')
            break;
        usleep(1000);
    }
    ck_assert_int_eq(kill(zombie, 0), 0); /* a zombie still "exists" for kill() */
    long pids[] = {(long)live, (long)zombie, 999999999L};
    for (size_t i = 0; i < 3; i++) {
        snprintf(t, sizeof t, "%s/.log.json.tmp.%ld.abc123", dir, pids[i]);
        FILE *f = fopen(t, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
    }
    ms_sweep_stale_temps(out);
    snprintf(t, sizeof t, "%s/.log.json.tmp.%ld.abc123", dir, (long)live);
    ck_assert_int_eq(access(t, F_OK), 0);
    snprintf(t, sizeof t, "%s/.log.json.tmp.%ld.abc123", dir, (long)zombie);
    ck_assert_int_ne(access(t, F_OK), 0);
    snprintf(t, sizeof t, "%s/.log.json.tmp.%ld.abc123", dir, 999999999L);
    ck_assert_int_ne(access(t, F_OK), 0);
    kill(live, SIGKILL);
    waitpid(live, NULL, 0);
    waitpid(zombie, NULL, 0);
}
END_TEST

START_TEST(read_file_whole_with_and_without_a_size)
{
    char dir[256], path[300];
    char big[200001];
    for (size_t i = 0; i < sizeof big - 1; i++)
        big[i] = (char)('a' + i % 26);
    big[sizeof big - 1] = '\0';
    temp_file(dir, sizeof dir, path, sizeof path, "big.txt", big);
    ms_err e;
    char *text;
    size_t len;
    ck_assert_int_eq(ms_read_file(path, 0, &text, &len, &e), MS_OK);
    ck_assert_uint_eq(len, sizeof big - 1);
    ck_assert_int_eq(memcmp(text, big, len), 0);
    free(text);
    unlink(path);
    snprintf(path, sizeof path, "%s/empty.txt", dir);
    ck_assert_int_eq(ms_write_file_atomic(path, "", 0, &e), MS_OK);
    ck_assert_int_eq(ms_read_file(path, 0, &text, &len, &e), MS_OK);
    ck_assert_uint_eq(len, 0);
    free(text);
    unlink(path);
    rmdir(dir);
    /* /proc/self/maps: st_size 0, several pages for a process linked with a few libraries */
    FILE *f = fopen("/proc/self/maps", "r");
    if (f) {
        size_t want = 0;
        char chunk[4096];
        for (size_t r; (r = fread(chunk, 1, sizeof chunk, f)) > 0;)
            want += r;
        fclose(f);
        ck_assert_int_eq(ms_read_file("/proc/self/maps", 0, &text, &len, &e), MS_OK);
        /* the same mappings, give or take the buffers of the two reads themselves */
        ck_assert_uint_gt(len, want / 2);
        ck_assert_ptr_nonnull(strchr(text, '\n'));
        ck_assert_int_eq(text[len - 1], '\n');
        free(text);
    }
}
END_TEST

/* ms_parse_file's parser: counts the bytes and keeps the name it was given */
static int count_parser(const char *text, size_t len, const char *name, void *out, ms_err *e)
{
    size_t *n = out;
    if (strlen(text) != len)
        return ms_err_set(e, MS_EINPUT, "%s: text and length differ", name);
    *n = len;
    return strcmp(name, "") ? MS_OK : ms_err_set(e, MS_EINPUT, "no name");
}

START_TEST(parse_file_hands_the_text_to_the_parser)
{
    char dir[256], path[300];
    temp_file(dir, sizeof dir, path, sizeof path, "in.txt", "a,b\n");
    ms_err e;
    size_t n = 99;
    ck_assert_int_eq(ms_parse_file(path, count_parser, &n, &e), MS_OK);
    ck_assert_uint_eq(n, 4);
    unlink(path);
    n = 99;
    ck_assert_int_eq(ms_parse_file(path, count_parser, &n, &e), MS_EINPUT);
    ck_assert_uint_eq(n, 99); /* untouched where the file cannot be read */
    ck_assert_ptr_nonnull(strstr(e.msg, path));
    rmdir(dir);
}
END_TEST

START_TEST(read_some_reads_to_the_end_and_names_errors)
{
    char dir[256], path[300];
    temp_file(dir, sizeof dir, path, sizeof path, "in.txt", "abc");
    ms_err e;
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    char buf[4];
    size_t got = 99;
    ck_assert_int_eq(ms_read_some(fd, buf, 2, &got, path, &e), MS_OK);
    ck_assert_uint_eq(got, 2);
    ck_assert_int_eq(ms_read_some(fd, buf, sizeof buf, &got, path, &e), MS_OK);
    ck_assert_uint_eq(got, 1);
    ck_assert_int_eq(buf[0], 'c');
    ck_assert_int_eq(ms_read_some(fd, buf, sizeof buf, &got, path, &e), MS_OK);
    ck_assert_uint_eq(got, 0);
    close(fd);
    ck_assert_int_eq(ms_read_some(-1, buf, sizeof buf, &got, "nofd", &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "nofd: read error"));
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(digests_match_known_vectors)
{
    char hex[MS_HASH_HEX_MAX];
    ms_err e;
    ck_assert_int_eq(ms_hash_mem("sha256", "abc", 3, hex, &e), MS_OK);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    ck_assert_int_eq(ms_hash_mem("md5", "abc", 3, hex, &e), MS_OK);
    ck_assert_str_eq(hex, "900150983cd24fb0d6963f7d28e17f72");
    ck_assert_int_eq(ms_hash_mem("sha1", "abc", 3, hex, &e), MS_OK);
    ck_assert_str_eq(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    ck_assert_int_eq(ms_hash_mem("crc", "abc", 3, hex, &e), MS_EUSAGE);
}
END_TEST

START_TEST(strict_number_parsing)
{
    uint64_t u;
    int64_t i, ns;
    double d;
    ck_assert_int_eq(ms_parse_u64("18446744073709551615", &u), 0);
    ck_assert(u == UINT64_MAX);
    ck_assert_int_eq(ms_parse_u64("18446744073709551616", &u), -1);
    ck_assert_int_eq(ms_parse_u64("-1", &u), -1);
    ck_assert_int_eq(ms_parse_u64("12x", &u), -1);
    ck_assert_int_eq(ms_parse_i64("-5", &i), 0);
    ck_assert_int_eq(i, -5);
    ck_assert_int_eq(ms_parse_double("1e3", &d), 0);
    ck_assert(d == 1000.0);
    ck_assert_int_eq(ms_parse_double("nan", &d), -1);
    ck_assert_int_eq(ms_parse_duration_ns("1.5ms", 0, &ns), 0);
    ck_assert_int_eq(ns, 1500000);
    ck_assert_int_eq(ms_parse_duration_ns("50us", 0, &ns), 0);
    ck_assert_int_eq(ns, 50000);
    ck_assert_int_eq(ms_parse_duration_ns("5", 0, &ns), -1);
    ck_assert_int_eq(ms_parse_duration_ns("5", 1000000, &ns), 0);
    ck_assert_int_eq(ns, 5000000);
    ck_assert_int_eq(ms_parse_duration_ns("5min", 0, &ns), -1);
}
END_TEST

static const char *LINE_SEED =
    ":::MLLOG {\"key\": \"effective_schedule_rng_seed\", \"value\": 18209322760996052031, "
    "\"time_ms\": 0.009948, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", "
    "\"metadata\": {\"is_error\": false, \"is_warning\": false, \"file\": \"x.cc\", \"line_no\": 1, "
    "\"pid\": 1, \"tid\": 1}}";

START_TEST(mllog_line_keeps_u64_seed_exact)
{
    ms_mllog_rec r;
    char msg[100];
    ck_assert_int_eq(ms_mllog_parse_line(LINE_SEED, strlen(LINE_SEED), &r, msg, sizeof msg), 1);
    ck_assert_str_eq(r.key, "effective_schedule_rng_seed");
    ck_assert_int_eq(r.kind, MS_JV_INT);
    uint64_t v;
    ck_assert_int_eq(ms_mllog_rec_u64(&r, &v), 0);
    ck_assert(v == 18209322760996052031ULL);
    ck_assert(fabs(r.time_ms - 0.009948) < 1e-12);
    ck_assert_int_eq(r.is_error, 0);
    free(r.key);
}
END_TEST

START_TEST(mllog_values_of_every_kind)
{
    const char *text =
        "garbage line\n"
        ":::MLLOG {\"key\": \"a\", \"value\": NaN, \"metadata\": {\"is_error\": true, \"is_warning\": false}}\n"
        ":::MLLOG {\"key\": \"b\", \"value\": 1.0, \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"c\", \"value\": 99999999999999999999999, \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"d\", \"value\": \"x\\\"y\\u00e9\", \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"e\", \"value\": [3,1,2], \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"a\", \"value\": 5, \"metadata\": {}}\n"
        ":::MLLOG {\"key\": \"bad\", \"value\": 1 2}\n"
        ":::MLLOG {\"key\": \"f\", \"value\": -Infinity}\r\n";
    ms_mllog log;
    ms_err e;
    ck_assert_int_eq(ms_mllog_parse(&log, text, strlen(text), "t", &e), MS_OK);
    ck_assert_uint_eq(log.nrecs, 7);
    ck_assert_uint_eq(log.nbad, 1);
    ck_assert_uint_eq(log.first_bad_line, 8);
    ck_assert_uint_eq(log.n_errors, 1);
    ck_assert_int_eq(log.first_line_is_record, 0);
    double d;
    ck_assert_int_eq(ms_mllog_get_double(&log, "a", &d), 0); /* first occurrence wins */
    ck_assert(isnan(d));
    ck_assert_int_eq(ms_mllog_find(&log, "b")->kind, MS_JV_REAL);
    ck_assert_int_eq(ms_mllog_find(&log, "c")->kind, MS_JV_BIGINT);
    char *s = ms_mllog_get_str(&log, "d");
    ck_assert_str_eq(s, "x\"y\xc3\xa9");
    free(s);
    uint64_t *arr;
    size_t n;
    ck_assert_int_eq(ms_mllog_rec_u64_list(ms_mllog_find(&log, "e"), &arr, &n), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert(arr[0] == 3 && arr[2] == 2);
    free(arr);
    ck_assert_int_eq(ms_mllog_get_double(&log, "f", &d), 0);
    ck_assert(isinf(d) && d < 0);
    ms_mllog_free(&log);
}
END_TEST

START_TEST(textlog_reads_loadgen_05_records)
{
    static const char log[] =
        "\"pid\": 22353, \"tid\": 22353, \"ts\": 8296ns : LoadgenVersionInfo:\n"
        "\"pid\": 22353, \"tid\": 22353, \"ts\": 8296ns : version : .5a1 @ 413dbabcb3\n"
        "\"pid\": 22353, \"tid\": 22353, \"ts\": 8296ns : build_date_utc   : 2019-10-10T19:48:25\n"
        "\"pid\": 22353, \"tid\": 22353, \"ts\": 8296ns : git_log :\n"
        "\n"
        "413dbab Merge pull request #489\n"
        "1682550 fix for 490\n"
        "\n"
        "\"pid\": 22353, \"tid\": 22353, \"ts\": 61794ns : \n"
        "\"pid\": 22353, \"tid\": 22353, \"ts\": 61794ns : Scenario : Single Stream\n"
        "\"pid\": 22353, \"tid\": 22353, \"ts\": 61794ns : target_latency (ns): 0\n"
        "\"pid\": 1, \"tid\": 2, \"ts\": 18446744073709551615ns : ERROR : Ran out of queries\n"
        "\"pid\": 1, \"tid\": 2, \"ts\": 99999999999999999999ns : broken\n"
        "\"pid\": 1, \"tid\": 2, \"ts\": 5ns : WARNING : slow\r\n";
    ck_assert_int_eq(ms_log_detect(log, sizeof log - 1), MS_LOGFMT_TEXT);
    ck_assert_int_eq(ms_log_detect(":::MLLOG {}", 11), MS_LOGFMT_MLLOG);
    ck_assert_int_eq(ms_log_detect("\n\nhello", 7), MS_LOGFMT_UNKNOWN);
    ms_textlog t;
    ms_err e;
    ck_assert_int_eq(ms_textlog_parse(&t, log, sizeof log - 1, &e), MS_OK);
    ck_assert_uint_eq(t.nrecs, 9);
    ck_assert_uint_eq(t.nbad, 1);
    ck_assert_uint_eq(t.first_bad_line, 13);
    ck_assert_uint_eq(t.n_errors, 1);
    ck_assert_uint_eq(t.n_warnings, 1);
    const ms_textlog_rec *r = ms_textlog_find(&t, "version");
    ck_assert_ptr_nonnull(r);
    char *v = ms_textlog_value(r);
    ck_assert_str_eq(v, ".5a1 @ 413dbabcb3");
    free(v);
    ck_assert_uint_eq(r->pid, 22353);
    ck_assert_uint_eq(r->ts_ns, 8296);
    ck_assert_uint_eq(r->line_no, 2);
    v = ms_textlog_value(ms_textlog_find(&t, "build_date_utc"));
    ck_assert_str_eq(v, "2019-10-10T19:48:25");
    free(v);
    /* a multi-line message: the value runs over its continuation lines */
    v = ms_textlog_value(ms_textlog_find(&t, "git_log"));
    ck_assert_str_eq(v, "413dbab Merge pull request #489\n1682550 fix for 490");
    free(v);
    v = ms_textlog_value(ms_textlog_find(&t, "Scenario"));
    ck_assert_str_eq(v, "Single Stream");
    free(v);
    v = ms_textlog_value(ms_textlog_find(&t, "target_latency (ns)"));
    ck_assert_str_eq(v, "0");
    free(v);
    r = ms_textlog_find(&t, "LoadgenVersionInfo");
    ck_assert(r && r->has_value && r->value_len == 0);
    r = ms_textlog_find(&t, "Ran out of queries");
    ck_assert(r && r->is_error && !r->has_value && r->ts_ns == UINT64_MAX);
    r = ms_textlog_find(&t, "slow");
    ck_assert(r && r->is_warning);
    ck_assert_ptr_null(ms_textlog_find(&t, "broken"));
    ms_textlog_free(&t);
}
END_TEST

START_TEST(mllog_rejects_deep_nesting)
{
    size_t depth = 10000;
    char *line = malloc(depth * 2 + 64);
    strcpy(line, ":::MLLOG {\"key\": \"k\", \"value\": ");
    size_t n = strlen(line);
    for (size_t i = 0; i < depth; i++)
        line[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        line[n++] = ']';
    line[n++] = '}';
    line[n] = '\0';
    ms_mllog_rec r;
    char msg[100];
    ck_assert_int_eq(ms_mllog_parse_line(line, n, &r, msg, sizeof msg), -1);
    ck_assert_ptr_nonnull(strstr(msg, "deep"));
    free(line);
}
END_TEST

/* Reference validity of "[e1,e2,...]" whose elements hold only digits: every element is "0" or
 * a digit string without a leading zero. */
static int ref_int_list_ok(const char *s, size_t n)
{
    if (n < 2 || s[0] != '[' || s[n - 1] != ']')
        return 0;
    if (n == 2)
        return 1;
    size_t i = 1;
    for (;;) {
        size_t st = i;
        while (i < n - 1 && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == st || (s[st] == '0' && i - st > 1))
            return 0;
        if (i == n - 1)
            return 1;
        if (s[i] != ',')
            return 0;
        i++;
    }
}

/* The vectorised integer-list and string scans take exactly what the byte-by-byte grammar
 * takes: random lists of digits and commas (leading zeros, empty elements, trailing commas at
 * every offset around the 16-byte steps), and strings with a quote, backslash or control
 * character at every offset. */
START_TEST(json_scan_fast_paths_match_the_grammar)
{
    unsigned seed = 12345;
    char buf[400], msg[100];
    for (int iter = 0; iter < 200000; iter++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = 1 + (seed >> 8) % 300;
        size_t n = 0;
        buf[n++] = '[';
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 16) % 23;
            buf[n++] = r < 4 ? ',' : r < 7 ? '0' : (char)('1' + r % 9);
        }
        buf[n++] = ']';
        const char *p = buf;
        int kind = ms_json_scan_value(&p, buf + n, 10, msg, sizeof msg);
        int ok = kind == MS_JV_ARRAY && p == buf + n;
        ck_assert_msg(ok == ref_int_list_ok(buf, n), "%.*s: scanner %d, grammar %d", (int)n, buf, ok,
                      ref_int_list_ok(buf, n));
    }
    static const char specials[] = {'"', '\\', '\n', '\x01', '\x1f', ' ', 'A', '\x7f'};
    for (size_t at = 0; at < 40; at++)
        for (size_t k = 0; k < sizeof specials; k++) {
            size_t n = 0;
            buf[n++] = '"';
            for (size_t i = 0; i < 40; i++)
                buf[n++] = i == at ? specials[k] : (char)('a' + i % 26);
            buf[n++] = '"';
            const char *p = buf;
            int kind = ms_json_scan_value(&p, buf + n, 10, msg, sizeof msg);
            unsigned char c = (unsigned char)specials[k];
            if (c >= 0x20 && c != '"' && c != '\\') {
                ck_assert_int_eq(kind, MS_JV_STRING);
                ck_assert_ptr_eq(p, buf + n);
            } else if (c == '"') {
                ck_assert_int_eq(kind, MS_JV_STRING);
                ck_assert_ptr_eq(p, buf + at + 2);
            } else if (c == '\\') {
                /* "\" followed by a letter: only b f n r t u are escapes */
                char next = (char)('a' + (at + 1) % 26);
                int valid = at < 39 && strchr("bfnrt", next);
                ck_assert_int_eq(kind < 0, !valid);
            } else {
                ck_assert_int_eq(kind, -1);
                ck_assert_str_eq(msg, "control character in a string");
            }
        }
}
END_TEST

/* Long integer lists (the loaded_qsl_set of detail logs, where the 64-byte block scans run):
 * valid lists of random numbers with one defect at a random offset (a leading zero, an empty
 * element, a trailing comma, a zero byte or digit put in place of a comma) are taken or refused
 * exactly as the byte-by-byte grammar says, at every position relative to the blocks and at
 * every SIMD level the CPU has. */
START_TEST(json_scan_long_int_lists_match_the_grammar)
{
    unsigned seed = 777;
    static char buf[4200];
    char msg[100];
#define RND() (seed = seed * 1103515245u + 12345u, (seed >> 8))
    for (int iter = 0; iter < 20000; iter++) {
        size_t target = 64 + RND() % 4000, n = 0;
        buf[n++] = '[';
        while (n < target) {
            unsigned digits = 1 + RND() % 6;
            buf[n++] = RND() % 10 == 0 ? '0' : (char)('1' + RND() % 9);
            if (buf[n - 1] != '0')
                for (unsigned k = 1; k < digits; k++)
                    buf[n++] = (char)('0' + RND() % 10);
            buf[n++] = ',';
        }
        buf[n - 1] = ']';
        unsigned defect = RND() % 6;
        size_t at = 1 + RND() % (n - 2);
        switch (defect) {
        case 0: /* a digit becomes '0' (a leading zero when it starts a number) */
            if (buf[at] != ',')
                buf[at] = '0';
            break;
        case 1: /* a digit becomes ',' (maybe an empty element) */
            buf[at] = ',';
            break;
        case 2: /* a comma becomes a digit (a longer number, maybe with a leading zero) */
            if (buf[at] == ',')
                buf[at] = (char)('0' + RND() % 10);
            break;
        case 3: /* a trailing comma */
            buf[n - 1] = ',';
            buf[n++] = ']';
            break;
        case 4: /* no defect */
            break;
        default: /* a zero after a comma: "0" followed by a digit somewhere */
            if (buf[at] == ',' && at + 2 < n - 1 && buf[at + 2] != ',' && buf[at + 2] != ']')
                buf[at + 1] = '0';
            break;
        }
        for (int l = MS_SIMD_NONE; l <= ms_simd_level(); l++) {
            const char *p = buf;
            int kind = ms_json_scan_value_simd(&p, buf + n, 10, l, msg, sizeof msg);
            int ok = kind == MS_JV_ARRAY && p == buf + n;
            ck_assert_msg(ok == ref_int_list_ok(buf, n), "iter %d defect %u at %zu of %zu, SIMD "
                          "level %d: scanner %d, grammar %d", iter, defect, at, n, l, ok,
                          ref_int_list_ok(buf, n));
        }
    }
#undef RND
}
END_TEST

/* Two scans of one line found the same record */
static void same_record(const ms_mllog_rec *r1, const char *k1, size_t kl1, const ms_mllog_rec *r2,
                        const char *k2, size_t kl2)
{
    ck_assert_ptr_eq(k1, k2);
    ck_assert_uint_eq(kl1, kl2);
    ck_assert_int_eq(r1->kind, r2->kind);
    ck_assert_ptr_eq(r1->raw, r2->raw);
    ck_assert_uint_eq(r1->raw_len, r2->raw_len);
    ck_assert_int_eq(r1->is_error, r2->is_error);
    ck_assert_int_eq(r1->is_warning, r2->is_warning);
}

/* The memo of ms_mllog_scan_line_memo never changes a result: lines made from a few standard
 * records (errors and warnings, escaped quotes in the file name, a key text inside a string
 * value) with random one-byte changes, read in sequence with the memo, give what the stateless
 * scan gives for each line alone (return, key, value, is_error, is_warning). */
START_TEST(mllog_memo_scan_matches_the_stateless_scan)
{
    static const char *const base[] = {
        ":::MLLOG {\"key\": \"a\", \"value\": 1, \"time_ms\": 0.5, \"namespace\": \"mlperf::logging\", "
        "\"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": false, \"is_warning\": false, "
        "\"file\": \"loadgen.cc\", \"line_no\": 12, \"pid\": 7, \"tid\": 7}}",
        ":::MLLOG {\"key\": \"b\", \"value\": \"x \\\"key\\\": \\\"a\\\"\", \"time_ms\": 1, \"namespace\": "
        "\"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": true, "
        "\"is_warning\": false, \"file\": \"loadgen.cc\", \"line_no\": 3, \"pid\": 7, \"tid\": 7}}",
        ":::MLLOG {\"key\": \"c\", \"value\": [1,2], \"time_ms\": 2, \"namespace\": \"mlperf::logging\", "
        "\"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": false, \"is_warning\": true, "
        "\"file\": \"a \\\"q\\\" b.cc\", \"line_no\": 4, \"pid\": 7, \"tid\": 7}}",
    };
    static const char repl[] = {'"', '\\', ' ', 'x', '1', '}', ',', 't', 'f', '\x01', (char)0xc3};
    unsigned seed = 4242;
    ms_mllog_memo memo;
    memset(&memo, 0, sizeof memo);
    char line[600], msg1[200], msg2[200];
    for (int iter = 0; iter < 200000; iter++) {
        seed = seed * 1103515245u + 12345u;
        const char *b = base[(seed >> 8) % 3];
        size_t n = strlen(b);
        memcpy(line, b, n);
        seed = seed * 1103515245u + 12345u;
        if ((seed >> 8) % 4) { /* three lines in four changed */
            size_t at = (seed >> 12) % n;
            seed = seed * 1103515245u + 12345u;
            line[at] = repl[(seed >> 8) % sizeof repl];
        }
        ms_mllog_rec r1, r2;
        const char *k1, *k2;
        size_t kl1, kl2;
        int a = ms_mllog_scan_line(line, n, &r1, &k1, &kl1, msg1, sizeof msg1);
        int c = ms_mllog_scan_line_memo(line, n, &r2, &k2, &kl2, &memo, msg2, sizeof msg2);
        ck_assert_int_eq(a, c);
        if (a < 0)
            ck_assert_str_eq(msg1, msg2);
        if (a <= 0)
            continue;
        same_record(&r1, k1, kl1, &r2, k2, kl2);
    }
}
END_TEST

/* ---- Python's json grammar, byte by byte: the reference the fast scans are held to ---- */
/* The official log parser (MLCommons submission_checker log_parser.py, MLPerfLog) json.loads
 * every ":::MLLOG" record and rejects the log for one it cannot load. This is json.loads on one
 * value (CPython Lib/json/decoder.py, scanner.py: py_scanstring in strict mode, NUMBER_RE, the
 * NaN / Infinity / -Infinity constants); bytes >= 0x80 are taken in strings (the reader checks
 * UTF-8 per line); nesting is limited like ms_json_scan_value (256 levels in a record's field;
 * Python's recursion limit allows a few hundred more). */
typedef struct refp {
    const char *p, *end;
} refp;

static void ref_ws(refp *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static int ref_lit(refp *r, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(r->end - r->p) < n || memcmp(r->p, w, n))
        return 0;
    r->p += n;
    return 1;
}

static int ref_string(refp *r)
{
    if (r->p >= r->end || *r->p != '"')
        return 0;
    r->p++;
    while (r->p < r->end) {
        unsigned char c = (unsigned char)*r->p++;
        if (c == '"')
            return 1;
        if (c < 0x20)
            return 0;
        if (c == '\\') {
            if (r->p >= r->end)
                return 0;
            char e = *r->p++;
            if (e == 'u') {
                for (int i = 0; i < 4; i++)
                    if (r->p >= r->end || !isxdigit((unsigned char)*r->p++))
                        return 0;
            } else if (!strchr("\"\\/bfnrt", e) || !e) {
                return 0;
            }
        }
    }
    return 0;
}

static int ref_digits(refp *r)
{
    const char *s = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
        r->p++;
    return r->p > s;
}

static int ref_value(refp *r, int depth)
{
    ref_ws(r);
    if (r->p >= r->end || depth <= 0)
        return 0;
    char c = *r->p;
    if (c == '"')
        return ref_string(r);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        r->p++;
        ref_ws(r);
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return 1;
        }
        for (;;) {
            if (c == '{') {
                ref_ws(r);
                if (!ref_string(r))
                    return 0;
                ref_ws(r);
                if (r->p >= r->end || *r->p != ':')
                    return 0;
                r->p++;
            }
            if (!ref_value(r, depth - 1))
                return 0;
            ref_ws(r);
            if (r->p < r->end && *r->p == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->end && *r->p == close) {
                r->p++;
                return 1;
            }
            return 0;
        }
    }
    if (ref_lit(r, "true") || ref_lit(r, "false") || ref_lit(r, "null") || ref_lit(r, "NaN") ||
        ref_lit(r, "Infinity") || ref_lit(r, "-Infinity"))
        return 1;
    if (*r->p == '-')
        r->p++;
    if (r->p < r->end && *r->p == '0')
        r->p++;
    else if (!ref_digits(r))
        return 0;
    if (r->p < r->end && *r->p == '.') {
        r->p++;
        if (!ref_digits(r))
            return 0;
    }
    if (r->p < r->end && (*r->p == 'e' || *r->p == 'E')) {
        r->p++;
        if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
            r->p++;
        if (!ref_digits(r))
            return 0;
    }
    return 1;
}

/* 1: a valid record line (":::MLLOG" and one JSON object, right-stripped), -1: invalid */
static int ref_record(const char *line, size_t n)
{
    const char *end = line + n;
    while (end > line + 8 && isspace((unsigned char)end[-1]))
        end--;
    refp r = {line + 8, end};
    ref_ws(&r);
    if (r.p >= r.end || *r.p != '{')
        return -1;
    if (!ref_value(&r, 257)) /* the record's object, then 256 levels as the scanner allows */
        return -1;
    ref_ws(&r);
    return r.p == r.end ? 1 : -1;
}

/* A random value for a record: long integer lists and objects of plain strings (the 64-byte
 * block scans), strings with escapes, tricky numbers, deep arrays, literals */
static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

static void gen_value(ms_buf *b, unsigned *seed)
{
    static const char *const nums[] = {
        "0", "-0", "01", "-01", "1.5", "1.", ".5", "1e5", "1E+5", "1e-", "1e", "NaN", "-NaN", "nan",
        "Infinity", "-Infinity", "infinity", "+1", "18446744073709551615", "18446744073709551616",
        "-9223372036854775808", "-9223372036854775809", "123456789012345678901234567890",
        "1.0e-400", "0.000", "-", "00", "0x10", "1_000", "2.5E+308", "true", "false", "null",
        "tru", "nul", "[]", "{}", "[ ]", "{ }", "[1, 2 ,3]", "{\"a\" : 1 , \"b\":[true]}", "[,]",
        "[1,]", "{\"a\":}", "{1:2}", "\"\\u00e9\\ud83d\\ude00\"", "\"\\u12\"", "\"\\x\"",
        "\"a\\/b\"", "\"tab\there\"", "\"\xc3\xa9\"", "\"\xff\xfe\"", "\"\\\"\"", "\"\\\\\""};
    unsigned kind = rnd(seed) % 6;
    if (kind == 0) { /* an integer list, maybe long */
        unsigned n = rnd(seed) % 4 ? 1 + rnd(seed) % 3000 : rnd(seed) % 5;
        ms_buf_putc(b, '[');
        for (unsigned i = 0; i < n; i++)
        {
            unsigned big = rnd(seed) % 4;
            ms_buf_printf(b, "%s%u", i ? "," : "", big ? rnd(seed) % 50000 : rnd(seed) % 10);
        }
        ms_buf_putc(b, ']');
    } else if (kind == 1) { /* loadgen_file_sha1: an object of plain strings */
        unsigned n = rnd(seed) % 200;
        ms_buf_putc(b, '{');
        for (unsigned i = 0; i < n; i++)
        {
            unsigned h[5];
            for (int j = 0; j < 5; j++)
                h[j] = rnd(seed);
            ms_buf_printf(b, "%s\"/loadgen/src/file_%04u.cc\":\"%08x%08x%08x%08x%08x\"", i ? "," : "",
                          i, h[0], h[1], h[2], h[3], h[4]);
        }
        ms_buf_putc(b, '}');
    } else if (kind == 2) { /* a string */
        unsigned n = rnd(seed) % 200;
        ms_buf_putc(b, '"');
        for (unsigned i = 0; i < n; i++) {
            unsigned r = rnd(seed) % 40;
            if (r == 0)
                ms_buf_puts(b, "\\\"");
            else if (r == 1)
                ms_buf_puts(b, "\\u00e9");
            else if (r == 2)
                ms_buf_puts(b, "\xc3\xa9");
            else
                ms_buf_putc(b, (char)('a' + r % 26));
        }
        ms_buf_putc(b, '"');
    } else if (kind == 3) { /* deep arrays */
        unsigned d = rnd(seed) % 300;
        for (unsigned i = 0; i < d; i++)
            ms_buf_putc(b, '[');
        for (unsigned i = 0; i < d; i++)
            ms_buf_putc(b, ']');
        if (!d)
            ms_buf_puts(b, "[]");
    } else {
        ms_buf_puts(b, nums[rnd(seed) % (sizeof nums / sizeof *nums)]);
    }
}

/* Every SIMD level of the record scanner (none, SSE2, AVX2, AVX-512BW, up to what this CPU
 * has), each with its own memo over the same sequence of lines, gives the same result as the
 * others, and the validity Python's json module gives: records in the LoadGen's layout and in
 * others, with random values (long integer lists, objects of plain strings, escapes, NaN,
 * leading zeros, huge and malformed numbers, deep nesting) and random damage (a byte replaced
 * by a quote, backslash, control, digit, comma, bracket or high byte; a byte inserted or
 * deleted; the line cut short). */
START_TEST(mllog_simd_levels_match_python_grammar)
{
    static const char specials[] = {'"', '\\', '\n', '\x01', '\x1f', ' ', '0', '1', ',', ':',
                                    '[', ']', '{', '}', '-', '.', 'e', 'N', (char)0x80, (char)0xff,
                                    '\t', '\r', '\v'};
    unsigned seed = 9001;
    int best = ms_simd_level();
    ms_mllog_memo memo[MS_SIMD_AVX512 + 1];
    memset(memo, 0, sizeof memo);
    size_t nvalid = 0, ninvalid = 0;
    for (int iter = 0; iter < 30000; iter++) {
        ms_buf b = MS_BUF_INIT;
        unsigned form = rnd(&seed) % 8;
        if (form < 6) {
            ms_buf_printf(&b, ":::MLLOG {\"key\": \"k%u\", \"value\": ", form);
            gen_value(&b, &seed);
            ms_buf_printf(&b, ", \"time_ms\": %u.%06u, \"namespace\": \"mlperf::logging\", "
                          "\"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": %s, "
                          "\"is_warning\": false, \"file\": \"/src/loadgen.cc\", \"line_no\": %u, "
                          "\"pid\": 7, \"tid\": 7}}",
                          iter, iter % 1000, form == 5 ? "true" : "false", form < 3 ? 100 : iter);
        } else if (form == 6) { /* another layout: the general parser */
            ms_buf_puts(&b, ":::MLLOG {\"value\":");
            gen_value(&b, &seed);
            ms_buf_puts(&b, " , \"key\" : \"other\",\"metadata\":{\"is_error\":true}} ");
        } else {
            ms_buf_puts(&b, ":::MLLOG ");
            gen_value(&b, &seed);
        }
        ck_assert_ptr_nonnull(b.data);
        /* damage in two lines of three */
        unsigned dmg = rnd(&seed) % 6;
        size_t at = 8 + rnd(&seed) % (b.len - 8);
        char sc = specials[rnd(&seed) % sizeof specials];
        if (dmg == 0 || dmg == 1) {
            b.data[at] = sc;
        } else if (dmg == 2) {
            ms_buf_putc(&b, 'x');
            memmove(b.data + at + 1, b.data + at, b.len - at - 1);
            b.data[at] = sc;
        } else if (dmg == 3) {
            memmove(b.data + at, b.data + at + 1, b.len - at - 1);
            b.len--;
        } else if (dmg == 4 && !(iter % 3)) {
            b.len = at;
        }
        int want = ref_record(b.data, b.len);
        want > 0 ? nvalid++ : ninvalid++;
        ms_mllog_rec r0, r;
        const char *k0, *k;
        size_t kl0, kl;
        char msg0[200], msg[200];
        int got0 = ms_mllog_scan_line_simd(b.data, b.len, &r0, &k0, &kl0, &memo[0], MS_SIMD_NONE,
                                           msg0, sizeof msg0);
        ck_assert_msg(got0 == want, "line %d (%.*s): scalar scan %d, Python's grammar %d", iter,
                      (int)(b.len > 300 ? 300 : b.len), b.data, got0, want);
        for (int l = 1; l <= best; l++) {
            int got = ms_mllog_scan_line_simd(b.data, b.len, &r, &k, &kl, &memo[l], l, msg,
                                              sizeof msg);
            ck_assert_msg(got == got0, "line %d: level %d gives %d, the scalar scan %d", iter, l,
                          got, got0);
            if (got < 0)
                ck_assert_str_eq(msg, msg0);
            if (got <= 0)
                continue;
            same_record(&r, k, kl, &r0, k0, kl0);
        }
        /* and the stateless scan (the CPU's own level, no memo) */
        int got = ms_mllog_scan_line(b.data, b.len, &r, &k, &kl, msg, sizeof msg);
        ck_assert_int_eq(got, got0);
        if (got > 0) {
            ck_assert_ptr_eq(r.raw, r0.raw);
            ck_assert_int_eq(r.is_error, r0.is_error);
        }
        ms_buf_free(&b);
    }
    /* both outcomes well represented */
    ck_assert_uint_gt(nvalid, 5000);
    ck_assert_uint_gt(ninvalid, 5000);
}
END_TEST

/* Walks a directory tree calling fn on every mlperf_log_detail.txt. */
static void walk_detail_logs(const char *dir, void (*fn)(const char *), int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk_detail_logs(p, fn, count);
        else if (!strcmp(de->d_name, "mlperf_log_detail.txt")) {
            fn(p);
            (*count)++;
        }
    }
    closedir(d);
}

static void check_one_detail_log(const char *path)
{
    ms_mllog log;
    ms_err e;
    ck_assert_msg(ms_mllog_load(&log, path, 0, &e) == MS_OK, "%s", e.msg);
    ck_assert_msg(log.nbad == 0, "%s:%zu: %s", path, log.first_bad_line, log.first_bad_msg);
    ck_assert_msg(log.nrecs > 20, "%s: only %zu records", path, log.nrecs);
    ck_assert(log.first_line_is_record);
    /* every log names its scenario and seeds exactly */
    char *scen = ms_mllog_get_str(&log, "effective_scenario");
    ck_assert_msg(scen != NULL, "%s: no effective_scenario", path);
    free(scen);
    uint64_t seed;
    ck_assert_msg(ms_mllog_get_u64(&log, "effective_qsl_rng_seed", &seed) == 0, "%s", path);
    ck_assert_msg(ms_mllog_get_u64(&log, "effective_schedule_rng_seed", &seed) == 0, "%s", path);
    ms_mllog_free(&log);
}

START_TEST(mllog_parses_every_shared_detail_log)
{
    MS_SKIP_IF_NO_SHARED();
    char dir[512];
    int count = 0;
    walk_detail_logs(ms_test_shared_path(dir, sizeof dir, "testdata"), check_one_detail_log, &count);
    ck_assert_int_gt(count, 50);
}
END_TEST

/* a LoadGen 0.5/0.7 text detail log of the published rounds: every "pid" line a record, the
 * version, scenario and seeds readable */
static void check_one_text_log(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s", path);
    char *buf = malloc(64u << 20);
    ck_assert(buf != NULL);
    size_t n = fread(buf, 1, 64u << 20, f);
    fclose(f);
    if (n == 0) { /* v0.7 publishes one empty detail log (a compliance run) */
        free(buf);
        return;
    }
    ck_assert_int_eq(ms_log_detect(buf, n), MS_LOGFMT_TEXT);
    ms_textlog t;
    ms_err e;
    ck_assert_int_eq(ms_textlog_parse(&t, buf, n, &e), MS_OK);
    free(buf);
    ck_assert_msg(t.nbad == 0, "%s:%zu: malformed record prefix", path, t.first_bad_line);
    ck_assert_msg(t.nrecs > 20, "%s: only %zu records", path, t.nrecs);
    ck_assert_msg(ms_textlog_find(&t, "version") != NULL, "%s: no version", path);
    ck_assert_msg(ms_textlog_find(&t, "Scenario") != NULL, "%s: no Scenario", path);
    ck_assert_msg(ms_textlog_find(&t, "qsl_rng_seed") != NULL, "%s: no qsl_rng_seed", path);
    ms_textlog_free(&t);
}

START_TEST(textlog_parses_every_shared_text_log)
{
    MS_SKIP_IF_NO_SHARED();
    char dir[512];
    int count = 0;
    walk_detail_logs(ms_test_shared_path(dir, sizeof dir, "rounds/v0.5/tree"), check_one_text_log,
                     &count);
    walk_detail_logs(ms_test_shared_path(dir, sizeof dir, "rounds/v0.7/tree"), check_one_text_log,
                     &count);
    ck_assert_int_gt(count, 50);
}
END_TEST

/* common/lazylib.h: a library that is absent gives an error naming it, its shared object, the
 * package and what needed it; a present one resolves every symbol; the outcome is kept. */
START_TEST(lazylib_loads_or_names_the_missing_library)
{
    static const char *const absent_syms[] = {"nothing", NULL};
    static void (*absent_slots[1])(void);
    ms_lazylib absent = {"libmlsubmit-absent", "libmlsubmit-absent.so.7", "mlsubmit-absent-pkg", absent_syms,
                         absent_slots, PTHREAD_MUTEX_INITIALIZER, 0, ""};
    ms_err e = {0};
    ck_assert_int_eq(ms_lazylib_load(&absent, "the frobnicator", &e), MS_ERUNTIME);
    ck_assert_ptr_nonnull(strstr(e.msg, "the frobnicator needs libmlsubmit-absent (libmlsubmit-absent.so.7)"));
    ck_assert_ptr_nonnull(strstr(e.msg, "install the Debian package mlsubmit-absent-pkg"));
    ms_err_clear(&e);
    ck_assert_int_eq(ms_lazylib_load(&absent, "again", &e), MS_ERUNTIME); /* kept, not retried */
    ck_assert_ptr_nonnull(strstr(e.msg, "again needs libmlsubmit-absent"));

    static const char *const m_syms[] = {"cos", "sqrt", NULL};
    static void (*m_slots[2])(void);
    ms_lazylib libm_ok = {"libm", "libm.so.6", "libc6", m_syms, m_slots, PTHREAD_MUTEX_INITIALIZER, 0, ""};
    ms_err_clear(&e);
    ck_assert_int_eq(ms_lazylib_load(&libm_ok, "a test", &e), MS_OK);
    double (*sq)(double) = (double (*)(double))ms_lazylib_slots(&libm_ok)[1];
    ck_assert(sq(49.0) == 7.0);

    static const char *const bad_syms[] = {"cos", "ms_no_such_function", NULL};
    static void (*bad_slots[2])(void);
    ms_lazylib libm_bad = {"libm", "libm.so.6", "libc6", bad_syms, bad_slots, PTHREAD_MUTEX_INITIALIZER, 0, ""};
    ms_err_clear(&e);
    ck_assert_int_eq(ms_lazylib_load(&libm_bad, "a test", &e), MS_ERUNTIME);
    ck_assert_ptr_nonnull(strstr(e.msg, "no function ms_no_such_function"));
}
END_TEST

/* The three libraries the binary no longer links load on demand, and their functions are called
 * under their own names (the renaming macros of common/lazy_<lib>.h). */
/* The digests' implementations are fetched once per process (common/hash.c): threads that start
 * hashing together all get the right digest, every algorithm. */
static void *hash_many(void *arg)
{
    static const char *const algo[] = {"md5", "sha1", "sha256"};
    static const char *const want[] = {
        "900150983cd24fb0d6963f7d28e17f72", "a9993e364706816aba3e25717850c26c9cd0d89d",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"};
    long bad = 0;
    for (int r = 0; r < 200; r++) {
        int i = (int)(((long)(intptr_t)arg + r) % 3);
        char hex[65];
        ms_err e;
        if (ms_hash_mem(algo[i], "abc", 3, hex, &e) != MS_OK || strcmp(hex, want[i]))
            bad++;
    }
    return (void *)(intptr_t)bad;
}

START_TEST(hash_digests_from_many_threads_agree)
{
    pthread_t th[8];
    for (long i = 0; i < 8; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, hash_many, (void *)(intptr_t)i), 0);
    for (int i = 0; i < 8; i++) {
        void *bad;
        pthread_join(th[i], &bad);
        ck_assert_int_eq((int)(intptr_t)bad, 0);
    }
}
END_TEST

/* --low-latency's request: held (the device open) and dropped where this process may write the
 * device; elsewhere an error naming the device, and nothing held */
START_TEST(pmqos_holds_or_names_the_device)
{
    ms_pmqos q = MS_PMQOS_INIT;
    ms_err e;
    int may = access("/dev/cpu_dma_latency", W_OK) == 0;
    int rc = ms_pmqos_hold(&q, 0, &e);
    if (may) {
        ck_assert_int_eq(rc, MS_OK);
        ck_assert_int_ge(q.fd, 0);
        char link[64], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%d", q.fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        ck_assert_int_gt(n, 0);
        target[n] = '\0';
        ck_assert_str_eq(target, "/dev/cpu_dma_latency");
        ck_assert_int_eq(ms_pmqos_hold(&q, 0, &e), MS_OK); /* again: the old request is dropped */
    } else {
        ck_assert_int_eq(rc, MS_ERUNTIME);
        ck_assert_ptr_nonnull(strstr(e.msg, "/dev/cpu_dma_latency"));
        ck_assert_int_eq(q.fd, -1);
    }
    ms_pmqos_release(&q);
    ck_assert_int_eq(q.fd, -1);
    ms_pmqos_release(&q); /* twice: nothing */
}
END_TEST

START_TEST(lazy_libraries_call_through_their_own_names)
{
    ms_err e = {0};
    ck_assert_int_eq(ms_lazy_curl_load("a test", &e), MS_OK);
    ck_assert_str_eq(curl_easy_strerror(CURLE_OK), "No error");
    ck_assert_int_eq(ms_lazy_mhd_load("a test", &e), MS_OK);
    struct MHD_Response *r = MHD_create_response_from_buffer(2, (void *)"ok", MHD_RESPMEM_PERSISTENT);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(MHD_add_response_header(r, "X-Test", "1"), MHD_YES);
    MHD_destroy_response(r);
    ck_assert_int_eq(ms_lazy_archive_load("a test", &e), MS_OK);
    struct archive_entry *en = archive_entry_new();
    ck_assert_ptr_nonnull(en);
    archive_entry_set_pathname(en, "a/b.txt");
    ck_assert_str_eq(archive_entry_pathname(en), "a/b.txt");
    archive_entry_free(en);
    ck_assert_int_eq(ms_lazy_crypto_load("a test", &e), MS_OK);
    unsigned char dig[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    ck_assert(EVP_Digest("abc", 3, dig, &dlen, EVP_sha256(), NULL));
    ck_assert_int_eq(dlen, 32);
    ck_assert_int_eq(dig[0], 0xba); /* SHA-256("abc") = ba7816bf... */
    ck_assert_int_eq(dig[1], 0x78);
}
END_TEST

/* The table hash: a function of the bytes only (any alignment), the length included (a
 * trailing zero byte changes it), and spread over the top and the low bits alike */
START_TEST(hash_bytes_for_tables)
{
    char a[64], b[72];
    for (int i = 0; i < 64; i++)
        a[i] = (char)('a' + i % 26);
    uint64_t top = 0, low = 0;
    for (size_t n = 0; n <= 48; n++) {
        memcpy(b + 3, a, n);
        ck_assert(ms_hash_bytes(a, n) == ms_hash_bytes(b + 3, n));
        b[3 + n] = '\0';
        ck_assert(ms_hash_bytes(b + 3, n) != ms_hash_bytes(b + 3, n + 1));
        if (n) {
            char c = a[n - 1];
            a[n - 1] ^= 1;
            ck_assert(ms_hash_bytes(a, n) != ms_hash_bytes(b + 3, n));
            a[n - 1] = c;
        }
        top |= 1ULL << (ms_hash_bytes(a, n) >> 58);
        low |= 1ULL << (ms_hash_bytes(a, n) & 63);
    }
    /* 49 hashes hit many of the 64 shards (top bits) and slots (low bits) */
    ck_assert_int_ge(__builtin_popcountll(top), 20);
    ck_assert_int_ge(__builtin_popcountll(low), 20);
}
END_TEST

static Suite *common_suite(void)
{
    Suite *s = suite_create("common");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, buf_grows_and_formats);
    tcase_add_test(tc, array_growth_helper);
    tcase_add_test(tc, path_join_normalises_slashes);
    tcase_add_test(tc, atomic_file_commit_and_abort);
    tcase_add_test(tc, read_file_names_missing_path);
    tcase_add_test(tc, read_file_whole_with_and_without_a_size);
    tcase_add_test(tc, sweep_stale_temps_of_dead_and_zombie_writers);
    tcase_add_test(tc, parse_file_hands_the_text_to_the_parser);
    tcase_add_test(tc, read_some_reads_to_the_end_and_names_errors);
    tcase_add_test(tc, digests_match_known_vectors);
    tcase_add_test(tc, strict_number_parsing);
    tcase_add_test(tc, mllog_line_keeps_u64_seed_exact);
    tcase_add_test(tc, mllog_values_of_every_kind);
    tcase_add_test(tc, mllog_rejects_deep_nesting);
    tcase_add_test(tc, textlog_reads_loadgen_05_records);
    tcase_add_test(tc, json_scan_fast_paths_match_the_grammar);
    tcase_add_test(tc, json_scan_long_int_lists_match_the_grammar);
    tcase_add_test(tc, mllog_memo_scan_matches_the_stateless_scan);
    tcase_add_test(tc, mllog_simd_levels_match_python_grammar);
    tcase_add_test(tc, mllog_parses_every_shared_detail_log);
    tcase_add_test(tc, textlog_parses_every_shared_text_log);
    tcase_add_test(tc, lazylib_loads_or_names_the_missing_library);
    tcase_add_test(tc, lazy_libraries_call_through_their_own_names);
    tcase_add_test(tc, hash_digests_from_many_threads_agree);
    tcase_add_test(tc, pmqos_holds_or_names_the_device);
    tcase_add_test(tc, hash_bytes_for_tables);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(common_suite)
