/* Checker internals: the streaming detail-log reader, rules lookups (model mapping, scenario
 * aliases, scenario-specific targets, thresholds as IEEE products), files_diff. The data
 * folder lookup: test_rules.c. End-to-end behaviour is covered by tests/e2e/test_check_*.sh. */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checker/internal.h"
#include "testutil.h"

static char tmpdir[256];

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

#define REC(k, v) ":::MLLOG {\"key\": \"" k "\", \"value\": " v ", \"time_ms\": 1.5, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": false, \"is_warning\": false}}"
#define ERR(k, v) ":::MLLOG {\"key\": \"" k "\", \"value\": " v ", \"time_ms\": 1.5, \"namespace\": \"mlperf::logging\", \"event_type\": \"POINT_IN_TIME\", \"metadata\": {\"is_error\": true, \"is_warning\": false}}"

START_TEST(dlog_values_exact_and_first_wins)
{
    ms_test_tmpdir(tmpdir, sizeof tmpdir);
    char path[300];
    snprintf(path, sizeof path, "%s/log.txt", tmpdir);
    const char text[] =
        REC("effective_scenario", "\"Offline\"") "\n"
        "garbage line that is ignored\n"
        REC("effective_sample_index_rng_seed", "14771362308971278857") "\r\n"
        REC("result_samples_per_second", "757.865") "\r"
        REC("result_samples_per_second", "1.0") "\n"
        REC("nan_value", "NaN") "\n"
        REC("big", "123456789012345678901234567890") "\n"
        ERR("error_invalid_config", "\"bad \\u00e9 thing\"") "\n"
        REC("result_validity", "\"VALID\"");
    write_file(path, text, sizeof text - 1);
    ck_dlog d;
    ms_err e;
    ck_assert_int_eq(ck_dlog_load(&d, path, &e), MS_OK);
    ck_assert_uint_eq(d.nbad, 0);
    ck_assert(d.first_line_is_record);
    uint64_t seed;
    ck_assert_int_eq(ck_dlog_u64(&d, "effective_sample_index_rng_seed", &seed), 0);
    ck_assert(seed == 14771362308971278857ULL);
    double v;
    ck_assert_int_eq(ck_dlog_num(&d, "result_samples_per_second", &v), 0);
    ck_assert(v == 757.865);  /* the \r-terminated record is separate and the first wins */
    ck_assert_int_eq(ck_dlog_get(&d, "result_samples_per_second")->line, 4);
    ck_assert_int_eq(ck_dlog_num(&d, "nan_value", &v), 0);
    ck_assert(isnan(v));
    char *t = ck_dlog_text(&d, "big");
    ck_assert_str_eq(t, "123456789012345678901234567890");
    free(t);
    t = ck_dlog_text(&d, "absent");
    ck_assert_str_eq(t, "None");
    free(t);
    ck_assert_uint_eq(d.n_error_recs, 1);
    ck_assert_str_eq(d.errors[0], "bad \xc3\xa9 thing");
    char *s = ck_dlog_str(&d, "result_validity");
    ck_assert_str_eq(s, "VALID");
    free(s);
    ck_assert(ck_dlog_truthy(&d, "effective_scenario"));
    ck_assert(!ck_dlog_truthy(&d, "absent"));
    ck_dlog_free(&d);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

START_TEST(dlog_malformed_long_and_huge_lines)
{
    ms_test_tmpdir(tmpdir, sizeof tmpdir);
    char path[300];
    snprintf(path, sizeof path, "%s/log.txt", tmpdir);
    /* a 600 KB record (longer than the read block) parses; a malformed record is counted */
    size_t big = 600 * 1024;
    ms_buf b = MS_BUF_INIT;
    ck_assert_int_eq(ms_buf_puts(&b, ":::MLLOG {\"key\": \"loaded_qsl_set\", \"value\": [0"), 0);
    while (b.len < big)
        ck_assert_int_eq(ms_buf_puts(&b, ",12345"), 0);
    ck_assert_int_eq(ms_buf_puts(&b, "], \"time_ms\": 1}\n" REC("after", "7") "\n"
                                     ":::MLLOG {\"key\": \"bad\", \"value\": tru}\n"), 0);
    write_file(path, b.data, b.len);
    ms_buf_free(&b);
    ck_dlog d;
    ms_err e;
    ck_assert_int_eq(ck_dlog_load(&d, path, &e), MS_OK);
    ck_assert_uint_eq(d.nbad, 1);
    ck_assert_uint_eq(d.first_bad_line, 3);
    int64_t x;
    ck_assert_int_eq(ck_dlog_i64(&d, "after", &x), 0);
    ck_assert_int_eq(x, 7);
    ck_assert_ptr_nonnull(ck_dlog_get(&d, "loaded_qsl_set"));
    ck_assert_ptr_null(ck_dlog_get(&d, "loaded_qsl_set")->raw); /* too large to keep */
    ck_dlog_free(&d);

    /* a 20 MB line without a newline: skipped with bounded memory, reported if a record */
    int fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, ":::MLLOG ", 9), 9);
    char chunk[65536];
    memset(chunk, 'a', sizeof chunk);
    for (int i = 0; i < 320; i++)
        ck_assert_int_eq(write(fd, chunk, sizeof chunk), (ssize_t)sizeof chunk);
    const char tail[] = "\n" REC("effective_scenario", "\"Server\"") "\n";
    ck_assert_int_eq(write(fd, tail, sizeof tail - 1), (ssize_t)(sizeof tail - 1));
    close(fd);
    ck_assert_int_eq(ck_dlog_load(&d, path, &e), MS_OK);
    ck_assert_uint_eq(d.nbad, 1);
    ck_assert_uint_eq(d.first_bad_line, 1);
    char *s = ck_dlog_str(&d, "effective_scenario");
    ck_assert_str_eq(s, "Server");
    free(s);
    ck_dlog_free(&d);
    /* missing file: an input error naming the path */
    ck_assert_int_eq(ck_dlog_load(&d, "/nonexistent/log", &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/log"));
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* The line-end and UTF-8 scan of the detail-log reader (64-byte blocks): a valid two-byte
 * character or an invalid byte at every offset of a long record, before \n, \r or \r\n, and an
 * invalid byte just after the line end (it belongs to the next line), with or without a final
 * newline: records, their lines and the first bad UTF-8 line are what line-by-line reading
 * gives. */
/* Long values validated ahead of the line end (ms_mllog_prevalue: integer lists and objects of
 * plain strings, bytes up to the end of the read block, which run past the line) or taken as
 * the same bytes as a value seen in an earlier log (the thread's memo) against a line-by-line
 * reference (split like Python's text mode, each line through the plain scanner):
 * valid and damaged lists and objects (a line break, a byte above 0x7f, valid or not as UTF-8,
 * a space, a leading zero, an escape, a missing bracket), lines longer than the read block,
 * three kinds of line end. Every record, key, kind, line number, bad record and bad UTF-8 line
 * must be the same. */
static void gen_long_value(ms_buf *b, unsigned *seed, int object)
{
    /* a few lengths, so that values repeat from one log to the next (the thread's memo of
     * values seen before) and shorter ones are prefixes of longer ones */
    size_t n = 200 + ((*seed = *seed * 1103515245u + 12345u) >> 8) % 8 * 1500;
    if (object) {
        ms_buf_putc(b, '{');
        for (size_t i = 0; i < n / 60; i++)
            ms_buf_printf(b, "%s\"/loadgen/src/file_%04zu.cc\":\"%040zu\"", i ? "," : "", i, i * 7);
        ms_buf_putc(b, '}');
    } else {
        ms_buf_putc(b, '[');
        for (size_t i = 0; i < n / 5; i++)
            ms_buf_printf(b, "%s%zu", i ? "," : "", (i * 2654435761u) % 50000);
        ms_buf_putc(b, ']');
    }
}

START_TEST(dlog_values_validated_ahead_match_line_by_line)
{
    ms_test_tmpdir(tmpdir, sizeof tmpdir);
    char path[300];
    snprintf(path, sizeof path, "%s/log.txt", tmpdir);
    static const char *const damage[] = {"\n", "\r", "\xc3\xa9", "\xff", " ", "00", "\\n", "\"",
                                         "]", "}", ",", "\x01"};
    static const char *const ends[] = {"\n", "\r", "\r\n"};
    unsigned seed = 777;
    ck_dlog_memo_begin(); /* as a worker thread: long values remembered from log to log */
    for (int iter = 0; iter < 400; iter++) {
        ms_buf b = MS_BUF_INIT;
        int nlines = 1 + (int)((seed = seed * 1103515245u + 12345u) % 6);
        for (int l = 0; l < nlines; l++) {
            seed = seed * 1103515245u + 12345u;
            int object = (seed >> 8) & 1;
            ms_buf v = MS_BUF_INIT;
            gen_long_value(&v, &seed, object);
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 8) % 3 == 0) {
                /* damage at some offset */
                size_t at = 1 + (seed >> 12) % (v.len - 1);
                seed = seed * 1103515245u + 12345u;
                const char *dmg = damage[(seed >> 8) % (sizeof damage / sizeof *damage)];
                ms_buf w = MS_BUF_INIT;
                ms_buf_append(&w, v.data, at);
                ms_buf_puts(&w, dmg);
                ms_buf_append(&w, v.data + at, v.len - at);
                ms_buf_free(&v);
                v = w;
            }
            ms_buf_printf(&b, ":::MLLOG {\"key\": \"%s%d\", \"value\": ", object ? "sha" : "qsl",
                          (int)((seed >> 16) % 3));
            ms_buf_append(&b, v.data, v.len);
            ms_buf_puts(&b, ", \"time_ms\": 0.5, \"namespace\": \"mlperf::logging\", \"event_type\": "
                            "\"POINT_IN_TIME\", \"metadata\": {\"is_error\": false, \"is_warning\": "
                            "false, \"file\": \"loadgen.cc\", \"line_no\": 1, \"pid\": 1, \"tid\": 1}}");
            ms_buf_free(&v);
            seed = seed * 1103515245u + 12345u;
            ms_buf_puts(&b, ends[(seed >> 8) % 3]);
            if ((seed >> 12) % 4 == 0)
                ms_buf_puts(&b, REC("short", "1") "\n");
        }
        write_file(path, b.data, b.len);
        /* the reference: Python's line split, each line scanned alone */
        size_t nbad = 0, first_bad = 0, bad_utf8_line = 0, line_no = 0;
        ck_dlog d;
        ms_err e;
        ck_assert_int_eq(ck_dlog_load(&d, path, &e), MS_OK);
        const char *p = b.data, *end = b.data + b.len;
        size_t nkeys = 0;
        char keys[64][16];
        while (p < end) {
            const char *q = p;
            while (q < end && *q != '\n' && *q != '\r')
                q++;
            line_no++;
            size_t off;
            if (!bad_utf8_line && !ms_utf8_valid(p, (size_t)(q - p), &off))
                bad_utf8_line = line_no;
            ms_mllog_rec rec;
            const char *key;
            size_t key_len;
            char msg[200];
            int r = ms_mllog_scan_line(p, (size_t)(q - p), &rec, &key, &key_len, msg, sizeof msg);
            if (r < 0 && !nbad++)
                first_bad = line_no;
            if (r > 0 && key && key_len >= 2 && key_len - 2 < sizeof keys[0]) {
                char k[16];
                memcpy(k, key + 1, key_len - 2);
                k[key_len - 2] = '\0';
                int seen = 0;
                for (size_t i = 0; i < nkeys; i++)
                    seen |= !strcmp(keys[i], k);
                if (!seen && nkeys < 64) {
                    strcpy(keys[nkeys++], k);
                    const ck_dval *dv = ck_dlog_get(&d, k);
                    ck_assert_msg(dv != NULL, "iter %d: key %s missing", iter, k);
                    ck_assert_int_eq(dv->line, line_no);
                    ck_assert_int_eq(dv->kind, rec.kind);
                    ck_assert_uint_eq(dv->raw_len, rec.raw_len);
                }
            }
            if (q >= end)
                p = end;
            else if (*q == '\r' && q + 1 < end && q[1] == '\n')
                p = q + 2;
            else
                p = q + 1;
        }
        ck_assert_msg(d.nbad == nbad, "iter %d: %zu bad records, reference %zu", iter, d.nbad, nbad);
        if (nbad)
            ck_assert_uint_eq(d.first_bad_line, first_bad);
        ck_assert_int_eq(d.bad_utf8, bad_utf8_line != 0);
        if (bad_utf8_line)
            ck_assert_uint_eq(d.bad_utf8_line, bad_utf8_line);
        ck_assert_uint_eq(d.n, nkeys);
        ck_dlog_free(&d);
        ms_buf_free(&b);
    }
    ck_dlog_memo_end();
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* Patterns compiled once per check: the same code for the same pattern and options inside a
 * check's store (from any thread), none outside one or for a pattern that does not compile */
static void re_shared_task(void *ctx, size_t i)
{
    const pcre2_code **out = ctx;
    out[i] = ck_re_shared("(?<=version=)(.+?)-", PCRE2_UTF);
}

START_TEST(re_shared_once_per_check)
{
    ck_assert_ptr_null(ck_re_shared("a+", 0));
    ck_fs_store *s = ck_fs_store_new();
    ck_assert_ptr_nonnull(s);
    ck_fs_cache_begin(s);
    const pcre2_code *a = ck_re_shared("a+", 0), *b = ck_re_shared("a+", 0);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(a, b);
    const pcre2_code *u = ck_re_shared("a+", PCRE2_UTF);
    ck_assert_ptr_nonnull(u);
    ck_assert_ptr_ne(a, u);
    ck_assert_ptr_null(ck_re_shared("(unclosed", 0));
    const pcre2_code *got[64];
    ck_parallel(4, 64, re_shared_task, got);
    for (int i = 1; i < 64; i++)
        ck_assert_ptr_eq(got[i], got[0]);
    ck_assert_ptr_nonnull(got[0]);
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(got[0], NULL);
    ck_assert_int_eq(pcre2_match(got[0], (PCRE2_SPTR) "version=4.1-x", 13, 0, 0, md, NULL), 2);
    pcre2_match_data_free(md);
    ck_fs_cache_end();
    ck_fs_store_free(s);
    ck_assert_ptr_null(ck_re_shared("a+", 0));
}
END_TEST

START_TEST(dlog_line_ends_and_utf8_at_every_offset)
{
    ms_test_tmpdir(tmpdir, sizeof tmpdir);
    char path[300];
    snprintf(path, sizeof path, "%s/log.txt", tmpdir);
    static const char *const ends[] = {"\n", "\r", "\r\n"};
    for (int off = 0; off < 200; off++)
        for (int variant = 0; variant < 3; variant++) {
            const char *end = ends[off % 3];
            ms_buf b = MS_BUF_INIT;
            ck_assert_int_eq(ms_buf_puts(&b, REC("a", "1") "\n"), 0);
            ck_assert_int_eq(ms_buf_puts(&b, ":::MLLOG {\"key\": \"b\", \"value\": \""), 0);
            for (int i = 0; i < off; i++)
                ck_assert_int_eq(ms_buf_putc(&b, 'x'), 0);
            if (variant == 0)
                ck_assert_int_eq(ms_buf_puts(&b, "\xc3\xa9"), 0); /* valid UTF-8 */
            else if (variant == 1)
                ck_assert_int_eq(ms_buf_putc(&b, (char)0xff), 0); /* invalid */
            ck_assert_int_eq(ms_buf_puts(&b, "y\", \"time_ms\": 1}"), 0);
            ck_assert_int_eq(ms_buf_puts(&b, end), 0);
            if (variant == 2)
                ck_assert_int_eq(ms_buf_putc(&b, (char)0xff), 0); /* starts line 3 */
            ck_assert_int_eq(ms_buf_puts(&b, REC("c", "2")), 0);
            if (off % 2)
                ck_assert_int_eq(ms_buf_puts(&b, "\n"), 0); /* else a truncated last line */
            write_file(path, b.data, b.len);
            ms_buf_free(&b);
            ck_dlog d;
            ms_err e;
            ck_assert_int_eq(ck_dlog_load(&d, path, &e), MS_OK);
            ck_assert_msg(d.bad_utf8 == (variant != 0), "off %d variant %d", off, variant);
            if (variant)
                ck_assert_int_eq(d.bad_utf8_line, variant == 1 ? 2 : 3);
            ck_assert_ptr_nonnull(ck_dlog_get(&d, "a"));
            ck_assert_ptr_nonnull(ck_dlog_get(&d, "b"));
            ck_assert_int_eq(ck_dlog_get(&d, "b")->line, 2);
            if (variant == 2) {
                /* "\xff:::MLLOG ..." is not a record line */
                ck_assert_ptr_null(ck_dlog_get(&d, "c"));
            } else {
                ck_assert_ptr_nonnull(ck_dlog_get(&d, "c"));
                ck_assert_int_eq(ck_dlog_get(&d, "c")->line, 3);
            }
            ck_assert_uint_eq(d.nbad, 0);
            ck_dlog_free(&d);
        }
    /* runs of one key (the repeated-key shortcut) keep the first value; a key that differs only
     * by an escape is the same key */
    const char text[] = REC("r", "1") "\n" REC("r", "2") "\n" REC("s", "3") "\n" REC("r", "4") "\n"
        REC("\\u0073", "5") "\n" REC("t", "6") "\n" REC("t", "7") "\n"
        /* a key holding a backslash, then a lexeme with the same bytes that decodes otherwise
         * (a\\b is a, backslash, b; a\b is a, backspace): two keys */
        REC("a\\\\b", "8") "\n" REC("a\\b", "9") "\n";
    write_file(path, text, sizeof text - 1);
    ck_dlog d;
    ms_err e;
    ck_assert_int_eq(ck_dlog_load(&d, path, &e), MS_OK);
    int64_t x;
    ck_assert_int_eq(ck_dlog_i64(&d, "r", &x), 0);
    ck_assert_int_eq(x, 1);
    ck_assert_int_eq(ck_dlog_i64(&d, "s", &x), 0);
    ck_assert_int_eq(x, 3);
    ck_assert_int_eq(ck_dlog_i64(&d, "t", &x), 0);
    ck_assert_int_eq(x, 6);
    ck_assert_int_eq(ck_dlog_i64(&d, "a\\b", &x), 0);
    ck_assert_int_eq(x, 8);
    ck_assert_int_eq(ck_dlog_i64(&d, "a\b", &x), 0);
    ck_assert_int_eq(x, 9);
    ck_assert_uint_eq(d.n, 5);
    ck_dlog_free(&d);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* ck_dlog_line_stop at every SIMD level this CPU has gives what a byte loop gives: random
 * buffers of 0-300 bytes with '\n', '\r' and bytes >= 0x80 at random offsets (the 16-, 32- and
 * 64-byte steps and the AVX-512 masked tail), the buffer's end put just after the stop or not */
START_TEST(dlog_line_stop_levels_agree)
{
    unsigned seed = 31337;
    static char buf[400];
    int best = ms_simd_level();
    for (int iter = 0; iter < 200000; iter++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 8) % 301;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            unsigned r = (seed >> 8) % 1000;
            buf[i] = r < 2 ? '\n' : r < 4 ? '\r' : r < 8 ? (char)(0x80 + r) : (char)('a' + r % 26);
        }
        const char *want = buf;
        int want_high = 0;
        while (want < buf + n && *want != '\n' && *want != '\r') {
            if ((unsigned char)*want >= 0x80)
                want_high = 1;
            want++;
        }
        for (int l = MS_SIMD_NONE; l <= best; l++) {
            int high = 0;
            const char *got = ck_dlog_line_stop(buf, buf + n, &high, l);
            ck_assert_msg(got == want && high == want_high, "iter %d level %d: stop %td high %d, "
                          "want %td %d", iter, l, got - buf, high, want - buf, want_high);
        }
    }
}
END_TEST

static void load_rules(ck_rules *r, const char *version)
{
    char path[64];
    ms_err e;
    snprintf(path, sizeof path, "rules/%s.json", version);
    ck_assert_msg(ck_rules_load(r, path, NULL, &e) == MS_OK, "%s", e.msg);
}

/* The accuracy patterns get their machine code at the first use, from any thread at once:
 * every thread's matches (on lines that match, fail and carry invalid UTF-8) are those of the
 * same pattern compiled alone and interpreted */
typedef struct jit_case {
    ck_rules *r;
    const char *const *metrics;
    size_t nmetrics;
    const char *const *lines;
    size_t nlines;
    int *got;                  /* [task][metric][line]: match result * 1000 + group length */
} jit_case;

static void jit_task(void *ctx, size_t t)
{
    jit_case *c = ctx;
    for (size_t m = 0; m < c->nmetrics; m++) {
        const ms_pyre *re = ck_rules_pattern(c->r, c->metrics[m]);
        for (size_t l = 0; l < c->nlines; l++) {
            const char *g = NULL;
            size_t gl = 0;
            ms_err e;
            int rc = ms_pyre_match(re, c->lines[l], strlen(c->lines[l]), &g, &gl, &e);
            c->got[(t * c->nmetrics + m) * c->nlines + l] = rc * 1000 + (g ? (int)gl : -1);
        }
    }
}

START_TEST(accuracy_patterns_jit_once_from_any_thread)
{
    ck_rules r;
    load_rules(&r, "v5.1");
    static const char *const metrics[] = {"ACCURACY", "AUC", "DICE", "mAP", "acc", "ROUGE1"};
    static const char *const lines[] = {
        "Word Error Rate: 1.5%, accuracy=98.12345%", "AUC=0.80312 x", "Accuracy: mean = 0.86170",
        "mAP=37.551%", "accuracy=76.456%, good=38228, total=50000", "{'rouge1': 38.7792}",
        "nothing here", "AUC=\xff\xfe", "", "accuracy=\xc3\xa9"};
    size_t nm = sizeof metrics / sizeof *metrics, nl = sizeof lines / sizeof *lines, nt = 16;
    int *got = calloc(nt * nm * nl, sizeof *got);
    ck_assert_ptr_nonnull(got);
    jit_case c = {&r, metrics, nm, lines, nl, got};
    ck_parallel(4, nt, jit_task, &c);
    size_t matched = 0;
    for (size_t m = 0; m < nm; m++) {
        const ms_pyre *shared = ck_rules_pattern(&r, metrics[m]);
        if (!shared)
            continue;
        ms_pyre alone;
        ms_err e;
        ck_assert_int_eq(ms_pyre_compile(&alone, shared->pattern, &e), MS_OK);
        for (size_t l = 0; l < nl; l++) {
            const char *g = NULL;
            size_t gl = 0;
            int rc = ms_pyre_match(&alone, lines[l], strlen(lines[l]), &g, &gl, &e);
            int want = rc * 1000 + (g ? (int)gl : -1);
            matched += rc > 0;
            for (size_t t = 0; t < nt; t++)
                ck_assert_msg(got[(t * nm + m) * nl + l] == want, "%s on line %zu, task %zu",
                              metrics[m], l, t);
        }
        ms_pyre_free(&alone);
    }
    ck_assert_uint_ge(matched, 5); /* the lines above match most of the metrics */
    free(got);
    ck_rules_free(&r);
}
END_TEST

START_TEST(rules_model_mapping_and_scenarios)
{
    ck_rules r;
    load_rules(&r, "v5.1");
    ck_assert(!r.unified);
    ck_assert_str_eq(ru_map_model(r.j, "resnet", NULL, 0), "resnet");
    ck_assert_str_eq(ru_map_model(r.j, "resnet50", NULL, 0), "resnet");
    ck_assert_str_eq(ru_map_model(r.j, "llama3_1-405b", NULL, 0), "llama3.1-405b");
    ck_assert_str_eq(ru_map_model(r.j, "mobilenet-v2-precision_uint8-0.75-224", NULL, 0), "resnet");
    ck_assert_str_eq(ru_map_model(r.j, "bert-99.9-large", NULL, 0), "bert-99.9");
    ck_assert_str_eq(ru_map_model(r.j, "my-bert-99", NULL, 0), "bert-99");
    /* the legacy checker has no llama3_1-405b substring guess */
    ck_assert_str_eq(ru_map_model(r.j, "llama3_1-405b-fp4", NULL, 0), "llama3_1-405b-fp4");
    json_error_t je;
    json_t *map = json_loads("{\"llama3_1-70b-fp8_dyn\": \"llama2-70b-99.9\"}", 0, &je);
    ck_assert_str_eq(ru_map_model(r.j, "llama3_1-70b-fp8_dyn", map, 0), "llama2-70b-99.9");
    json_decref(map);
    ck_assert_str_eq(ru_scenario_canon(r.j, "offline"), "Offline");
    ck_assert_str_eq(ru_scenario_canon(r.j, "MultiStream"), "MultiStream");
    ck_assert_ptr_null(ru_scenario_canon(r.j, "OFFLINE"));
    ck_assert_ptr_nonnull(ck_required(&r, "edge", "resnet"));
    ck_assert_ptr_null(ck_required(&r, "datacenter", "resnet"));
    ck_assert_ptr_nonnull(ck_required(&r, "edge,datacenter", "resnet"));
    ck_assert(r.seeds[1] == 14771362308971278857ULL);
    ck_rules_free(&r);

    load_rules(&r, "v6.1");
    ck_assert(r.unified);
    ck_assert_str_eq(ru_map_model(r.j, "llama3_1-405b-fp4", NULL, 0), "llama3.1-405b");
    /* scenario-specific targets: dir name, then default, Offline, Server */
    const json_t *t = ck_targets(&r, "accuracy_targets", "qwen3-vl-235b-a22b", "Interactive");
    ck_assert(json_number_value(json_object_get(json_array_get(t, 0), "value")) == 0.7878 * 0.99);
    t = ck_targets(&r, "accuracy_targets", "qwen3-vl-235b-a22b", "interactive");
    ck_assert(json_number_value(json_object_get(json_array_get(t, 0), "value")) == 0.7903 * 0.99);
    ck_assert_ptr_nonnull(ck_rules_pattern(&r, "E2E_ACCURACY"));
    ck_rules_free(&r);
}
END_TEST

/* The thresholds in the rules are the IEEE products of the spec's expressions. */
START_TEST(rules_thresholds_are_ieee_products)
{
    const char *rounds[] = {"v5.0", "v5.1", "v6.0", "v6.1"};
    int checked = 0;
    for (int i = 0; i < 4; i++) {
        ck_rules r;
        load_rules(&r, rounds[i]);
        const char *tables[] = {"accuracy_targets", "accuracy_upper_limits"};
        for (int t = 0; t < 2; t++) {
            const char *model;
            json_t *v;
            json_object_foreach((json_t *)ck_rget(&r, tables[t]), model, v) {
                const json_t *lists[8];
                size_t nl = ck_target_lists(v, lists, 8);
                for (size_t l = 0; l < nl; l++)
                    for (size_t k = 0; k < json_array_size(lists[l]); k++) {
                        const json_t *x = json_array_get(lists[l], k);
                        const json_t *ref = json_object_get(x, "reference");
                        const json_t *fr = json_object_get(x, "fraction");
                        double val = json_number_value(json_object_get(x, "value"));
                        if (!json_is_number(ref))
                            continue;
                        double want = json_is_number(fr) ? json_number_value(ref) * json_number_value(fr)
                                                         : json_number_value(ref);
                        ck_assert_msg(val == want, "%s %s %s: %.17g != %.17g", rounds[i], tables[t],
                                      model, val, want);
                        checked++;
                    }
            }
        }
        ck_rules_free(&r);
    }
    ck_assert_int_gt(checked, 150);
}
END_TEST

/* ck_pexists / ck_isdir / ck_isfile / ck_fsize of <dir>/<names[i]> are want[i][0..3]. */
static void answers_as_before(const char *dir, const char *const *names, int n, int want[][4])
{
    char p[400];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        ck_assert_int_eq(ck_pexists(p), want[i][0]);
        ck_assert_int_eq(ck_isdir(p), want[i][1]);
        ck_assert_int_eq(ck_isfile(p), want[i][2]);
        ck_assert_int_eq((int)ck_fsize(p), want[i][3]);
    }
}

/* Inside a parallel phase, questions about <listed dir>/<name> (and <listed dir>/<name>/) are
 * answered from the listing exactly as stat() answers them (files, directories, sizes, a broken
 * link, absent names, a trailing slash after a file), whether the directory was listed with
 * sizes (the walk) or without (a task: sizes then come from stat), and nothing is remembered
 * once the phase ends. */
START_TEST(listing_cache_answers_like_stat_and_ends_with_the_task)
{
    char dir[256], p[400], q[400];
    ms_test_tmpdir(dir, sizeof dir);
    snprintf(p, sizeof p, "%s/f.txt", dir);
    write_file(p, "hello", 5);
    snprintf(p, sizeof p, "%s/sub", dir);
    ck_assert_int_eq(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/broken", dir);
    ck_assert_int_eq(symlink("nowhere", p), 0);
    const char *const names[] = {"f.txt", "sub", "broken", "absent", ".", "", "sub/", "f.txt/",
                           "broken/", "sub//"};
    enum { NN = 10 };
    int want[NN][4]; /* exists, isdir, isfile, size without the cache */
    for (int i = 0; i < NN; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        want[i][0] = ck_pexists(p);
        want[i][1] = ck_isdir(p);
        want[i][2] = ck_isfile(p);
        want[i][3] = (int)ck_fsize(p);
    }
    ck_fs_store *store = ck_fs_store_new();
    ck_assert_ptr_nonnull(store);
    ck_fs_cache_begin(store);
    ck_dir d;
    ck_assert_int_eq(ck_dir_read(&d, dir), 0);
    ck_assert_uint_eq(d.n, 3);
    for (size_t i = 0; i < d.n; i++)
        if (!strcmp(d.v[i].name, "f.txt"))
            ck_assert_int_eq(d.v[i].size_known, 0); /* a task's listing: no stat per file */
    ck_dir_free(&d);
    /* a file made after the listing: the phase sees the tree as listed */
    snprintf(q, sizeof q, "%s/late.txt", dir);
    write_file(q, "x", 1);
    answers_as_before(dir, names, NN, want);
    ck_assert_int_eq(ck_isfile(q), 0);
    ck_assert_int_eq(ck_dir_read(&d, dir), 0);
    ck_assert_uint_eq(d.n, 3);
    ck_dir_free(&d);
    /* the walk's listing (with sizes) replaces the task's; the answers stay the same */
    ck_assert_int_eq(ck_dir_read_sized(&d, dir), 0);
    ck_assert_uint_eq(d.n, 3);
    for (size_t i = 0; i < d.n; i++)
        if (!strcmp(d.v[i].name, "f.txt")) {
            ck_assert_int_eq(d.v[i].size_known, 1);
            ck_assert_int_eq(d.v[i].size, 5);
        }
    ck_dir_free(&d);
    answers_as_before(dir, names, NN, want);
    ck_fs_cache_end();
    ck_fs_store_free(store);
    /* after the task, the tree as it is */
    ck_assert_int_eq(ck_isfile(q), 1);
    ck_assert_int_eq(ck_dir_read(&d, dir), 0);
    ck_assert_uint_eq(d.n, 4);
    ck_dir_free(&d);
    const char *all[] = {"f.txt", "late.txt", "broken"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, all[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/sub", dir);
    rmdir(p);
    rmdir(dir);
}
END_TEST

START_TEST(files_diff_like_python)
{
    ms_test_tmpdir(tmpdir, sizeof tmpdir);
    ck_rules r;
    load_rules(&r, "v5.1");
    char p[400];
    const char *files[] = {"mlperf_log_summary.txt", "mlperf_log_detail.txt", "zz.log",
                           "mlperf_log_trace.json", ".gitkeep"};
    for (int i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
        write_file(p, "x", 1);
    }
    snprintf(p, sizeof p, "%s/subdir", tmpdir);
    ck_assert_int_eq(mkdir(p, 0777), 0);
    char *diff = NULL;
    ck_assert_int_eq(ck_files_diff(&r, tmpdir, ck_rget(&r, "accuracy_dir_required_files"), NULL,
                                   NULL, &diff), 0);
    ck_assert_str_eq(diff, "{'zz.log', 'accuracy.txt', 'mlperf_log_accuracy.json'}");
    free(diff);
    const char *extra[] = {"zz.log", NULL};
    ck_assert_int_eq(ck_files_diff(&r, tmpdir, ck_rget(&r, "perf_dir_required_files"),
                                   ck_rget(&r, "perf_dir_optional_files"), extra, &diff), 0);
    ck_assert_ptr_null(diff);
    ck_rules_free(&r);
    for (int i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/subdir", tmpdir);
    rmdir(p);
    rmdir(tmpdir);
}
END_TEST

START_TEST(check_catalogue_complete)
{
    const char *ids[] = {"S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10", "S11",
                         "S14", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8", "M1", "M2", "M3",
                         "M4", "M5", "M6", "E1", "E2", "E3", "E4", "E5", "A1", "A2", "A3", "A4",
                         "A5", "A6", "A7", "A8", "A9", "P0", "P1", "P2", "P3", "P4", "P5", "P6",
                         "P7", "P8", "P9", "P10", "P11", "P12", "P13", "P14", "P15", "P16",
                         "I1", "I2", "I3", "I4", "W1", "W2", "W3", "W4", "W5", "W6", "C1", "C2",
                         "C3", "C4", "C5", "C6", "C7", "C8", "C9"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const ck_check_info *c = ck_check_find(ids[i]);
        ck_assert_msg(c != NULL, "%s missing from the catalogue", ids[i]);
        ck_assert(c->title[0] && c->hint[0]);
        ck_assert_int_eq(c->stricter, 0);
    }
    ck_assert_ptr_null(ck_check_find("Z9"));
}
END_TEST

/* the official checker's own skip options, named in the refusals of index/package/report; each
 * is in the catalogue's hint, and the profile-bound ones only in their profile */
START_TEST(check_skip_flags)
{
    const char *ids[] = {"S2", "S10", "S11", "W4", "E3", "A8", "A7"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        const char *f = ck_check_skip_flag(ids[i], !strcmp(ids[i], "A7"));
        ck_assert_msg(f && !strncmp(f, "--skip-", 7), "%s has no skip option", ids[i]);
    }
    ck_assert_str_eq(ck_check_skip_flag("S2", -1), "--skip-extra-files-in-root-check");
    ck_assert_ptr_nonnull(strstr(ck_check_find("S2")->hint, ck_check_skip_flag("S2", 0)));
    ck_assert_ptr_nonnull(strstr(ck_check_find("S10")->hint, ck_check_skip_flag("S10", 1)));
    ck_assert_ptr_null(ck_check_skip_flag("E3", 1));
    ck_assert_ptr_null(ck_check_skip_flag("A7", 0));
    ck_assert_ptr_null(ck_check_skip_flag("E3", -1));
    ck_assert_ptr_null(ck_check_skip_flag("P7", 0));
}
END_TEST

/* datetime.strptime(s, "%m-%d-%Y %H:%M:%S.%f") as the Power WG checker uses it */
START_TEST(ptd_strptime_like_python)
{
    int64_t us;
    const char *ok = "08-01-2025 17:04:17.291";
    ck_assert_int_eq(ck_ptd_strptime(ok, strlen(ok), &us), 0);
    ck_assert(us == 1754067857291000LL);
    /* one-digit fields, 1-6 fraction digits, several spaces */
    const char *loose = "8-1-2025  17:4:7.5";
    ck_assert_int_eq(ck_ptd_strptime(loose, strlen(loose), &us), 0);
    ck_assert(us == 1754067847500000LL);
    const char *leap = "02-29-2024 00:00:00.000001";
    ck_assert_int_eq(ck_ptd_strptime(leap, strlen(leap), &us), 0);
    ck_assert(us == 1709164800000001LL);
    static const char *const bad[] = {"13-01-2025 00:00:00.0", "02-29-2025 00:00:00.0",
                                      "08-01-2025 24:00:00.0", "08-01-2025 17:04:60.0",
                                      "08-01-2025 17:04:17", "08-01-2025 17:04:17.1234567",
                                      "08-01-2025 17:04:17.291\n", "08-01-25 17:04:17.291",
                                      "00-01-2025 17:04:17.291", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(ck_ptd_strptime(bad[i], strlen(bad[i]), &us) == -1, "accepted '%s'", bad[i]);
}
END_TEST

/* the nameplate YAML of W6, summed as the unified checker does with PyYAML */
static int nameplate(const char *yaml, char **v, char *err)
{
    char path[] = "/tmp/mlsubmit-np-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    int rc = ck_nameplate_yaml(path, v, err, 300);
    unlink(path);
    return rc;
}

START_TEST(nameplate_yaml_like_pyyaml)
{
    char *v = NULL, err[300];
    static const struct { const char *yaml, *want; } ok[] = {
        /* the submission template: one PSU of each leaf (keys case-insensitive) */
        {"S:\n- R:\n  - Srv:\n    - Min PSUs Needed: 1\n      PSUs:\n      - {Name: a, PowerCapacityWatts: 1200}\n"
         "      - {Name: b, PowerCapacityWatts: 1200}\n  - Sw:\n    - Min PSUs needed: 1\n      PSUs:\n"
         "      - {PowerCapacityWatts: 1200}\n      - {PowerCapacityWatts: 1200}\n", "2400"},
        /* the largest first; ints with underscores, hex, a float turns the sum into a float */
        {"a: {psus: [{PowerCapacityWatts: 0x10}, {PowerCapacityWatts: 1_000}, {PowerCapacityWatts: 5}], "
         "min psus needed: 2}\nb: [{PSUS: [{PowerCapacityWatts: 0.5}], MIN PSUS NEEDED: 1}]\n", "1016.5"},
        /* null takes every PSU, a negative count drops the smallest, missing capacities are 0 */
        {"- {PSUs: [{PowerCapacityWatts: 3}, {PowerCapacityWatts: 4}], Min PSUs Needed: ~}\n"
         "- {PSUs: [{PowerCapacityWatts: 10}, {PowerCapacityWatts: 20}, {x: 1}], Min PSUs Needed: -1}\n", "37"},
        {"just a scalar\n", "0"},
        {"'quoted': {PSUs: [], Min PSUs Needed: 3}\n", "0"},
        /* the largest 64-bit integer still sums */
        {"x: {PSUs: [{PowerCapacityWatts: 9223372036854775807}], Min PSUs Needed: 1}\n", "9223372036854775807"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        ck_assert_msg(nameplate(ok[i].yaml, &v, err) == 0, "case %zu: %s", i, err);
        ck_assert_str_eq(v, ok[i].want);
        free(v);
        v = NULL;
    }
    static const char *const bad[] = {"", "# only a comment\n", "a: 1\n---\nb: 2\n", "a: [1, 2\n",
                                      "1200: {PSUs: [], Min PSUs Needed: 1}\n",
                                      "x: {PSUs: [{PowerCapacityWatts: many}], Min PSUs Needed: 1}\n",
                                      "x: {PSUs: 12, Min PSUs Needed: 1}\n",
                                      "x: {PSUs: [], Min PSUs Needed: 1.5}\n", "&a [*a]\n",
                                      /* integers beyond 64 bits, and a sum that leaves them */
                                      "x: {PSUs: [{PowerCapacityWatts: 99999999999999999999}], Min PSUs Needed: 1}\n",
                                      "x: {PSUs: [], Min PSUs Needed: 0x1ffffffffffffffff}\n",
                                      "x: {PSUs: [{PowerCapacityWatts: 190:0:0:0:0:0:0:0:0:0:0}], Min PSUs Needed: 1}\n",
                                      "x: {PSUs: [{PowerCapacityWatts: 9223372036854775807}, "
                                      "{PowerCapacityWatts: 1}], Min PSUs Needed: ~}\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_msg(nameplate(bad[i], &v, err) == -1, "accepted case %zu", i);
        ck_assert_ptr_null(v);
        ck_assert(err[0]);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("checker");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, dlog_values_exact_and_first_wins);
    tcase_add_test(tc, dlog_malformed_long_and_huge_lines);
    tcase_add_test(tc, dlog_line_stop_levels_agree);
    tcase_add_test(tc, rules_model_mapping_and_scenarios);
    tcase_add_test(tc, rules_thresholds_are_ieee_products);
    tcase_add_test(tc, files_diff_like_python);
    tcase_add_test(tc, listing_cache_answers_like_stat_and_ends_with_the_task);
    tcase_add_test(tc, dlog_line_ends_and_utf8_at_every_offset);
    tcase_add_test(tc, dlog_values_validated_ahead_match_line_by_line);
    tcase_add_test(tc, re_shared_once_per_check);
    tcase_add_test(tc, accuracy_patterns_jit_once_from_any_thread);
    tcase_add_test(tc, check_catalogue_complete);
    tcase_add_test(tc, check_skip_flags);
    tcase_add_test(tc, ptd_strptime_like_python);
    tcase_add_test(tc, nameplate_yaml_like_pyyaml);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
