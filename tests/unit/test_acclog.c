/* Unit tests for the streaming accuracy-log reader (src/common/acclog.c), cross-checked against
 * Jansson on many layouts. */
#include <jansson.h>

#include "common/acclog.h"
#include "common/buf.h"
#include "loadgen/rng.h"
#include "testutil.h"

/* Reads every entry of text; returns the count, or -1 on error (message in e). */
static long read_all(const char *text, size_t len, unsigned flags, ms_err *e, ms_buf *dump)
{
    ms_acclog *r = ms_acclog_open_mem(text, len, "mem.json", flags, e);
    ck_assert_ptr_nonnull(r);
    ms_acc_entry ent;
    int rc;
    long n = 0;
    while ((rc = ms_acclog_next(r, &ent, e)) == 1) {
        n++;
        if (dump) {
            ms_buf_printf(dump, "%llu/%llu/", (unsigned long long)ent.seq_id, (unsigned long long)ent.qsl_idx);
            for (size_t i = 0; i < ent.data_len; i++)
                ms_buf_printf(dump, "%02x", ent.data[i]);
            if (ent.has_token_data) {
                ms_buf_puts(dump, "/t");
                for (size_t i = 0; i < ent.token_data_len; i++)
                    ms_buf_printf(dump, "%02x", ent.token_data[i]);
            }
            if (ent.has_token_count)
                ms_buf_printf(dump, "/c%lld", (long long)ent.token_count);
            ms_buf_puts(dump, ";");
        }
    }
    /* sticky end state */
    ck_assert_int_eq(ms_acclog_next(r, &ent, NULL), rc);
    ms_acclog_close(r);
    return rc < 0 ? -1 : n;
}

static long read_str(const char *text, ms_err *e)
{
    return read_all(text, strlen(text), 0, e, NULL);
}

START_TEST(loadgen_layout)
{
    const char *t = "[\n{ \"seq_id\" : 3, \"qsl_idx\" : 17, \"data\" : \"EC000000\" },\n"
                    "{ \"seq_id\" : 4, \"qsl_idx\" : 2, \"data\" : \"\" },\n"
                    "{ \"seq_id\" : 9, \"qsl_idx\" : 5, \"data\" : \"0102\", \"token_data\" : \"FF\", \"token_count\" : 7 }\n]\n";
    ms_err e = {0};
    ms_buf d = MS_BUF_INIT;
    ck_assert_int_eq(read_all(t, strlen(t), 0, &e, &d), 3);
    ck_assert_str_eq(d.data, "3/17/ec000000;4/2/;9/5/0102/tff/c7;");
    ms_buf_free(&d);

    /* line numbers, indexes and KEEP_HEX */
    ms_acclog *r = ms_acclog_open_mem(t, strlen(t), "x", MS_ACCLOG_KEEP_HEX, &e);
    ms_acc_entry ent;
    ck_assert_int_eq(ms_acclog_next(r, &ent, &e), 1);
    ck_assert_uint_eq(ent.line, 2);
    ck_assert_uint_eq(ent.index, 0);
    ck_assert_str_eq(ent.data_hex, "EC000000");
    ck_assert_int_eq(ms_acclog_next(r, &ent, &e), 1);
    ck_assert_uint_eq(ent.line, 3);
    ck_assert_str_eq(ent.data_hex, "");
    ck_assert_int_eq(ms_acclog_next(r, &ent, &e), 1);
    ck_assert_uint_eq(ent.line, 4);
    ck_assert_int_eq(ms_acclog_next(r, &ent, &e), 0);
    ck_assert_uint_eq(ms_acclog_count(r), 3);
    ms_acclog_close(r);
}
END_TEST

START_TEST(empty_logs)
{
    ms_err e = {0};
    ck_assert_int_eq(read_str("[\n]\n", &e), 0);
    ck_assert_int_eq(read_str("[]", &e), 0);
    ck_assert_int_eq(read_str("  \r\n\t[ ]  \n", &e), 0);
}
END_TEST

START_TEST(odd_layouts)
{
    ms_err e = {0};
    ms_buf d = MS_BUF_INIT;
    /* compact, keys in another order, lower-case hex, CRLF and tabs, extra keys with nested
     * values, escapes inside the hex string, token_count negative */
    const char *t = "[{\"data\":\"ab\",\"qsl_idx\":1,\"seq_id\":0},\r\n\t{\r\n\t\"qsl_idx\"\r\n:\r\n2\r\n,"
                    "\"extra\":{\"a\":[1,2.5e3,{\"b\":null}],\"c\":\"}]\\\"\"},\"seq_id\":1,\"flag\":true,"
                    "\"data\":\"\\u0041b\\/0\"\r\n,\"f\":false,\"token_count\":-3}\r\n]";
    /* "\u0041b\/0" decodes to "Ab/0": '/' is not a hex digit */
    ck_assert_int_eq(read_all(t, strlen(t), 0, &e, NULL), -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "invalid hex digit '/'"));
    const char *t2 = "[{\"data\":\"ab\",\"qsl_idx\":1,\"seq_id\":0},\r\n\t{\r\n\t\"qsl_idx\"\r\n:\r\n2\r\n,"
                     "\"extra\":{\"a\":[1,2.5e3,{\"b\":null}],\"c\":\"}]\\\"\"},\"seq_id\":1,\"flag\":true,"
                     "\"data\":\"\\u0041b\\u0030\\u0031\"\r\n,\"f\":false,\"token_count\":-3}\r\n]";
    ck_assert_int_eq(read_all(t2, strlen(t2), 0, &e, &d), 2);
    ck_assert_str_eq(d.data, "0/1/ab;1/2/ab01/c-3;");
    ms_buf_free(&d);
}
END_TEST

START_TEST(malformed_entries)
{
    static const struct {
        const char *text;
        const char *msg;
        const char *where;
    } cases[] = {
        {"", "empty file", "mem.json:1:1"},
        {"{}", "expected '['", "mem.json:1:1"},
        {"[1]", "expected an entry object", "mem.json:1:2"},
        {"[{}]", "is empty", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1}]", "has no \"data\"", NULL},
        {"[{\"seq_id\":0,\"data\":\"\"}]", "has no \"qsl_idx\"", NULL},
        {"[{\"seq_id\":0,\"seq_id\":1,\"qsl_idx\":0,\"data\":\"\"}]", "duplicate key \"seq_id\"", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":-1,\"data\":\"\"}]", "non-negative integer", NULL},
        {"[{\"seq_id\":0.5,\"qsl_idx\":1,\"data\":\"\"}]", "non-negative integer", NULL},
        {"[{\"seq_id\":1e2,\"qsl_idx\":1,\"data\":\"\"}]", "non-negative integer", NULL},
        {"[{\"seq_id\":\"1\",\"qsl_idx\":1,\"data\":\"\"}]", "expected an integer", NULL},
        {"[{\"seq_id\":01,\"qsl_idx\":1,\"data\":\"\"}]", "leading zero", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"ABC\"}]", "odd number of hex digits", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"AG\"}]", "invalid hex digit 'G'", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":12}]", "expected a hex string", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"\"},]", "trailing comma", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"\"}] x", "after the closing ']'", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"\"} {", "expected ',' or ']'", NULL},
        {"[{\"seq_id\":0 \"qsl_idx\":1,\"data\":\"\"}]", "expected ',' or '}'", NULL},
        {"[{\"seq_id\" 0}]", "expected ':'", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"\\x\"}]", "invalid escape", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"\\uD800\"}]", "surrogate", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"data\":\"a\tb\"}]", "control character", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"x\":tru,\"data\":\"\"}]", "expected 'true'", NULL},
        {"[{\"seq_id\":0,\"qsl_idx\":1,\"x\":[1,,2],\"data\":\"\"}]", "expected a JSON value", NULL},
        {"[{\"seq_id\":99999999999999999999,\"qsl_idx\":1,\"data\":\"\"}]", "non-negative integer", NULL},
        {"[\n{ \"seq_id\" : 0, \"qsl_idx\" : 1, \"data\" : \"00\" },\n{ \"seq_id\" : 1, \"qsl_idx\" : 1, \"data\" : \"0\" }\n]",
         "odd number", "mem.json:3:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_err e = {0};
        long n = read_str(cases[i].text, &e);
        ck_assert_msg(n == -1, "case %zu accepted: %s", i, cases[i].text);
        ck_assert_int_eq(e.code, MS_EINPUT);
        ck_assert_msg(strstr(e.msg, cases[i].msg), "case %zu: '%s' lacks '%s'", i, e.msg, cases[i].msg);
        if (cases[i].where)
            ck_assert_msg(strstr(e.msg, cases[i].where), "case %zu: '%s' lacks '%s'", i, e.msg, cases[i].where);
    }
}
END_TEST

START_TEST(every_truncation_fails_cleanly)
{
    const char *t = "[\n{ \"seq_id\" : 0, \"qsl_idx\" : 12, \"data\" : \"0A0B\" },\n"
                    "{ \"seq_id\" : 1, \"qsl_idx\" : 3, \"data\" : \"\\u0030F\", \"token_data\" : \"AA\", "
                    "\"token_count\" : 2, \"x\" : [true, {\"y\" : -1.5e-3}] }\n]";
    size_t len = strlen(t);
    ms_err e = {0};
    ck_assert_int_eq(read_all(t, len, 0, &e, NULL), 2);
    for (size_t cut = 0; cut < len; cut++) {
        char *copy = malloc(cut + 1);
        memcpy(copy, t, cut);
        copy[cut] = '\0';
        long n = read_all(copy, cut, 0, &e, NULL);
        ck_assert_msg(n == -1, "prefix of %zu bytes accepted", cut);
        ck_assert_msg(strstr(e.msg, "mem.json:"), "no position in '%s'", e.msg);
        free(copy);
    }
    /* the truncation message says so */
    read_all(t, len - 1, 0, &e, NULL);
    ck_assert_ptr_nonnull(strstr(e.msg, "truncated"));
    ck_assert_ptr_nonnull(strstr(e.msg, "mem.json:4:1:")); /* the end of file is after the last newline */
}
END_TEST

/* Random layouts of random entries: our reader and Jansson must agree on every value. */
static void emit_ws(ms_buf *b, lg_mt19937 *g)
{
    static const char *const ws[] = {"", " ", "\n", "\t", "\r\n", "  \n  "};
    ms_buf_puts(b, ws[lg_uniform_u64(g, 0, 5)]);
}

START_TEST(random_layouts_agree_with_jansson)
{
    lg_mt19937 g;
    lg_mt_seed(&g, 42);
    for (int round = 0; round < 200; round++) {
        ms_buf b = MS_BUF_INIT, expect = MS_BUF_INIT;
        size_t n = (size_t)lg_uniform_u64(&g, 0, 8);
        emit_ws(&b, &g);
        ms_buf_putc(&b, '[');
        for (size_t i = 0; i < n; i++) {
            emit_ws(&b, &g);
            ms_buf_putc(&b, '{');
            unsigned long long seq = lg_uniform_u64(&g, 0, 1000000), qsl = lg_uniform_u64(&g, 0, 5000);
            size_t dl = (size_t)lg_uniform_u64(&g, 0, 6);
            char hex[16] = "";
            for (size_t k = 0; k < dl * 2; k++)
                hex[k] = "0123456789abcdefABCDEF"[lg_uniform_u64(&g, 0, 21)];
            hex[dl * 2] = '\0';
            int tok = (int)lg_uniform_u64(&g, 0, 1);
            char fields[5][96];
            int nf = 0;
            snprintf(fields[nf++], sizeof fields[0], "\"seq_id\"%s:%s%llu", " ", " ", seq);
            snprintf(fields[nf++], sizeof fields[0], "\"qsl_idx\":%llu", qsl);
            snprintf(fields[nf++], sizeof fields[0], "\"data\" :\"%s\"", hex);
            if (tok)
                snprintf(fields[nf++], sizeof fields[0], "\"token_count\": %d", (int)lg_uniform_u64(&g, 0, 300));
            snprintf(fields[nf++], sizeof fields[0], "\"other\":[{\"k\":\"v\\\"}\"}, 1.5, null]");
            /* shuffle field order */
            for (int k = nf - 1; k > 0; k--) {
                int j = (int)lg_uniform_u64(&g, 0, (uint64_t)k);
                char tmp[96];
                memcpy(tmp, fields[k], sizeof tmp);
                memcpy(fields[k], fields[j], sizeof tmp);
                memcpy(fields[j], tmp, sizeof tmp);
            }
            for (int k = 0; k < nf; k++) {
                if (k)
                    ms_buf_putc(&b, ',');
                emit_ws(&b, &g);
                ms_buf_puts(&b, fields[k]);
                emit_ws(&b, &g);
            }
            ms_buf_putc(&b, '}');
            emit_ws(&b, &g);
            if (i + 1 < n)
                ms_buf_putc(&b, ',');
        }
        ms_buf_putc(&b, ']');
        emit_ws(&b, &g);

        json_error_t je;
        json_t *root = json_loadb(b.data, b.len, 0, &je);
        ck_assert_msg(root != NULL, "generator made invalid JSON: %s", je.text);
        for (size_t i = 0; i < json_array_size(root); i++) {
            json_t *o = json_array_get(root, i);
            ms_buf_printf(&expect, "%lld/%lld/", (long long)json_integer_value(json_object_get(o, "seq_id")),
                          (long long)json_integer_value(json_object_get(o, "qsl_idx")));
            for (const char *h = json_string_value(json_object_get(o, "data")); *h; h++)
                ms_buf_putc(&expect, (char)(*h >= 'A' && *h <= 'F' ? *h + 32 : *h));
            if (json_object_get(o, "token_count"))
                ms_buf_printf(&expect, "/c%lld", (long long)json_integer_value(json_object_get(o, "token_count")));
            ms_buf_puts(&expect, ";");
        }
        json_decref(root);
        ms_err e = {0};
        ms_buf got = MS_BUF_INIT;
        ck_assert_int_eq(read_all(b.data, b.len, 0, &e, &got), (long)n);
        ck_assert_str_eq(got.data ? got.data : "", expect.data ? expect.data : "");
        ms_buf_free(&got);
        ms_buf_free(&b);
        ms_buf_free(&expect);
    }
}
END_TEST

START_TEST(huge_hex_and_block_boundaries_from_a_file)
{
    char dir[256], path[300];
    ms_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/mlperf_log_accuracy.json", dir);
    FILE *fp = fopen(path, "wb");
    ck_assert_ptr_nonnull(fp);
    /* 50,000 small entries (about 3 MB: several read blocks), then one 6 MB payload */
    fputs("[", fp);
    for (int i = 0; i < 50000; i++)
        fprintf(fp, "%s{ \"seq_id\" : %d, \"qsl_idx\" : %d, \"data\" : \"%08X\" }", i ? ",\n" : "\n", i, i % 537,
                (unsigned)i * 2654435761u);
    size_t big = 3u << 20;
    fputs(",\n{ \"seq_id\" : 50000, \"qsl_idx\" : 1, \"data\" : \"", fp);
    for (size_t i = 0; i < big; i++)
        fprintf(fp, "%02X", (unsigned)(i * 7 & 0xFF));
    fputs("\" }\n]\n", fp);
    fclose(fp);

    ms_err e = {0};
    ms_acclog *r = ms_acclog_open(path, 0, &e);
    ck_assert_ptr_nonnull(r);
    ms_acc_entry ent;
    for (int i = 0; i < 50000; i++) {
        ck_assert_int_eq(ms_acclog_next(r, &ent, &e), 1);
        ck_assert_uint_eq(ent.seq_id, (unsigned)i);
        ck_assert_uint_eq(ent.line, (size_t)i + 2);
        uint32_t v = (uint32_t)i * 2654435761u;
        ck_assert_uint_eq(ent.data_len, 4);
        ck_assert_uint_eq(ent.data[0], v >> 24);
        ck_assert_uint_eq(ent.data[3], v & 0xFF);
    }
    ck_assert_int_eq(ms_acclog_next(r, &ent, &e), 1);
    ck_assert_uint_eq(ent.data_len, big);
    for (size_t i = 0; i < big; i += 4099)
        ck_assert_uint_eq(ent.data[i], (i * 7) & 0xFF);
    ck_assert_int_eq(ms_acclog_next(r, &ent, &e), 0);
    ms_acclog_close(r);

    /* truncate the file inside the huge payload: an error naming the line */
    ck_assert_int_eq(truncate(path, 3000000), 0);
    r = ms_acclog_open(path, 0, &e);
    int rc;
    while ((rc = ms_acclog_next(r, &ent, &e)) == 1)
        ;
    ck_assert_int_eq(rc, -1);
    ck_assert_ptr_nonnull(strstr(e.msg, "truncated"));
    ms_acclog_close(r);

    snprintf(path, sizeof path, "%s/missing.json", dir);
    ck_assert_ptr_null(ms_acclog_open(path, 0, &e));
    ck_assert_int_eq(e.code, MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "missing.json"));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("acclog");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, loadgen_layout);
    tcase_add_test(tc, empty_logs);
    tcase_add_test(tc, odd_layouts);
    tcase_add_test(tc, malformed_entries);
    tcase_add_test(tc, every_truncation_fails_cleanly);
    tcase_add_test(tc, random_layouts_agree_with_jansson);
    tcase_add_test(tc, huge_hex_and_block_boundaries_from_a_file);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
