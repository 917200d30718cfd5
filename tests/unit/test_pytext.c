/* Python compatibility helpers of the checker: repr(float), str() of JSON values, float(),
 * universal newlines and re.match semantics on PCRE2 (src/common/pyfmt.c, pytext.c). */
#include <math.h>
#include <stdint.h>

#include "common/pyfmt.h"
#include "common/pytext.h"
#include "pyrepr_cases.h"
#include "testutil.h"

static double from_bits(unsigned long long b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

START_TEST(float_repr_matches_cpython)
{
    char buf[MS_PY_FLOAT_MAX];
    for (size_t i = 0; i < sizeof pyrepr_cases / sizeof *pyrepr_cases; i++) {
        ms_py_float_repr(from_bits(pyrepr_cases[i].bits), buf);
        ck_assert_msg(!strcmp(buf, pyrepr_cases[i].repr), "bits %016llx: got %s, Python %s",
                      pyrepr_cases[i].bits, buf, pyrepr_cases[i].repr);
    }
    static const struct { double x; const char *r; } fixed[] = {
        {101527.0, "101527.0"}, {0.513395, "0.513395"}, {223.0454443824879, "223.0454443824879"},
        {1e-05, "1e-05"}, {1.5e16, "1.5e+16"}, {1e16, "1e+16"},
        {9999999999999998.0, "9999999999999998.0"}, {0.0001, "0.0001"}, {-0.0, "-0.0"},
        {76.46 * 0.99, "75.69539999999999"}, {5e-324, "5e-324"}, {1e22, "1e+22"},
        {9.999999999999999e-05, "9.999999999999999e-05"}, {8e-05, "8e-05"}, {100.0, "100.0"},
        {1e15, "1000000000000000.0"}, {2.675, "2.675"}, {1.341022, "1.341022"},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        ms_py_float_repr(fixed[i].x, buf);
        ck_assert_str_eq(buf, fixed[i].r);
    }
    ms_py_float_repr(INFINITY, buf);
    ck_assert_str_eq(buf, "inf");
    ms_py_float_repr(-INFINITY, buf);
    ck_assert_str_eq(buf, "-inf");
    ms_py_float_repr(NAN, buf);
    ck_assert_str_eq(buf, "nan");
}
END_TEST

/* Property: for any finite double the repr round-trips and no shorter digit string does. */
START_TEST(float_repr_round_trips_and_is_shortest)
{
    uint64_t s = 0x9E3779B97F4A7C15ULL;
    char buf[MS_PY_FLOAT_MAX];
    for (int i = 0; i < 200000; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double x = from_bits(s);
        if (!isfinite(x))
            continue;
        ms_py_float_repr(x, buf);
        ck_assert_msg(strtod(buf, NULL) == x, "%s does not round-trip", buf);
        char dg[40];  /* significant digits: no leading or trailing zeros */
        int nd = 0;
        for (const char *p = buf; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9' && (nd || *p != '0'))
                dg[nd++] = *p;
        while (nd > 1 && dg[nd - 1] == '0')
            nd--;
        int digits = nd;
        char shorter[40];
        snprintf(shorter, sizeof shorter, "%.*e", digits > 2 ? digits - 2 : 0, x);
        if (digits > 2)
            ck_assert_msg(strtod(shorter, NULL) != x || strlen(buf) <= 3,
                          "%s: a shorter %s also round-trips", buf, shorter);
    }
}
END_TEST

static json_t *J(const char *t)
{
    json_error_t je;
    json_t *j = json_loads(t, JSON_DECODE_ANY, &je);
    ck_assert_msg(j != NULL, "%s", je.text);
    return j;
}

static void str_is(const char *json, const char *want)
{
    json_t *j = J(json);
    ms_buf b = MS_BUF_INIT;
    ck_assert_int_eq(ms_py_str_json(&b, j), 0);
    ck_assert_msg(!strcmp(b.data ? b.data : "", want), "%s -> %s, want %s", json, b.data, want);
    ms_buf_free(&b);
    json_decref(j);
}

START_TEST(str_of_json_values)
{
    str_is("[\"fp8\", \"bf16\"]", "['fp8', 'bf16']");
    str_is("\"fp8\"", "fp8");
    str_is("1", "1");
    str_is("1.0", "1.0");
    str_is("true", "True");
    str_is("null", "None");
    str_is("{\"a\": [1, 2.5, null], \"b\": false}", "{'a': [1, 2.5, None], 'b': False}");
    str_is("[\"it's\"]", "[\"it's\"]");
    str_is("[\"a\\nb\\\\\"]", "['a\\nb\\\\']");
    str_is("[\"\\u00e9t\\u00e9\", \"\\u0001\"]", "['\xc3\xa9t\xc3\xa9', '\\x01']");
    ms_buf b = MS_BUF_INIT;
    ck_assert_int_eq(ms_py_str_json(&b, NULL), 0);
    ck_assert_str_eq(b.data, "None");
    ms_buf_free(&b);
    /* lexical values of detail logs keep their type */
    const struct { ms_jv_kind k; const char *raw, *want; } lx[] = {
        {MS_JV_INT, "14771362308971278857", "14771362308971278857"},
        {MS_JV_BIGINT, "123456789012345678901234567890", "123456789012345678901234567890"},
        {MS_JV_REAL, "1.97369e-08", "1.97369e-08"},
        {MS_JV_REAL, "371.423", "371.423"},
        {MS_JV_REAL, "1E3", "1000.0"},
        {MS_JV_REAL, "NaN", "nan"},
        {MS_JV_REAL, "-Infinity", "-inf"},
        {MS_JV_STRING, "\"a\\tb\"", "a\tb"},
        {MS_JV_BOOL, "false", "False"},
    };
    for (size_t i = 0; i < sizeof lx / sizeof *lx; i++) {
        ms_buf_reset(&b);
        ck_assert_int_eq(ms_py_str_lexeme(&b, lx[i].k, lx[i].raw, strlen(lx[i].raw)), 0);
        ck_assert_str_eq(b.data, lx[i].want);
    }
    ms_buf_free(&b);
}
END_TEST

START_TEST(truthiness)
{
    const char *falsy[] = {"\"\"", "0", "0.0", "false", "null", "[]", "{}"};
    const char *truthy[] = {"\" \"", "\"N/A\"", "\"0\"", "1", "-0.5", "true", "[0]", "{\"a\":0}"};
    for (size_t i = 0; i < 7; i++) {
        json_t *j = J(falsy[i]);
        ck_assert_msg(!ms_py_truthy(j), "%s should be falsy", falsy[i]);
        json_decref(j);
    }
    for (size_t i = 0; i < 8; i++) {
        json_t *j = J(truthy[i]);
        ck_assert_msg(ms_py_truthy(j), "%s should be truthy", truthy[i]);
        json_decref(j);
    }
    ck_assert(!ms_py_truthy(NULL));
}
END_TEST

START_TEST(float_parse_like_python)
{
    double d;
    ck_assert_int_eq(ms_py_float_parse(" 76.064 ", 8, &d), 0);
    ck_assert(d == 76.064);
    ck_assert_int_eq(ms_py_float_parse("5.", 2, &d), 0);
    ck_assert(d == 5.0);
    ck_assert_int_eq(ms_py_float_parse(".5", 2, &d), 0);
    ck_assert_int_eq(ms_py_float_parse("1_000.5", 7, &d), 0);
    ck_assert(d == 1000.5);
    ck_assert_int_eq(ms_py_float_parse("-Infinity", 9, &d), 0);
    ck_assert(isinf(d) && d < 0);
    ck_assert_int_eq(ms_py_float_parse("nan", 3, &d), 0);
    const char *bad[] = {"1.2.3", "", ".", "1e", "abc", "1__0", "_1", "1_", "--1", "1 2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(ms_py_float_parse(bad[i], strlen(bad[i]), &d) != 0, "'%s' parsed", bad[i]);
}
END_TEST

START_TEST(universal_newlines)
{
    const char text[] = "a\r\nb\rc\n\nd";
    ms_lines it;
    ms_lines_init(&it, text, sizeof text - 1);
    const char *want[] = {"a", "b", "c", "", "d"};
    int nl_want[] = {1, 1, 1, 1, 0};
    const char *l;
    size_t n;
    int nl, i = 0;
    while (ms_lines_next(&it, &l, &n, &nl)) {
        ck_assert_int_lt(i, 5);
        ck_assert_uint_eq(n, strlen(want[i]));
        ck_assert(!memcmp(l, want[i], n));
        ck_assert_int_eq(nl, nl_want[i]);
        i++;
    }
    ck_assert_int_eq(i, 5);
    size_t off;
    ck_assert(ms_utf8_valid("h\xc3\xa9llo", 6, &off));
    ck_assert(!ms_utf8_valid("ab\xff", 3, &off));
    ck_assert_uint_eq(off, 2);
    ck_assert(!ms_utf8_valid("\xed\xa0\x80", 3, &off)); /* surrogate */
    ck_assert(!ms_utf8_valid("\xc0\x80", 2, &off));     /* overlong */
}
END_TEST

static int m(const char *pat, const char *line, int nl, char *g1out)
{
    ms_pyre re;
    ms_err e;
    ck_assert_msg(ms_pyre_compile(&re, pat, &e) == MS_OK, "%s", e.msg);
    char *scratch = NULL;
    size_t cap = 0, gl;
    const char *g;
    int r = ms_pyre_match_line(&re, line, strlen(line), nl, &scratch, &cap, &g, &gl, &e);
    if (r > 0 && g1out) {
        if (g)
            snprintf(g1out, 64, "%.*s", (int)gl, g);
        else
            g1out[0] = '\0';
    }
    free(scratch);
    ms_pyre_free(&re);
    return r;
}

START_TEST(re_match_semantics)
{
    char g[64];
    /* anchored at the start, not at the end */
    ck_assert_int_eq(m("^AUC=([\\d\\.]+).*", "AUC=80.166%, accuracy=96.605%", 1, g), 1);
    ck_assert_str_eq(g, "80.166");
    ck_assert_int_eq(m("Accuracy\\:\\s*mean\\s*=\\s*([\\d\\.]+).*", "x Accuracy: mean = 0.86", 1, g), 0);
    ck_assert_int_eq(m("abc", "abcdef", 0, g), 1);
    /* '$' matches before the final newline the text mode leaves on each line */
    ck_assert_int_eq(m("^hash=([\\w\\d]+)$", "hash=abc123", 1, g), 1);
    ck_assert_str_eq(g, "abc123");
    ck_assert_int_eq(m("^hash=([\\w\\d]+)$", "hash=abc 123", 1, g), 0);
    /* \Z is Python's end of string */
    ck_assert_int_eq(m("a\\Z", "a", 1, g), 0);
    ck_assert_int_eq(m("a\\Z", "a", 0, g), 1);
    /* the rules' patterns on the lines they are written for */
    ck_assert_int_eq(m("^(?:\\{\\\"accuracy|accuracy)[\\\": ]*=?\\s*([\\d\\.]+).*",
                       "accuracy=76.064%, good=38032, total=50000", 1, g), 1);
    ck_assert_str_eq(g, "76.064");
    ck_assert_int_eq(m("^{[\\\"\\']exact_match[\\\"\\']\\:\\s*[\\d\\.]+,\\s*[\\\"\\']f1[\\\"\\']\\:\\s*([\\d\\.]+)}",
                       "{\"exact_match\": 83.7, \"f1\": 90.8}", 1, g), 1);
    ck_assert_str_eq(g, "90.8");
    ck_assert_int_eq(m(".*(?:mAP=|'Total':)\\s*([\\d.]+)", "{'Car': [1], 'Total': 54.25}", 1, g), 1);
    ck_assert_str_eq(g, "54.25");
    ck_assert_int_eq(m(".*'rougeL':\\s+'?([\\d.]+)'?.*", "{'rougeLsum': 42.2, 'rouge1': 1}", 1, g), 0);
    ck_assert_int_eq(m(".*'tokens_per_sample':\\s([\\d.]+).*", "{'tokens_per_sample':  273.4}", 1, g), 0);
    /* '.' does not cross a newline; invalid UTF-8 does not break matching */
    ck_assert_int_eq(m("a.b", "a\nb", 0, g), 0);
    ck_assert_int_ge(m("x(.)y", "x\xffy", 0, g), 0);
}
END_TEST

/* Python's chunked incremental decoding of a text file read line by line (cases checked
 * against python3: open(path, encoding="utf-8"), `for line in f`, a break after the line ending
 * at `upto`) */
static int raises(const char *s, size_t n, size_t upto)
{
    return ms_py_utf8_read_raises(s, n, upto);
}

START_TEST(utf8_sequence_lengths)
{
    const unsigned char *u = (const unsigned char *)"a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    ck_assert_uint_eq(ms_utf8_seq(u, 10), 1);
    ck_assert_uint_eq(ms_utf8_seq(u + 1, 9), 2);
    ck_assert_uint_eq(ms_utf8_seq(u + 3, 7), 3);
    ck_assert_uint_eq(ms_utf8_seq(u + 6, 4), 4);
    ck_assert_uint_eq(ms_utf8_seq(u + 6, 3), 0);                                   /* cut short */
    ck_assert_uint_eq(ms_utf8_seq((const unsigned char *)"\xc0\x80", 2), 0);      /* overlong */
    ck_assert_uint_eq(ms_utf8_seq((const unsigned char *)"\xed\xa0\x80", 3), 0); /* surrogate */
    ck_assert_uint_eq(ms_utf8_seq((const unsigned char *)"\xf4\x90\x80\x80", 4), 0); /* > U+10FFFF */
    ck_assert_uint_eq(ms_utf8_seq((const unsigned char *)"\xc3(", 2), 0);          /* not a continuation */
}
END_TEST

START_TEST(pyre_lines_match_each_line_as_text_mode)
{
    const char text[] = "acc: 1.5\nnothing\r\nacc: 2";
    ms_pyre re;
    ms_err e;
    ck_assert_msg(ms_pyre_compile(&re, "acc: ([0-9.]+)$", &e) == MS_OK, "%s", e.msg);
    ms_pyre_lines l;
    ms_pyre_lines_init(&l, text, sizeof text - 1);
    const char *want[] = {"1.5", NULL, "2"};
    size_t lines = 0;
    while (ms_pyre_lines_next(&l)) {
        ck_assert_uint_lt(lines, 3);
        const char *g = NULL;
        size_t gl = 0;
        int r = ms_pyre_lines_match(&l, &re, &g, &gl, &e);
        if (!want[lines]) {
            ck_assert_int_eq(r, 0);
        } else {
            /* '$' before the line's "\n" as Python's text mode hands it over */
            ck_assert_int_eq(r, 1);
            ck_assert_uint_eq(gl, strlen(want[lines]));
            ck_assert(!memcmp(g, want[lines], gl));
        }
        lines++;
        ck_assert_uint_eq(l.it.line_no, lines);
    }
    ck_assert_uint_eq(lines, 3);
    ms_pyre_lines_free(&l);
    ms_pyre_lines_free(&l); /* freeing twice is harmless */
    ms_pyre_free(&re);
}
END_TEST

START_TEST(utf8_reading_like_python)
{
    /* a lead byte at the end: pending, raises only when the reader goes on to the end */
    ck_assert_int_eq(raises("acc\nhash=x\n\xe9", 12, 11), 0);
    ck_assert_int_eq(raises("acc\nhash=x\n\xe9", 12, MS_PY_READ_TO_EOF), 1);
    /* a byte that no sequence starts with raises as soon as its chunk is decoded */
    ck_assert_int_eq(raises("acc\nhash=x\n\xff", 12, 11), 1);
    ck_assert_int_eq(raises("acc\n\xffhash=x\n", 12, 4), 1);
    /* a surrogate's first two bytes at the end stay pending too */
    ck_assert_int_eq(raises("acc\nhash=x\n\xed\xa0", 13, 11), 0);
    /* a line ending with \r needs the next character: the end of the file */
    ck_assert_int_eq(raises("acc\nhash=x\r\xe9", 12, 11), 1);
    /* a last line without terminator needs the end of the file */
    ck_assert_int_eq(raises("hash=x\xe9", 7, 7), 1);
    ck_assert_int_eq(raises("hash=x", 6, 6), 0);
    ck_assert_int_eq(raises("hash=x\n", 7, 7), 0);
    /* chunks of 8192 bytes: an error in a chunk never read does not raise */
    size_t n = 7 + 9000 + 2;
    char *big = malloc(n);
    ck_assert_ptr_nonnull(big);
    memcpy(big, "hash=x\n", 7);
    memset(big + 7, 'a', 9000);
    memcpy(big + 7 + 9000, "\xff\n", 2);
    ck_assert_int_eq(raises(big, n, 7), 0);
    ck_assert_int_eq(raises(big, n, MS_PY_READ_TO_EOF), 1);
    /* a lead byte ending the first chunk, proven invalid by the next chunk's first byte */
    n = 7 + (8192 - 8) + 3;
    memset(big + 7, 'a', 8192 - 8);
    memcpy(big + 8191, "\xe9" "b\n", 3);
    ck_assert_int_eq(raises(big, n, 7), 0);
    ck_assert_int_eq(raises(big, n, n), 1);
    free(big);
}
END_TEST

/* PCRE2's JIT is used unless MLSUBMIT_NO_JIT is set or valgrind's preload is there (its memcheck
 * cannot follow JIT code); a pattern matches the same either way */
START_TEST(jit_switch_and_same_matches)
{
    char *pre = getenv("LD_PRELOAD") ? strdup(getenv("LD_PRELOAD")) : NULL;
    char *no = getenv("MLSUBMIT_NO_JIT") ? strdup(getenv("MLSUBMIT_NO_JIT")) : NULL;
    unsetenv("LD_PRELOAD");
    unsetenv("MLSUBMIT_NO_JIT");
    ck_assert(ms_pcre2_jit_ok());
    setenv("MLSUBMIT_NO_JIT", "1", 1);
    ck_assert(!ms_pcre2_jit_ok());
    setenv("MLSUBMIT_NO_JIT", "", 1);
    ck_assert(ms_pcre2_jit_ok());
    setenv("LD_PRELOAD", "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so", 1);
    ck_assert(!ms_pcre2_jit_ok());
    unsetenv("LD_PRELOAD");
    ms_pyre a, b;
    ms_err e;
    ck_assert_int_eq(ms_pyre_compile(&a, "accuracy=([0-9\\.]+)%", &e), MS_OK);
    ck_assert_int_eq(ms_pyre_compile(&b, "accuracy=([0-9\\.]+)%", &e), MS_OK);
    ms_pyre_jit(&b);
    static const char *const subj[] = {"accuracy=76.456%, good=1", "x accuracy=1%", "accuracy=%",
                                       "accuracy=\xff", ""};
    for (size_t i = 0; i < sizeof subj / sizeof *subj; i++) {
        const char *g1 = NULL, *g2 = NULL;
        size_t l1 = 0, l2 = 0;
        ck_assert_int_eq(ms_pyre_match(&a, subj[i], strlen(subj[i]), &g1, &l1, &e),
                         ms_pyre_match(&b, subj[i], strlen(subj[i]), &g2, &l2, &e));
        ck_assert_uint_eq(l1, l2);
    }
    ms_pyre_free(&a);
    ms_pyre_free(&b);
    if (pre)
        setenv("LD_PRELOAD", pre, 1);
    if (no)
        setenv("MLSUBMIT_NO_JIT", no, 1);
    free(pre);
    free(no);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pytext");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, float_repr_matches_cpython);
    tcase_add_test(tc, float_repr_round_trips_and_is_shortest);
    tcase_add_test(tc, str_of_json_values);
    tcase_add_test(tc, truthiness);
    tcase_add_test(tc, float_parse_like_python);
    tcase_add_test(tc, universal_newlines);
    tcase_add_test(tc, re_match_semantics);
    tcase_add_test(tc, utf8_sequence_lengths);
    tcase_add_test(tc, pyre_lines_match_each_line_as_text_mode);
    tcase_add_test(tc, utf8_reading_like_python);
    tcase_add_test(tc, jit_switch_and_same_matches);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(suite)
