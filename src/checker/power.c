/* W4: the checks of the MLCommons Power WG checker (power_checker.py) on a power result's
 * performance/ directory (client.json, server.json, ptd_logs.txt, the run_1 and ranging detail
 * logs and spl.txt files). The facts (PTD versions, analyser models, expected PTD replies,
 * tolerances, result files, PTD log error classes, the source-checksum table) come from the
 * round's rules file (rules/<version>.json "power_checker"); the semantics follow the
 * reference, including its quirks (documented in docs/ARCHITECTURE.md):
 *
 *   sources      client.json and server.json "sources" equal one entry of the checksum table
 *   ptd          server.json ptd_messages: Identify names a supported analyser and PTD version,
 *                the SR,A / SR,V / Go / Stop replies are the expected ones, the initial ranges
 *                (RR reply) are restored at the end
 *   uuid         client and server uuid.client / uuid.server equal (as UUIDs)
 *   session      client and server session_name equal
 *   phases       client/server phase times within the tolerance, the LoadGen power_begin /
 *                power_end of ranging and run_1 inside the measured phases (DST allowance),
 *                testing much shorter than ranging (warning), average testing power not more
 *                than 5 % below ranging power
 *   messages     client and server message lists equal, same client/server protocol version
 *   results      SHA-1 of the result files equal to the ones client.json and server.json record
 *   ptd_log      ptd_logs.txt: the ranging mark and its completion, uncertainty checking
 *                activated before ranging, ERROR/WARNING lines classified like the reference
 *   ptd_config   supported device type; multichannel analysers configured with two channels
 *   debug        the server did not run in debug mode
 *
 * Each failed sub-check is one W4 error (the reference's CheckerWarning is a W4 warning); like
 * the reference, a sub-check stops at its first problem and the others still run. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checker/internal.h"
#include "common/buf.h"
#include "common/hash.h"
#include "common/pyfmt.h"

#define PW_TEXT_MAX CK_POWER_TEXT_MAX

typedef struct pwctx {
    ck_state *run;
    ck_flist *out;
    const ck_where *w;
    const json_t *pc;          /* rules "power_checker" */
    const char *perf_rel;      /* <scenario>/performance, relative to ROOT */
    const char *check;         /* current sub-check name */
    int failed;                /* the current sub-check already reported its problem */
    json_t *client, *server;
    char *client_rel, *server_rel;
    /* the files read so far (detail logs, spl.txt, ptd_logs.txt, the checksummed result files):
     * each is read once and shared by the sub-checks (their bytes as on disk) */
    struct pwcached {
        char *rel, *text;
        size_t len;
        int utf8_ok;
    } *files;
    size_t nfiles, capfiles;
    /* power_begin / power_end of the ranging [0] and run_1 [1] detail logs, once found */
    struct {
        int found;
        int64_t b, e;
    } be[2];
} pwctx;

static void pw_report(pwctx *c, ck_sev sev, const char *rel, const char *pointer,
                      const char *exp, const char *found, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

static void pw_report(pwctx *c, ck_sev sev, const char *rel, const char *pointer,
                      const char *exp, const char *found, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = ms_vfmt(fmt, ap);
    va_end(ap);
    if (!msg)
        c->run->oom = 1;
    ck_report_finding(c->run, c->out, c->w, CK_ID(W4), sev, rel, 0, pointer, exp, found,
                      "Power WG check '%s': %s", c->check, msg ? msg : "(out of memory)");
    free(msg);
    c->failed = 1;
}

#define PW_FAIL(c, rel, ptr, exp, found, ...) pw_report(c, CK_SEV_ERROR, rel, ptr, exp, found, __VA_ARGS__)
#define PW_WARN(c, rel, ptr, exp, found, ...) pw_report(c, CK_SEV_WARNING, rel, ptr, exp, found, __VA_ARGS__)

static char *pw_rel(const pwctx *c, const char *tail)
{
    return ck_join(c->perf_rel, tail);
}

/* ------------------------------------------------------------- regexes ---- */

/* re.search / re.match through PCRE2. Returns 1 and the match span on a match, 0 otherwise. */
typedef struct pwre {
    const pcre2_code *code;
    pcre2_match_data *md;
    pcre2_code *own;           /* code when compiled here (not the check's shared one) */
} pwre;

/* anchored: the pattern is only ever matched at the subject's start (re.match): anchored when
 * compiled, which lets PCRE2's JIT code run it (an anchored match option would not) */
static int pwre_compile_as(pwre *re, const char *pattern, int anchored)
{
    int err;
    PCRE2_SIZE off;
    uint32_t opts = PCRE2_UTF | (anchored ? PCRE2_ANCHORED : 0);
    re->own = NULL;
    /* compiled once per check (the Power WG check of every power result uses the same ones) */
    re->code = ck_re_shared(pattern, opts);
    if (!re->code)
        re->code = re->own = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &err,
                                           &off, NULL);
    re->md = re->code ? pcre2_match_data_create_from_pattern(re->code, NULL) : NULL;
    return re->code && re->md ? 0 : -1;
}

static int pwre_compile(pwre *re, const char *pattern)
{
    return pwre_compile_as(re, pattern, 0);
}

static void pwre_free(pwre *re)
{
    pcre2_match_data_free(re->md);
    pcre2_code_free(re->own);
    re->md = NULL;
    re->code = NULL;
    re->own = NULL;
}

/* group g of the first match at or after the start (anchored: re.match) */
static int pwre_find(const pwre *re, const char *s, size_t n, int anchored, int g,
                     size_t *start, size_t *len)
{
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, anchored ? PCRE2_ANCHORED : 0, re->md,
                         NULL);
    if (rc <= g)
        return 0;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
    if (ov[2 * g] == PCRE2_UNSET)
        return 0;
    *start = ov[2 * g];
    *len = ov[2 * g + 1] - ov[2 * g];
    return 1;
}

/* ---------------------------------------------------------------- times ---- */

typedef struct pwtime {
    pwre strptime_re;          /* datetime.strptime(s, "%m-%d-%Y %H:%M:%S.%f") */
    pwre loadgen_re;           /* (\d*-\d*-\d* \d*:\d*:\d*\.\d*) searched in a detail-log line */
    pwre ptd_re;               /* ^\d\d-\d\d-\d\d\d\d \d\d:\d\d:\d\d.\d\d\d at a PTD log line start */
} pwtime;

static int pwtime_init(pwtime *t)
{
    memset(t, 0, sizeof *t);
    return pwre_compile_as(&t->strptime_re,
                           "(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])-(\\d\\d\\d\\d)"
                           "\\s+(2[0-3]|[0-1]\\d|\\d):([0-5]\\d|\\d):(6[0-1]|[0-5]\\d|\\d)\\."
                           "([0-9]{1,6})",
                           1) ||
           pwre_compile(&t->loadgen_re, "\\d*-\\d*-\\d* \\d*:\\d*:\\d*\\.\\d*") ||
           pwre_compile_as(&t->ptd_re, "\\d\\d-\\d\\d-\\d\\d\\d\\d \\d\\d:\\d\\d:\\d\\d.\\d\\d\\d", 1);
}

static void pwtime_free(pwtime *t)
{
    pwre_free(&t->strptime_re);
    pwre_free(&t->loadgen_re);
    pwre_free(&t->ptd_re);
}

static long grp(const pwre *re, const char *s, int g)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(re->md);
    long v = 0;
    for (PCRE2_SIZE i = ov[2 * g]; i < ov[2 * g + 1]; i++)
        if (s[i] >= '0' && s[i] <= '9')
            v = v * 10 + (s[i] - '0');
    return v;
}

/* Python's strptime with "%m-%d-%Y %H:%M:%S.%f" (whole string), as UTC microseconds since 1970.
 * Returns 0, or -1 when Python raises ValueError. */
static int py_strptime_us(const pwtime *t, const char *s, size_t n, int64_t *us)
{
    int rc = pcre2_match(t->strptime_re.code, (PCRE2_SPTR)s, n, 0, 0, /* anchored when compiled */
                         t->strptime_re.md, NULL);
    if (rc < 8)
        return -1;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->strptime_re.md);
    if (ov[1] != n)
        return -1;   /* "unconverted data remains" */
    long mo = grp(&t->strptime_re, s, 1), dd = grp(&t->strptime_re, s, 2);
    long yy = grp(&t->strptime_re, s, 3), hh = grp(&t->strptime_re, s, 4);
    long mi = grp(&t->strptime_re, s, 5), ss = grp(&t->strptime_re, s, 6);
    long frac = grp(&t->strptime_re, s, 7);
    for (PCRE2_SIZE k = ov[15] - ov[14]; k < 6; k++)
        frac *= 10;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0;
    if (yy < 1 || ss > 59 || dd > mdays[mo - 1] + (mo == 2 && leap))
        return -1;   /* datetime() rejects these */
    long y = yy - (mo <= 2);
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + dd - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = (int64_t)era * 146097 + doe - 719468;
    *us = (days * 86400 + hh * 3600 + mi * 60 + ss) * 1000000LL + frac;
    return 0;
}

int ck_ptd_strptime(const char *s, size_t n, int64_t *us)
{
    pwtime t;
    int rc = pwtime_init(&t) ? -2 : py_strptime_us(&t, s, n, us);
    pwtime_free(&t);
    return rc;
}

static double us_to_s(int64_t us)
{
    return (double)us / 1e6;  /* datetime.timestamp(): integer microseconds / 10**6 */
}

/* ------------------------------------------------------------ JSON helpers ---- */

/* Python == between two JSON values (numbers by value, booleans as 0/1) */
static int py_eq(const json_t *a, const json_t *b)
{
    return ms_json_equal(a, b, 1);
}

/* Python float of a JSON number (bool counts as int); -1 if not a number */
static int py_num(const json_t *v, double *out)
{
    if (json_is_boolean(v)) {
        *out = json_is_true(v);
        return 0;
    }
    if (!json_is_number(v))
        return -1;
    *out = json_number_value(v);
    return 0;
}

/* str(v) (malloc'd; "?" on allocation failure is avoided by returning NULL) */
static char *py_str(const json_t *v)
{
    ms_buf b = MS_BUF_INIT;
    if (ms_py_str_json(&b, v) || (!b.data && ms_buf_puts(&b, ""))) {
        ms_buf_free(&b);
        return NULL;
    }
    return ms_buf_steal(&b);
}

/* repr(s) of a byte string (malloc'd) */
static char *py_repr(const char *s, size_t n)
{
    ms_buf b = MS_BUF_INIT;
    if (ms_py_str_repr(&b, s, n)) {
        ms_buf_free(&b);
        return NULL;
    }
    return ms_buf_steal(&b);
}

/* Python round(x, nd) for a float: correctly rounded decimal, ties to even on the exact value */
static double py_round(double x, int nd)
{
    if (!isfinite(x))
        return x;
    char buf[400];
    snprintf(buf, sizeof buf, "%.*f", nd, x);
    return strtod(buf, NULL);
}

/* uuid.UUID(s): 'urn:' and 'uuid:' removed, '{' '}' stripped from both ends, '-' removed, then
 * 32 characters that int(x, 16) accepts (whitespace, sign, 0x prefix, digit underscores).
 * Returns 0 with the 128-bit value, -1 on ValueError / TypeError. */
static int py_uuid(const json_t *v, uint64_t out[2])
{
    if (!json_is_string(v))
        return -1;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    char *h = malloc(n + 1);
    if (!h)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        if (!strncmp(s + i, "urn:", 4) && i + 4 <= n) {
            i += 4;
            continue;
        }
        h[m++] = s[i++];
    }
    h[m] = '\0';
    /* the two replace() calls run one after the other: 'uuid:' after 'urn:' */
    size_t k = 0;
    for (size_t i = 0; i < m;) {
        if (!strncmp(h + i, "uuid:", 5)) {
            i += 5;
            continue;
        }
        h[k++] = h[i++];
    }
    h[k] = '\0';
    size_t a = 0, z = k;
    while (a < z && (h[a] == '{' || h[a] == '}'))
        a++;
    while (z > a && (h[z - 1] == '{' || h[z - 1] == '}'))
        z--;
    char hex[64];
    size_t hn = 0;
    int bad = 0;
    for (size_t i = a; i < z; i++) {
        if (h[i] == '-')
            continue;
        if (hn >= 32) {
            bad = 1;
            break;
        }
        hex[hn++] = h[i];
    }
    free(h);
    if (bad || hn != 32)
        return -1;
    hex[hn] = '\0';
    /* int(hex, 16) */
    const char *p = hex, *e = hex + hn;
    while (p < e && isspace((unsigned char)*p))
        p++;
    while (e > p && isspace((unsigned char)e[-1]))
        e--;
    if (p < e && *p == '+')
        p++;
    if (e - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (p < e && *p == '_')
            p++;
    }
    uint64_t hi = 0, lo = 0;
    int digits = 0, prev_us = 0;
    for (; p < e; p++) {
        if (*p == '_') {
            if (!digits || prev_us)
                return -1;
            prev_us = 1;
            continue;
        }
        int d = isdigit((unsigned char)*p) ? *p - '0'
                : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
                : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        hi = (hi << 4) | (lo >> 60);
        lo = (lo << 4) | (uint64_t)d;
        digits++;
        prev_us = 0;
    }
    if (!digits || prev_us)
        return -1;
    out[0] = hi;
    out[1] = lo;
    return 0;
}

/* int(v) succeeds: numbers, booleans, integer strings (whitespace, sign, digit underscores) */
static int py_int_ok(const json_t *v)
{
    if (json_is_integer(v) || json_is_boolean(v))
        return 1;
    if (json_is_real(v))
        return isfinite(json_real_value(v));
    if (!json_is_string(v))
        return 0;
    const char *p = json_string_value(v);
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0, us = 0;
    for (; *p && !isspace((unsigned char)*p); p++) {
        if (*p == '_' && digits && !us) {
            us = 1;
            continue;
        }
        if (!isdigit((unsigned char)*p))
            return 0;
        digits++;
        us = 0;
    }
    while (isspace((unsigned char)*p))
        p++;
    return digits && !us && !*p;
}

/* ----------------------------------------------------------- text files ---- */

typedef struct pwtext {
    char *text;
    size_t len;
    int utf8_ok; /* known to be valid UTF-8 (read by the detail-log reader, which checked it) */
} pwtext;

/* The bytes of the file rel (relative to ROOT, absolute path abs) from the context's files, read
 * now if they are not there yet. 0, or -1 with e set (a read error: nothing is kept, so that a
 * later sub-check reading it again reports it again, as the reference does). */
static int pw_bytes(pwctx *c, const char *rel, const char *abs, pwtext *t, ms_err *e)
{
    for (size_t i = 0; i < c->nfiles; i++)
        if (!strcmp(c->files[i].rel, rel)) {
            t->text = c->files[i].text;
            t->len = c->files[i].len;
            t->utf8_ok = c->files[i].utf8_ok;
            return 0;
        }
    char *text, *name = strdup(rel);
    size_t len;
    if (!name || MS_GROW(c->files, c->capfiles, c->nfiles + 1, 8)) {
        free(name);
        c->run->oom = 1;
        return ms_err_oom(e);
    }
    if (ck_read_text(abs, PW_TEXT_MAX, &text, &len, e)) {
        free(name);
        return -1;
    }
    c->files[c->nfiles++] = (struct pwcached){name, text, len, 0};
    t->text = text;
    t->len = len;
    t->utf8_ok = 0;
    return 0;
}

static void pw_files_free(pwctx *c)
{
    for (size_t i = 0; i < c->nfiles; i++) {
        free(c->files[i].rel);
        free(c->files[i].text);
    }
    free(c->files);
}

/* Reads a text file as Python's open() would (UTF-8); reports and returns -1 on failure. The text
 * belongs to the context (pw_bytes). */
static int pw_read(pwctx *c, const char *rel, pwtext *t)
{
    memset(t, 0, sizeof *t);
    char *abs = ck_join(c->run->root, rel);
    ms_err e;
    if (!abs) {
        c->run->oom = 1;
        return -1;
    }
    if (!ck_isfile(abs)) {
        PW_FAIL(c, rel, NULL, "the file", "missing", "%s is missing", rel);
        free(abs);
        return -1;
    }
    if (pw_bytes(c, rel, abs, t, &e)) {
        PW_FAIL(c, rel, NULL, NULL, NULL, "cannot read %s: %s", rel, e.msg);
        free(abs);
        return -1;
    }
    free(abs);
    size_t off;
    if (!t->utf8_ok && !ms_utf8_valid(t->text, t->len, &off)) {
        PW_FAIL(c, rel, NULL, "UTF-8 text", "an invalid byte",
                "%s is not valid UTF-8 (byte offset %zu)", rel, off);
        t->text = NULL;
        return -1;
    }
    return 0;
}

/* The line as Python's text mode yields it (with its "\n"), in a reusable buffer */
static const char *pw_line(char **buf, size_t *cap, const char *line, size_t len, int nl, size_t *n)
{
    if (len + 2 > *cap) {
        size_t nc = len + 64;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return NULL;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf, line, len);
    if (nl)
        (*buf)[len++] = '\n';
    (*buf)[len] = '\0';
    *n = len;
    return *buf;
}

/* A text file read line by line as Python's text mode yields the lines (each with its "\n") */
typedef struct pwfile {
    pwtext t;
    ms_lines it;
    char *lb;
    size_t lcap;
} pwfile;

static int pwf_open(pwctx *c, const char *rel, pwfile *f)
{
    memset(f, 0, sizeof *f);
    if (pw_read(c, rel, &f->t))
        return -1;
    ms_lines_init(&f->it, f->t.text, f->t.len);
    return 0;
}

static void pwf_rewind(pwfile *f)
{
    ms_lines_init(&f->it, f->t.text, f->t.len);
}

/* 1 with the next line in *l (*n bytes), 0 at the end, -1 out of memory (run->oom set) */
static int pwf_next(pwctx *c, pwfile *f, const char **l, size_t *n)
{
    const char *line;
    size_t len;
    int nl;
    if (!ms_lines_next(&f->it, &line, &len, &nl))
        return 0;
    *l = pw_line(&f->lb, &f->lcap, line, len, nl, n);
    if (!*l) {
        c->run->oom = 1;
        return -1;
    }
    return 1;
}

static void pwf_close(pwfile *f)
{
    free(f->lb);
    memset(f, 0, sizeof *f);
}

/* Whether the line (up to its first NUL, as strcasestr on it would see it) contains
 * "power_begin" (1), else "power_end" (2), in any case, else 0: found from its '_' in one pass,
 * so that a line is neither copied nor searched byte by byte. */
static int power_key(const char *l, size_t n)
{
    n = strnlen(l, n);
    int end = 0;
    for (const char *u = l + 5; u < l + n; u++) {
        u = memchr(u, '_', (size_t)(l + n - u));
        if (!u)
            break;
        /* ((c | 0x20) == 'r' holds for 'r' and 'R' only: a cheap first test of "power") */
        size_t left = (size_t)(l + n - u);
        if (left > 3 && ((unsigned char)u[-1] | 0x20) == 'r' && !strncasecmp(u - 5, "power", 5)) {
            if (left > 5 && !strncasecmp(u + 1, "begin", 5))
                return 1;
            if (!strncasecmp(u + 1, "end", 3))
                end = 1;
        }
    }
    return end ? 2 : 0;
}

/* power_begin / power_end of a detail log as the Power WG checker reads them: the first lines
 * whose lower-cased text contains the key, the date found by the loose pattern, read with
 * strptime. Returns 0, or -1 after reporting. */
static int pw_begin_end_read(pwctx *c, const pwtime *tm, const char *dir, int64_t *b, int64_t *e)
{
    char *rel = ck_fmt("%s/%s/mlperf_log_detail.txt", c->perf_rel, dir);
    pwfile f;
    int rc = -1, have_b = 0, have_e = 0;
    const char *l;
    size_t n;
    if (!rel) {
        c->run->oom = 1;
        return -1;
    }
    if (pwf_open(c, rel, &f))
        goto out;
    const char *raw;
    int nl;
    while (ms_lines_next(&f.it, &raw, &n, &nl)) {
        int key = power_key(raw, n);
        int isb = key == 1, ise = key == 2;
        if (isb || ise) {
            /* the line as Python yields it (with its "\n", NUL-terminated) for the patterns */
            if (!(l = pw_line(&f.lb, &f.lcap, raw, n, nl, &n))) {
                c->run->oom = 1;
                break;
            }
            size_t ms, ml;
            int64_t v;
            if (!pwre_find(&tm->loadgen_re, l, n, 0, 0, &ms, &ml) || ml == 0) {
                PW_FAIL(c, rel, NULL, "a MM-DD-YYYY HH:MM:SS.ffffff time", "none",
                        "line %zu has %s without a time stamp", f.it.line_no,
                        isb ? "power_begin" : "power_end");
                goto out;
            }
            if (py_strptime_us(tm, l + ms, ml, &v)) {
                char shown[80];
                snprintf(shown, sizeof shown, "%.*s", (int)(ml < 60 ? ml : 60), l + ms);
                PW_FAIL(c, rel, NULL, "MM-DD-YYYY HH:MM:SS.ffffff", shown,
                        "line %zu: '%s' is not a valid %s time", f.it.line_no, shown,
                        isb ? "power_begin" : "power_end");
                goto out;
            }
            if (isb) {
                *b = v;
                have_b = 1;
            } else {
                *e = v;
                have_e = 1;
            }
        }
        if (have_b && have_e && *b != 0 && *e != 0)
            break;
    }
    if (c->run->oom)
        goto out;
    if (!have_b)
        PW_FAIL(c, rel, NULL, "power_begin", "none", "cannot get the power_begin time from %s", rel);
    else if (!have_e)
        PW_FAIL(c, rel, NULL, "power_end", "none", "cannot get the power_end time from %s", rel);
    else
        rc = 0;
out:
    pwf_close(&f);
    free(rel);
    return rc;
}

/* pw_begin_end_read once per log: dir is "ranging" or "run_1". A failure is not kept (the next
 * sub-check that needs the times reports it again, as the reference does). */
static int pw_begin_end(pwctx *c, const pwtime *tm, const char *dir, int64_t *b, int64_t *e)
{
    int k = strcmp(dir, "ranging") != 0;
    if (!c->be[k].found) {
        if (pw_begin_end_read(c, tm, dir, &c->be[k].b, &c->be[k].e))
            return -1;
        c->be[k].found = 1;
    }
    *b = c->be[k].b;
    *e = c->be[k].e;
    return 0;
}

/* ---------------------------------------------------------------- checks ---- */

static void chk_sources(pwctx *c, const json_t *sd, const char *rel)
{
    const json_t *s = json_object_get(sd, "sources");
    const json_t *table = json_object_get(c->pc, "sources_checksums");
    for (size_t i = 0; i < json_array_size(table); i++)
        if (py_eq(s, json_array_get(table, i)))
            return;
    PW_FAIL(c, rel, "/sources", "an entry of the Power WG source-checksum table",
            "unknown checksums", "the sources checksums of %s are not in the Power WG table (the "
            "PTD client/server code is not an official release)", rel);
}

static const char *msg_str(const json_t *m, const char *k)
{
    return json_string_value(json_object_get(m, k));
}

/* get_command_by_value_and_number: the cmd of the number-th message whose cmd starts with p */
static const char *nth_cmd(const json_t *msgs, const char *p, long number)
{
    long k = 0;
    for (size_t i = 0; i < json_array_size(msgs); i++) {
        const char *cmd = msg_str(json_array_get(msgs, i), "cmd");
        if (cmd && !strncmp(cmd, p, strlen(p)) && ++k == number)
            return cmd;
    }
    return NULL;
}

/* get_initial_range: "Ranges,<auto>,<range>,..." -> the range when autorange is 0 and it is
 * positive, else "Auto". Returns NULL (after reporting) when Python raises. */
static char *initial_range(pwctx *c, const char *reply, size_t param)
{
    const char *f[16];
    size_t fl[16], nf = 0;
    const char *p = reply;
    for (;;) {
        const char *q = strchr(p, ',');
        if (nf < 16) {
            f[nf] = p;
            fl[nf] = q ? (size_t)(q - p) : strlen(p);
            nf++;
        }
        if (!q)
            break;
        p = q + 1;
    }
    if (param >= nf || (fl[param] == 1 && f[param][0] == '0' && param + 1 >= nf)) {
        PW_FAIL(c, c->server_rel, "/ptd_messages/2/reply", "Ranges,<a>,<A>,<v>,<V>", reply,
                "cannot get the analyser's initial ranges from the reply '%s'", reply);
        return NULL;
    }
    if (fl[param] == 1 && f[param][0] == '0') {
        double v;
        if (ms_py_float_parse(f[param + 1], fl[param + 1], &v)) {
            PW_FAIL(c, c->server_rel, "/ptd_messages/2/reply", "Ranges,<a>,<A>,<v>,<V>", reply,
                    "cannot get the analyser's initial ranges from the reply '%s'", reply);
            return NULL;
        }
        if (v > 0)
            return strndup(f[param + 1], fl[param + 1]);
    }
    return strdup("Auto");
}

static void chk_ptd_messages(pwctx *c, const pwre *version_re)
{
    const char *rel = c->server_rel;
    const json_t *msgs = json_object_get(c->server, "ptd_messages");
    if (!json_is_array(msgs)) {
        PW_FAIL(c, rel, "/ptd_messages", "a list of PTD commands and replies",
                msgs ? "another value" : "missing", "server.json has no ptd_messages list");
        return;
    }
    for (size_t i = 0; i < json_array_size(msgs); i++) {
        const json_t *m = json_array_get(msgs, i);
        if (!json_is_string(json_object_get(m, "cmd"))) {
            char ptr[48];
            snprintf(ptr, sizeof ptr, "/ptd_messages/%zu/cmd", i);
            PW_FAIL(c, rel, ptr, "a command text", "another value", "PTD message %zu has no "
                    "command text", i);
            return;
        }
    }
    const char *ident = NULL;
    for (size_t i = 0; i < json_array_size(msgs) && !ident; i++) {
        const json_t *m = json_array_get(msgs, i);
        if (!strcmp(msg_str(m, "cmd"), "Identify"))
            ident = msg_str(m, "reply") ? msg_str(m, "reply") : "";
    }
    if (!ident || !*ident) {
        PW_FAIL(c, rel, "/ptd_messages", "a reply to Identify", "none",
                "there is no reply to the PTD 'Identify' command");
        return;
    }
    size_t mlen = strcspn(ident, ",");
    char model[128];
    snprintf(model, sizeof model, "%.*s", (int)(mlen < 127 ? mlen : 127), ident);
    size_t vs, vl;
    char version[64] = "";
    if (pwre_find(version_re, ident, strlen(ident), 0, 1, &vs, &vl))
        snprintf(version, sizeof version, "%.*s", (int)(vl < 63 ? vl : 63), ident + vs);
    const json_t *vers = json_object_get(c->pc, "ptd_versions");
    if (!ck_jlist_has(vers, version)) {
        char *want = py_str(vers);
        PW_FAIL(c, rel, "/ptd_messages", want, version,
                "PTD version '%s' is not supported (supported: %s)", version, want ? want : "?");
        free(want);
        return;
    }
    if (!json_object_get(json_object_get(c->pc, "analyzer_models"), model)) {
        PW_FAIL(c, rel, "/ptd_messages", "a supported analyser model", model,
                "power analyser '%s' is not supported", model);
        return;
    }
    /* expected replies */
    const json_t *replies = json_object_get(c->pc, "ptd_replies");
    for (size_t r = 0; r < json_array_size(replies); r++) {
        const json_t *x = json_array_get(replies, r);
        const char *pfx = msg_str(x, "prefix"), *want = msg_str(x, "reply");
        const char *third = msg_str(x, "third_stop_reply");
        if (!pfx || !want)
            continue;
        int stops = 0;
        for (size_t i = 0; i < json_array_size(msgs); i++) {
            const json_t *m = json_array_get(msgs, i);
            const char *cmd = msg_str(m, "cmd");
            if (strncmp(cmd, pfx, strlen(pfx)))
                continue;
            if (third && !strcmp(cmd, "Stop")) {
                if (stops == 2)
                    want = third;  /* the reference keeps this expectation for later Stops */
                stops++;
            }
            const json_t *got_j = json_object_get(m, "reply");
            const char *got_s = json_string_value(got_j);
            if (!got_s || strcmp(got_s, want)) {
                char ptr[48];
                snprintf(ptr, sizeof ptr, "/ptd_messages/%zu/reply", i);
                char *got = py_str(got_j);
                PW_FAIL(c, rel, ptr, want, got, "wrong reply to PTD command '%s': expected "
                        "'%s', got '%s'", cmd, want, got ? got : "?");
                free(got);
                return;
            }
        }
    }
    /* the initial ranges restored at the end */
    const json_t *m2 = json_array_get(msgs, 2);
    const char *rr = msg_str(m2, "reply");
    if (!rr) {
        PW_FAIL(c, rel, "/ptd_messages/2/reply", "the RR reply", "none",
                "cannot get the analyser's initial ranges (no third PTD message)");
        return;
    }
    char *amps = initial_range(c, rr, 1);
    char *volts = amps ? initial_range(c, rr, 3) : NULL;
    if (!amps || !volts) {
        if ((amps && !volts) && !c->failed)
            c->run->oom = 1;
        free(amps);
        free(volts);
        return;
    }
    const json_t *an = json_object_get(c->pc, "initial_amps_command_numbers");
    const json_t *vn = json_object_get(c->pc, "initial_volts_command_numbers");
    const char *acmd[4] = {0}, *vcmd[4] = {0};
    size_t na = json_array_size(an) < 4 ? json_array_size(an) : 4;
    size_t nv = json_array_size(vn) < 4 ? json_array_size(vn) : 4;
    for (size_t i = 0; i < na + nv; i++) {
        const char *pfx = i < na ? "SR,A" : "SR,V";
        long num = (long)json_integer_value(json_array_get(i < na ? an : vn, i < na ? i : i - na));
        const char *cmd = nth_cmd(msgs, pfx, num);
        if (!cmd) {
            PW_FAIL(c, rel, "/ptd_messages", "the command that restores the initial range", "none",
                    "cannot find command number %ld starting with '%s'", num, pfx);
            goto done;
        }
        if (i < na)
            acmd[i] = cmd;
        else
            vcmd[i - na] = cmd;
    }
    for (int pass = 0; pass < 2; pass++) {
        const char **cmds = pass ? vcmd : acmd;
        size_t n = pass ? nv : na;
        char *want = ck_fmt("SR,%c,%s", pass ? 'V' : 'A', pass ? volts : amps);
        int ok = 0;
        for (size_t i = 0; i < n && want; i++)
            ok |= !strcmp(cmds[i], want);
        if (want && !ok)
            PW_FAIL(c, rel, "/ptd_messages", want, cmds[0],
                    "the %s range was not set back to its initial value: expected '%s', got '%s'",
                    pass ? "Volts" : "Amps", want, cmds[0]);
        free(want);
        if (!ok)
            break;
    }
done:
    free(amps);
    free(volts);
}

static void chk_uuid(pwctx *c)
{
    const json_t *uc = json_object_get(c->client, "uuid"), *us = json_object_get(c->server, "uuid");
    static const char *const who[2] = {"client", "server"};
    for (int i = 0; i < 2; i++) {
        uint64_t a[2], b[2];
        char ptr[32];
        snprintf(ptr, sizeof ptr, "/uuid/%s", who[i]);
        if (py_uuid(json_object_get(uc, who[i]), a)) {
            PW_FAIL(c, c->client_rel, ptr, "a UUID", "another value", "uuid.%s is not a UUID", who[i]);
            return;
        }
        if (py_uuid(json_object_get(us, who[i]), b)) {
            PW_FAIL(c, c->server_rel, ptr, "a UUID", "another value", "uuid.%s is not a UUID", who[i]);
            return;
        }
        if (a[0] != b[0] || a[1] != b[1]) {
            PW_FAIL(c, c->server_rel, ptr, json_string_value(json_object_get(uc, who[i])),
                    json_string_value(json_object_get(us, who[i])),
                    "the %s UUID differs between client.json and server.json", who[i]);
            return;
        }
    }
}

static void chk_session(pwctx *c)
{
    const json_t *a = json_object_get(c->client, "session_name");
    const json_t *b = json_object_get(c->server, "session_name");
    if (!py_eq(a, b)) {
        char *sa = py_str(a), *sb = py_str(b);
        PW_FAIL(c, c->server_rel, "/session_name", sa, sb,
                "the session name differs: client '%s', server '%s'", sa ? sa : "?", sb ? sb : "?");
        free(sa);
        free(sb);
    }
}

/* phases[mode][i][0] */
static int phase_time(const json_t *sd, const char *mode, size_t i, double *t)
{
    return py_num(json_array_get(json_array_get(json_object_get(json_object_get(sd, "phases"),
                                                                mode), i), 0), t);
}

/* average watts and power factor of the samples of spl.txt strictly inside (b, e) */
static int avg_power(pwctx *c, const pwtime *tm, const char *dir, int64_t b, int64_t e,
                     double *watts, double *pf)
{
    char *rel = ck_fmt("%s/%s/spl.txt", c->perf_rel, dir);
    pwfile fl;
    int rc = -1;
    double sw = 0, spf = 0;
    size_t nw = 0, npf = 0, n;
    const char *l;
    if (!rel) {
        c->run->oom = 1;
        return -1;
    }
    if (pwf_open(c, rel, &fl))
        goto out;
    int more;
    while ((more = pwf_next(c, &fl, &l, &n)) > 0) {
        if (strncmp(l, "Time", 4))
            continue;
        const char *f[12];
        size_t flen[12], nf = 0;
        for (const char *p = l;;) {
            const char *q = memchr(p, ',', (size_t)(l + n - p));
            if (nf < 12) {
                f[nf] = p;
                flen[nf] = q ? (size_t)(q - p) : (size_t)(l + n - p);
                nf++;
            }
            if (!q)
                break;
            p = q + 1;
        }
        int64_t ts;
        if (nf < 2 || py_strptime_us(tm, f[1], flen[1], &ts)) {
            PW_FAIL(c, rel, NULL, "Time,MM-DD-YYYY HH:MM:SS.fff,...", "another line",
                    "line %zu: no valid sample time", fl.it.line_no);
            goto out;
        }
        if (!(ts > b && ts < e))
            continue;
        double w, p;
        if (nf < 10 || ms_py_float_parse(f[3], flen[3], &w) || ms_py_float_parse(f[9], flen[9], &p)) {
            PW_FAIL(c, rel, NULL, "Time,<t>,Watts,<w>,Volts,<v>,Amps,<a>,PF,<pf>,...",
                    "another line", "line %zu: cannot read the watts (field 3) and power factor "
                    "(field 9)", fl.it.line_no);
            goto out;
        }
        if (w > 0) {
            sw += w;
            nw++;
        }
        if (p > 0) {
            spf += p;
            npf++;
        }
    }
    if (more < 0)
        goto out;
    *watts = nw ? sw / (double)nw : -1.0;
    *pf = npf ? spf / (double)npf : -1.0;
    rc = 0;
out:
    pwf_close(&fl);
    free(rel);
    return rc;
}

static void chk_phases(pwctx *c, const pwtime *tm)
{
    static const char *const modes[2] = {"ranging", "testing"};
    double tol = json_number_value(json_object_get(c->pc, "phase_tolerance_ms")) / 1000;
    double dst = json_number_value(json_object_get(c->pc, "dst_allowance_s"));
    for (int m = 0; m < 2; m++) {
        const json_t *pc_ = json_object_get(json_object_get(c->client, "phases"), modes[m]);
        const json_t *ps = json_object_get(json_object_get(c->server, "phases"), modes[m]);
        char ptr[40];
        snprintf(ptr, sizeof ptr, "/phases/%s", modes[m]);
        if (!json_is_array(pc_) || !json_is_array(ps)) {
            PW_FAIL(c, json_is_array(pc_) ? c->server_rel : c->client_rel, ptr, "a list of phases",
                    "another value", "phases.%s is missing or not a list", modes[m]);
            return;
        }
        if (json_array_size(pc_) != json_array_size(ps)) {
            char e1[24], e2[24];
            snprintf(e1, sizeof e1, "%zu", json_array_size(pc_));
            snprintf(e2, sizeof e2, "%zu", json_array_size(ps));
            PW_FAIL(c, c->server_rel, ptr, e1, e2, "the number of %s phases differs between "
                    "client (%s) and server (%s)", modes[m], e1, e2);
            return;
        }
        for (size_t i = 0; i < json_array_size(pc_); i++) {
            double a, b;
            if (phase_time(c->client, modes[m], i, &a) || phase_time(c->server, modes[m], i, &b)) {
                PW_FAIL(c, c->client_rel, ptr, "[time, monotonic] pairs", "another value",
                        "phase %zu of %s has no time", i + 1, modes[m]);
                return;
            }
            double d = fabs(a - b);
            if (!(d <= tol)) {
                char e1[32], e2[48];
                snprintf(e1, sizeof e1, "<= %g ms", tol * 1000);
                snprintf(e2, sizeof e2, "%g ms", d * 1000);
                PW_FAIL(c, c->server_rel, ptr, e1, e2, "phase %zu of %s: client and server times "
                        "differ by %g ms (more than %g ms)", i + 1, modes[m], d * 1000, tol * 1000);
                return;
            }
        }
    }
    int64_t rb, re, tb, te;
    if (pw_begin_end(c, tm, "ranging", &rb, &re) || pw_begin_end(c, tm, "run_1", &tb, &te))
        return;
    for (int m = 0; m < 2; m++) {
        double p1, p2;
        char ptr[40];
        snprintf(ptr, sizeof ptr, "/phases/%s", modes[m]);
        if (phase_time(c->client, modes[m], 1, &p1) || phase_time(c->client, modes[m], 2, &p2)) {
            PW_FAIL(c, c->client_rel, ptr, "at least 3 phases", "fewer",
                    "the %s phases lack the LoadGen start and end", modes[m]);
            return;
        }
        int64_t bb = m ? tb : rb, ee = m ? te : re;
        double b = us_to_s(bb), e = us_to_s(ee);
        int bok = (p1 < b && b < p2) || (p1 < b - dst && b - dst < p2);
        int eok = (p1 < e && e < p2) || (p1 < e - dst && e - dst < p2);
        if (!bok || !eok) {
            char *drel = ck_fmt("%s/%s/mlperf_log_detail.txt", c->perf_rel, m ? "run_1" : "ranging");
            char e1[64];
            snprintf(e1, sizeof e1, "(%.3f, %.3f)", p1, p2);
            char e2[32];
            snprintf(e2, sizeof e2, "%.3f", bok ? e : b);
            PW_FAIL(c, drel, NULL, e1, e2, "the LoadGen %s time (%.3f) is not within the %s phase "
                    "of client.json (%.3f - %.3f, with a %g s DST allowance)",
                    bok ? "power_end" : "power_begin", bok ? e : b, modes[m], p1, p2, dst);
            free(drel);
            return;
        }
    }
    double rdur = us_to_s(re) - us_to_s(rb), tdur = us_to_s(te) - us_to_s(tb);
    const json_t *err_ratio = json_object_get(c->pc, "duration_error_ratio");
    if (json_is_number(err_ratio)) {
        /* compare_duration of phases_check (tag v3.0): the two durations differ by less than
         * the ratio of the longer, else the check fails; no warning, no average-power check */
        double longer = rdur > tdur ? rdur : tdur;
        double lim = json_number_value(err_ratio);
        if (longer == 0) {
            PW_FAIL(c, c->perf_rel, NULL, "runs that last", "0 s",
                    "the ranging and testing runs have no duration (the reference divides by it)");
        } else if (!(fabs(rdur - tdur) / longer < lim)) {
            char e1[32], e2[32];
            snprintf(e1, sizeof e1, "< %g %%", lim * 100);
            snprintf(e2, sizeof e2, "%.2f %%", fabs(rdur - tdur) / longer * 100);
            PW_FAIL(c, c->perf_rel, NULL, e1, e2, "the ranging run (%.2f s) and the testing run "
                    "(%.2f s) differ by %.2f %% of the longer (%g %% allowed)", rdur, tdur,
                    fabs(rdur - tdur) / longer * 100, lim * 100);
        }
        return;
    }
    if (rdur == 0) {
        PW_FAIL(c, c->perf_rel, NULL, "a ranging run that lasts", "0 s",
                "the ranging run has no duration (the reference divides by it)");
        return;
    }
    double ratio = (rdur - tdur) / rdur;
    if (ratio > json_number_value(json_object_get(c->pc, "duration_warning_ratio"))) {
        PW_WARN(c, c->perf_rel, NULL, NULL, NULL, "the testing run (%.2f s) is shorter than the "
                "ranging run (%.2f s) by %.2f %%", tdur, rdur, ratio * 100);
        return;  /* like the reference: the warning ends this check */
    }
    double rw, rpf, tw, tpf;
    if (avg_power(c, tm, "ranging", rb, re, &rw, &rpf) || avg_power(c, tm, "run_1", tb, te, &tw, &tpf))
        return;
    rw = py_round(rw, 5);
    tw = py_round(tw, 5);
    if (rw == 0) {
        PW_FAIL(c, c->perf_rel, NULL, "ranging power", "0 W",
                "the average ranging power is 0 (the reference divides by it)");
        return;
    }
    double delta = py_round((tw / rw - 1) * 100, 2);
    double lim = json_number_value(json_object_get(c->pc, "min_power_delta_percent"));
    if (!(delta > lim)) {
        char e1[32], e2[32];
        snprintf(e1, sizeof e1, "> %g %%", lim);
        snprintf(e2, sizeof e2, "%g %%", delta);
        char *rel = pw_rel(c, "run_1/spl.txt");
        PW_FAIL(c, rel, NULL, e1, e2, "the average power of the testing run (%g W) is lower than "
                "that of the ranging run (%g W) by more than %g %% (delta %g %%)", tw, rw, -lim,
                delta);
        free(rel);
    }
}

static void chk_messages(pwctx *c)
{
    const json_t *mc = json_object_get(c->client, "messages"), *ms = json_object_get(c->server, "messages");
    if (!json_is_array(mc) || !json_is_array(ms)) {
        PW_FAIL(c, json_is_array(mc) ? c->server_rel : c->client_rel, "/messages", "a list",
                "another value", "messages is not a list");
        return;
    }
    if (json_array_size(mc) != json_array_size(ms)) {
        char e1[24], e2[24];
        snprintf(e1, sizeof e1, "%zu", json_array_size(mc));
        snprintf(e2, sizeof e2, "%zu", json_array_size(ms));
        PW_FAIL(c, c->server_rel, "/messages", e1, e2, "the client sent %s commands but the server "
                "recorded %s", e1, e2);
        return;
    }
    for (size_t i = 0; i < json_array_size(mc); i++) {
        const json_t *a = json_array_get(mc, i), *b = json_array_get(ms, i);
        char ptr[48];
        snprintf(ptr, sizeof ptr, "/messages/%zu", i);
        if (!json_is_object(a) || !json_is_object(b) || !json_object_get(a, "cmd") ||
            !json_object_get(b, "cmd")) {
            PW_FAIL(c, c->server_rel, ptr, "{\"cmd\": ..., \"reply\": ...}", "another value",
                    "message %zu has no cmd", i);
            return;
        }
        if (!py_eq(json_object_get(a, "cmd"), json_object_get(b, "cmd"))) {
            char *x = py_str(json_object_get(a, "cmd")), *y = py_str(json_object_get(b, "cmd"));
            PW_FAIL(c, c->server_rel, ptr, x, y, "command %zu differs: client '%s', server '%s'", i,
                    x ? x : "?", y ? y : "?");
            free(x);
            free(y);
            return;
        }
        const char *cmd = json_string_value(json_object_get(a, "cmd"));
        if (!cmd || strcmp(cmd, "time")) {
            if (!json_object_get(a, "reply") || !json_object_get(b, "reply")) {
                PW_FAIL(c, c->server_rel, ptr, "a reply", "none", "message %zu has no reply", i);
                return;
            }
            if (!py_eq(json_object_get(a, "reply"), json_object_get(b, "reply"))) {
                char *x = py_str(json_object_get(a, "reply")), *y = py_str(json_object_get(b, "reply"));
                PW_FAIL(c, c->server_rel, ptr, x, y, "the replies to command '%s' differ: client "
                        "'%s', server '%s'", cmd ? cmd : "?", x ? x : "?", y ? y : "?");
                free(x);
                free(y);
                return;
            }
        }
    }
    /* protocol versions from the handshake (server.json's first message) */
    const json_t *m0 = json_array_get(ms, 0);
    const char *cmd = msg_str(m0, "cmd"), *reply = msg_str(m0, "reply");
    pwre cre, sre;
    if (pwre_compile(&cre, "mlcommons\\/power client v(\\d+)$") ||
        pwre_compile(&sre, "mlcommons\\/power server v(\\d+)$")) {
        c->run->oom = 1;
        pwre_free(&cre);
        return;
    }
    size_t cs, cl, ss, sl;
    if (!cmd || !pwre_find(&cre, cmd, strlen(cmd), 0, 1, &cs, &cl)) {
        PW_FAIL(c, c->server_rel, "/messages/0/cmd", "mlcommons/power client v<N>", cmd ? cmd : "None",
                "the client version is not defined in the first message");
    } else if (!reply || !pwre_find(&sre, reply, strlen(reply), 0, 1, &ss, &sl)) {
        PW_FAIL(c, c->server_rel, "/messages/0/reply", "mlcommons/power server v<N>",
                reply ? reply : "None", "the server version is not defined in the first reply");
    } else if (cl != sl || memcmp(cmd + cs, reply + ss, cl)) {
        char a[32], b[32];
        snprintf(a, sizeof a, "v%.*s", (int)(cl < 20 ? cl : 20), cmd + cs);
        snprintf(b, sizeof b, "v%.*s", (int)(sl < 20 ? sl : 20), reply + ss);
        PW_FAIL(c, c->server_rel, "/messages/0", a, b, "the client (%s) and server (%s) versions "
                "differ", a, b);
    }
    pwre_free(&cre);
    pwre_free(&sre);
}

/* keeps only the required result files of a recorded checksum table (a copy) */
static json_t *required_only(const json_t *files, const json_t *rec)
{
    json_t *o = json_object();
    const char *k;
    json_t *v;
    if (!o)
        return NULL;
    json_object_foreach((json_t *)rec, k, v) {
        if (ck_jlist_has(files, k) && json_object_set(o, k, v)) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static void chk_results(pwctx *c)
{
    const json_t *files = json_object_get(c->pc, "result_files");
    const json_t *rs = json_object_get(c->server, "results"), *rc_ = json_object_get(c->client, "results");
    if (!json_is_object(rs) || !json_is_object(rc_)) {
        PW_FAIL(c, json_is_object(rs) ? c->client_rel : c->server_rel, "/results",
                "a table of file checksums", "another value", "results is not a table");
        return;
    }
    json_t *s = required_only(files, rs), *cl = required_only(files, rc_), *calc = json_object();
    json_t *merged = cl ? json_deep_copy(cl) : NULL;
    if (!s || !cl || !calc || !merged || json_object_update(merged, s)) {
        c->run->oom = 1;
        goto out;
    }
    /* server and client agree */
    const char *k;
    json_t *v;
    json_object_foreach(s, k, v) {
        const json_t *o = json_object_get(cl, k);
        if (o && !py_eq(v, o)) {
            char *ptr = ms_json_pointer_append("/results", k);
            char *a = py_str(v), *b = py_str(o);
            PW_FAIL(c, c->client_rel, ptr, a, b, "server.json and client.json record different "
                    "checksums for %s", k);
            free(ptr);
            free(a);
            free(b);
            goto out;
        }
    }
    /* the files as they are now */
    for (size_t i = 0; i < json_array_size(files); i++) {
        const char *f = json_string_value(json_array_get(files, i));
        char *rel = f ? pw_rel(c, f) : NULL;
        char *abs = rel ? ck_join(c->run->root, rel) : NULL;
        if (!abs) {
            free(rel);
            c->run->oom = 1;
            goto out;
        }
        if (ck_isfile(abs)) {
            char hex[MS_HASH_HEX_MAX];
            ms_err e;
            pwtext t;
            /* read once for the sub-checks that parse it too; a file too large to keep is
             * streamed */
            if (pw_bytes(c, rel, abs, &t, &e) == 0 ? ms_hash_mem("sha1", t.text, t.len, hex, &e)
                                                   : ms_hash_file("sha1", abs, hex, NULL, &e)) {
                PW_FAIL(c, rel, NULL, NULL, NULL, "cannot read %s: %s", rel, e.msg);
                free(rel);
                free(abs);
                goto out;
            }
            json_t *hs = json_string(hex);
            if (!hs || json_object_set_new(calc, f, hs)) {
                free(rel);
                free(abs);
                c->run->oom = 1;
                goto out;
            }
        }
        free(rel);
        free(abs);
    }
    json_object_foreach(merged, k, v) {
        if (!json_object_get(calc, k)) {
            char *rel = pw_rel(c, k);
            PW_FAIL(c, rel, NULL, "the file", "missing", "%s is recorded in client.json/server.json "
                    "but missing", k);
            free(rel);
            goto out;
        }
    }
    json_object_foreach(calc, k, v) {
        if (!json_object_get(merged, k)) {
            char *ptr = ms_json_pointer_append("/results", k);
            PW_FAIL(c, c->server_rel, ptr, "a recorded checksum", "none", "%s has no checksum in "
                    "client.json/server.json", k);
            free(ptr);
            goto out;
        }
    }
    json_object_foreach(merged, k, v) {
        const json_t *h = json_object_get(calc, k);
        if (!py_eq(v, h)) {
            char *rel = pw_rel(c, k);
            char *want = py_str(v);
            PW_FAIL(c, rel, NULL, want, json_string_value(h), "the SHA-1 of %s differs from the one "
                    "recorded by the power session (the file was changed after the run)", k);
            free(want);
            free(rel);
            goto out;
        }
    }
    for (size_t i = 0; i < json_array_size(files); i++) {
        const char *f = json_string_value(json_array_get(files, i));
        if (f && !json_object_get(merged, f)) {
            char *rel = pw_rel(c, f);
            PW_FAIL(c, rel, NULL, "the file", "missing", "the required result file %s is absent", f);
            free(rel);
            goto out;
        }
    }
out:
    json_decref(s);
    json_decref(cl);
    json_decref(calc);
    json_decref(merged);
}

/* the time stamp at the start of a PTD log line: 1 found (in *t), 0 none, -1 invalid */
static int ptd_time(const pwtime *tm, const char *l, size_t n, int64_t *t)
{
    size_t s, len;
    if (!pwre_find(&tm->ptd_re, l, n, 0, 0, &s, &len)) /* anchored when compiled */
        return 0;
    return py_strptime_us(tm, l + s, len, t) ? -1 : 1;
}

static int starts_with_any(const json_t *list, const char *s, size_t n, int exact)
{
    for (size_t i = 0; i < json_array_size(list); i++) {
        const char *p = json_string_value(json_array_get(list, i));
        size_t pl = p ? strlen(p) : 0;
        if (p && (exact ? (pl == n && !memcmp(s, p, n)) : (pl <= n && !memcmp(s, p, pl))))
            return 1;
    }
    return 0;
}

static void chk_ptd_log(pwctx *c, const pwtime *tm)
{
    char *rel = pw_rel(c, "power/ptd_logs.txt");
    pwfile f;
    char *sname = NULL, *mark = NULL, *goline = NULL;
    const char *l;
    size_t n;
    memset(&f, 0, sizeof f);
    pwre warn_re = {0}, err_re = {0}, unc_re = {0};
    pwre *bad = NULL;
    size_t nbad = 0;
    if (!rel) {
        c->run->oom = 1;
        return;
    }
    int64_t lb_us, le_us;
    if (pw_begin_end(c, tm, "run_1", &lb_us, &le_us))
        goto out;
    const json_t *tz = json_object_get(c->server, "timezone");
    if (!py_int_ok(tz)) {
        PW_FAIL(c, c->server_rel, "/timezone", "an integer", "another value",
                "timezone is not an integer");
        goto out;
    }
    sname = py_str(json_object_get(c->server, "session_name"));
    mark = sname ? ck_fmt("%s_ranging", sname) : NULL;
    char *rep = mark ? py_repr(mark, strlen(mark)) : NULL;
    goline = rep ? ck_fmt(": Go with mark %s", rep) : NULL;
    free(rep);
    if (!goline || pwre_compile(&warn_re, "(?<=WARNING:).+") || pwre_compile(&err_re, "(?<=ERROR:).+") ||
        pwre_compile(&unc_re, "Uncertainty checking for Yokogawa\\S+ is activated")) {
        c->run->oom = 1;
        goto out;
    }
    const json_t *tw = json_object_get(c->pc, "ptd_log_testing_warnings_as_errors");
    nbad = json_array_size(tw);
    bad = calloc(nbad ? nbad : 1, sizeof *bad);
    if (!bad) {
        c->run->oom = 1;
        goto out;
    }
    for (size_t i = 0; i < nbad; i++)
        if (pwre_compile(&bad[i], json_string_value(json_array_get(tw, i)) ?: "(?!)")) {
            c->run->oom = 1;
            goto out;
        }
    if (pwf_open(c, rel, &f))
        goto out;
    /* the ranging measurement: its Go line and the first ": Completed test" after it */
    int64_t rs = 0, re = 0;
    int have_rs = 0, have_re = 0;
    int more;
    while ((more = pwf_next(c, &f, &l, &n)) > 0) {
        int64_t ts = 0;
        int k = ptd_time(tm, l, n, &ts);
        if (k < 0) {
            PW_FAIL(c, rel, NULL, "MM-DD-YYYY HH:MM:SS.fff", "an invalid time",
                    "line %zu starts with an invalid time stamp", f.it.line_no);
            goto out;
        }
        const char *msg = l;
        size_t ml = n;
        if (k == 1) {
            if (n <= 23 || l[23] == '\n')
                continue;   /* no message after the time */
            msg = l + 23;
            ml = strcspn(msg, "\n");
            msg = ms_py_strip(msg, &ml);
        }
        int is_go = !(have_rs && rs) && ml == strlen(goline) && !memcmp(msg, goline, ml);
        int is_done = !is_go && have_rs && rs && ml == 16 && !memcmp(msg, ": Completed test", 16);
        if ((is_go || is_done) && k == 0) {
            PW_FAIL(c, rel, NULL, "a time stamp", "none", "line %zu has no time stamp", f.it.line_no);
            goto out;
        }
        if (is_go) {
            rs = ts;
            have_rs = 1;
        }
        if (!(have_re && re) && have_rs && rs && ml == 16 && !memcmp(msg, ": Completed test", 16)) {
            re = ts;
            have_re = 1;
            break;
        }
    }
    if (more < 0)
        goto out;
    if (!have_rs || !have_re) {
        PW_FAIL(c, rel, NULL, goline, "none", "cannot find the ranging measurement (%s ... "
                ": Completed test)", goline);
        goto out;
    }
    /* uncertainty checking activated before ranging */
    int activated = 0;
    pwf_rewind(&f);
    while ((more = pwf_next(c, &f, &l, &n)) > 0) {
        size_t s0, l0;
        if (!pwre_find(&unc_re, l, n, 0, 0, &s0, &l0))
            continue;
        int64_t ts;
        int k = ptd_time(tm, l, n, &ts);
        if (k <= 0) {
            PW_FAIL(c, rel, NULL, "a time stamp", "none", "line %zu: the uncertainty-checking line "
                    "has no valid time stamp", f.it.line_no);
            goto out;
        }
        if (!(ts < rs)) {
            PW_FAIL(c, rel, NULL, "before the ranging run", "after it", "line %zu: uncertainty "
                    "checking was activated after the ranging mode started", f.it.line_no);
            goto out;
        }
        activated = 1;
        break;
    }
    if (more < 0)
        goto out;
    if (!activated) {
        PW_FAIL(c, rel, NULL, "Uncertainty checking for Yokogawa... is activated", "none",
                "the line 'Uncertainty checking for Yokogawa... is activated' is missing");
        goto out;
    }
    /* WARNING: and ERROR: lines */
    double margin = json_number_value(json_object_get(c->pc, "ptd_log_load_margin_s"));
    double load_b = us_to_s(lb_us), load_e = us_to_s(le_us);
    const json_t *common_test = json_object_get(c->pc, "ptd_log_common_testing_errors");
    const json_t *common_rng = json_object_get(c->pc, "ptd_log_common_ranging_errors");
    pwf_rewind(&f);
    while (pwf_next(c, &f, &l, &n) > 0) {
        for (int pass = 0; pass < 2; pass++) {
            size_t s0, l0;
            if (!pwre_find(pass ? &err_re : &warn_re, l, n, 0, 0, &s0, &l0))
                continue;
            int64_t ts;
            if (ptd_time(tm, l, n, &ts) <= 0) {
                PW_FAIL(c, rel, NULL, "a time stamp", "none", "line %zu: a %s line without a valid "
                        "time stamp", f.it.line_no, pass ? "ERROR" : "WARNING");
                goto out;
            }
            size_t pl = l0;
            const char *p = ms_py_strip(l + s0, &pl);
            size_t shown = strcspn(l, "\n");
            double lt = us_to_s(ts);
            if (!pass) {
                if (!(load_b + margin < lt && lt < load_e - margin))
                    continue;
                for (size_t i = 0; i < nbad; i++) {
                    size_t a, b;
                    if (pwre_find(&bad[i], p, pl, 0, 0, &a, &b)) {
                        PW_FAIL(c, rel, NULL, "no uncertainty warnings while testing",
                                "a warning", "line %zu: '%.*s' during the testing phase",
                                f.it.line_no, (int)shown, l);
                        goto out;
                    }
                }
                PW_WARN(c, rel, NULL, NULL, NULL, "line %zu: '%.*s' during the load stage",
                        f.it.line_no, (int)shown, l);
                goto out;
            }
            if (starts_with_any(common_test, p, pl, 1)) {
                PW_WARN(c, rel, NULL, NULL, NULL, "line %zu: '%.*s' during testing, accepted as a "
                        "warning", f.it.line_no, (int)shown, l);
                goto out;
            }
            if (!(us_to_s(rs) < lt && lt < us_to_s(re))) {
                PW_FAIL(c, rel, NULL, "no PTD errors outside the ranging run", "an error",
                        "line %zu: '%.*s'", f.it.line_no, (int)shown, l);
                goto out;
            }
            if (!starts_with_any(common_rng, p, pl, 0)) {
                PW_WARN(c, rel, NULL, NULL, NULL, "line %zu: '%.*s' during ranging, treated as a "
                        "warning", f.it.line_no, (int)shown, l);
                goto out;
            }
        }
    }
out:
    for (size_t i = 0; bad && i < nbad; i++)
        pwre_free(&bad[i]);
    free(bad);
    pwre_free(&warn_re);
    pwre_free(&err_re);
    pwre_free(&unc_re);
    pwf_close(&f);
    free(sname);
    free(mark);
    free(goline);
    free(rel);
}

static int device_supported(const json_t *models, const json_t *dev)
{
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)models, k, v) {
        if (py_eq(v, dev))
            return 1;
    }
    return 0;
}

static void chk_analyzer(pwctx *c, const json_t *an, const char *ptr)
{
    const json_t *models = json_object_get(c->pc, "analyzer_models");
    const json_t *dev = json_object_get(an, "device_type");
    char p2[64];
    snprintf(p2, sizeof p2, "%s/device_type", ptr);
    if (!dev || !device_supported(models, dev)) {
        char *d = py_str(dev);
        PW_FAIL(c, c->server_rel, p2, "a supported device number", d ? d : "None",
                "analyser device number %s is not supported", d ? d : "None");
        free(d);
        return;
    }
    double dn, mc = json_number_value(json_object_get(c->pc, "multichannel_device_type"));
    if (py_num(dev, &dn) || dn != mc)
        return;
    const json_t *cmd = json_object_get(an, "command");
    const char *channels = "";
    int found = 0;
    for (size_t i = 0; i < json_array_size(cmd) && !found; i++) {
        const char *a = json_string_value(json_array_get(cmd, i));
        if (a && !strcmp(a, "-c")) {
            channels = json_string_value(json_array_get(cmd, i + 1));
            found = 1;
        }
    }
    const json_t *ch = json_object_get(an, "channel");
    size_t commas = 0;
    for (const char *p = channels ? channels : ""; *p; p++)
        commas += *p == ',';
    size_t chn = json_is_array(ch) ? json_array_size(ch) : json_is_string(ch) ? json_string_length(ch) : 0;
    if (!channels || commas != 1 || !ms_py_truthy(ch) || chn != 2)
        PW_FAIL(c, c->server_rel, ptr, "two channels for a multichannel analyser", "one",
                "expected the multichannel mode for device %g, but it was configured with one "
                "channel", dn);
}

static void chk_ptd_config(pwctx *c)
{
    const json_t *cfg = json_object_get(c->server, "ptd_config");
    if (!cfg) {
        PW_FAIL(c, c->server_rel, "/ptd_config", "the analyser configuration", "missing",
                "server.json has no ptd_config");
        return;
    }
    if (json_is_true(json_object_get(c->pc, "ptd_config_per_analyzer"))) {
        if (!json_is_array(cfg)) {
            PW_FAIL(c, c->server_rel, "/ptd_config", "a list of analysers", "another value",
                    "ptd_config is not a list of analysers");
            return;
        }
        for (size_t i = 0; i < json_array_size(cfg) && !c->failed; i++) {
            char ptr[48];
            snprintf(ptr, sizeof ptr, "/ptd_config/%zu", i);
            chk_analyzer(c, json_array_get(cfg, i), ptr);
        }
    } else {
        chk_analyzer(c, cfg, "/ptd_config");
    }
}

static void chk_debug(pwctx *c)
{
    const json_t *d = json_object_get(c->server, "debug");
    if (d && !json_is_false(d))
        PW_FAIL(c, c->server_rel, "/debug", "false", "debug mode", "the PTD server was running in "
                "debug mode");
}

/* ------------------------------------------------------------------ entry ---- */

static json_t *load_session(pwctx *c, const char *rel)
{
    char *abs = ck_join(c->run->root, rel);
    json_error_t je;
    json_t *j = abs ? ms_json_load_path(abs, JSON_DECODE_ANY, &je) : NULL;
    free(abs);
    if (!j) {
        PW_FAIL(c, rel, NULL, "JSON", je.text, "cannot read %s: %s (line %d)", rel, je.text, je.line);
        return NULL;
    }
    if (!json_is_object(j)) {
        PW_FAIL(c, rel, NULL, "a JSON object", "another value", "%s is not a JSON object", rel);
        json_decref(j);
        return NULL;
    }
    const json_t *req = json_object_get(c->pc, "session_required_fields");
    ms_buf miss = MS_BUF_INIT;
    for (size_t i = 0; i < json_array_size(req); i++) {
        const char *k = json_string_value(json_array_get(req, i));
        if (k && !json_object_get(j, k))
            ms_buf_printf(&miss, "%s%s", miss.data ? ", " : "", k);
    }
    if (miss.data) {
        PW_FAIL(c, rel, NULL, "the session fields", miss.data, "%s lacks the required fields %s", rel,
                miss.data);
        ms_buf_free(&miss);
        json_decref(j);
        return NULL;
    }
    return j;
}

void ck_power_wg_check(ck_state *run, ck_flist *out, const ck_where *w, const char *perf_rel,
                       ck_kept *kept, size_t nkept)
{
    if (ck_skipped(run, CK_ID(W4)))
        return;
    pwctx c;
    memset(&c, 0, sizeof c);
    c.run = run;
    c.out = out;
    c.w = w;
    c.perf_rel = perf_rel;
    c.pc = ck_rget(&run->rules, "power_checker");
    c.check = "session files";
    if (!json_is_object(c.pc)) {
        ck_report_finding(run, out, w, CK_ID(W4), CK_SEV_ERROR, perf_rel, 0, NULL, "power_checker facts",
                          "none", "the %s rules have no Power WG checker facts (power_checker)",
                          run->rules.version);
        return;
    }
    /* the detail logs the performance checks read whole: their bytes as pw_bytes would read
     * them (not kept when not at most PW_TEXT_MAX bytes, where pw_bytes fails) */
    for (size_t i = 0; i < nkept; i++) {
        if (!kept[i].text || kept[i].len > PW_TEXT_MAX)
            continue;
        char *name = strdup(kept[i].rel);
        if (!name || MS_GROW(c.files, c.capfiles, c.nfiles + 1, 8)) {
            free(name);
            run->oom = 1;
            break;
        }
        c.files[c.nfiles++] = (struct pwcached){name, kept[i].text, kept[i].len, kept[i].utf8_ok};
        kept[i].text = NULL;
    }
    pwtime tm;
    pwre version_re = {0};
    memset(&tm, 0, sizeof tm);
    c.client_rel = pw_rel(&c, "power/client.json");
    c.server_rel = pw_rel(&c, "power/server.json");
    if (!c.client_rel || !c.server_rel || pwtime_init(&tm) ||
        pwre_compile(&version_re, "(?<=version=)(.+?)-")) {
        run->oom = 1;
        goto out;
    }
    c.client = load_session(&c, c.client_rel);
    c.server = load_session(&c, c.server_rel);
    if (!c.client || !c.server)
        goto out;
    static const char *const names[] = {"client sources checksum", "server sources checksum",
                                        "PTD commands and replies", "UUID", "session name",
                                        "time difference", "client server messages",
                                        "results checksum", "PTD log errors and warnings",
                                        "PTD configuration", "server debug mode"};
    for (int i = 0; i < 11; i++) {
        c.check = names[i];
        c.failed = 0;
        switch (i) {
        case 0: chk_sources(&c, c.client, c.client_rel); break;
        case 1: chk_sources(&c, c.server, c.server_rel); break;
        case 2: chk_ptd_messages(&c, &version_re); break;
        case 3: chk_uuid(&c); break;
        case 4: chk_session(&c); break;
        case 5: chk_phases(&c, &tm); break;
        case 6: chk_messages(&c); break;
        case 7: chk_results(&c); break;
        case 8: chk_ptd_log(&c, &tm); break;
        case 9: chk_ptd_config(&c); break;
        default: chk_debug(&c); break;
        }
    }
out:
    pw_files_free(&c);
    pwtime_free(&tm);
    pwre_free(&version_re);
    json_decref(c.client);
    json_decref(c.server);
    free(c.client_rel);
    free(c.server_rel);
}
