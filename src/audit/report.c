/* Helpers of the audits: Python-compatible number text, file copies, detail-log loading with
 * reasons, the STRICT report, and names guessed from paths. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit_int.h"
#include "common/fsutil.h"

void au_py_repr(double x, char *out)
{
    if (isnan(x)) {
        strcpy(out, "nan");
        return;
    }
    if (isinf(x)) {
        strcpy(out, x < 0 ? "-inf" : "inf");
        return;
    }
    char *o = out;
    if (signbit(x)) {
        *o++ = '-';
        x = -x;
    }
    if (x == 0) {
        strcpy(o, "0.0");
        return;
    }
    /* shortest digits that round-trip */
    char tmp[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    char digits[24];
    size_t nd = 0;
    const char *p = tmp;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p))
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int decpt = atoi(p + 1) + 1;  /* digits[0] is at 10^(decpt-1) */
    if (decpt > 16 || decpt < -3) {
        o += sprintf(o, "%c", digits[0]);
        if (nd > 1)
            o += sprintf(o, ".%s", digits + 1);
        int ex = decpt - 1;
        sprintf(o, "e%c%02d", ex < 0 ? '-' : '+', ex < 0 ? -ex : ex);
    } else if (decpt <= 0) {
        o += sprintf(o, "0.");
        for (int i = 0; i < -decpt; i++)
            *o++ = '0';
        strcpy(o, digits);
    } else if ((size_t)decpt < nd) {
        memcpy(o, digits, (size_t)decpt);
        o += decpt;
        sprintf(o, ".%s", digits + decpt);
    } else {
        o += sprintf(o, "%s", digits);
        for (size_t i = nd; i < (size_t)decpt; i++)
            *o++ = '0';
        strcpy(o, ".0");
    }
}

int au_py_float(const char *s, size_t n, double *out)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0 || n > 64)
        return -1;
    char buf[72];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        /* Python allows single underscores between digits */
        if (s[i] == '_') {
            if (i == 0 || i + 1 == n || !isdigit((unsigned char)s[i - 1]) ||
                !isdigit((unsigned char)s[i + 1]))
                return -1;
            continue;
        }
        buf[k++] = s[i];
    }
    buf[k] = '\0';
    const char *q = buf + (buf[0] == '+' || buf[0] == '-');
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        return -1;
    char *end;
    double v = strtod(buf, &end);
    if (end != buf + k)
        return -1;
    *out = v;
    return 0;
}

int au_copy_file(const char *src, const char *dst, ms_err *e)
{
    if (au_same_file(src, dst))
        return MS_OK;
    char *text;
    size_t len;
    int rc = ms_read_file(src, 0, &text, &len, e);
    if (rc != MS_OK)
        return rc;
    rc = ms_write_file_atomic(dst, text, len, e);
    free(text);
    return rc;
}

int au_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

char *au_path3(const char *a, const char *b, const char *c)
{
    ms_buf p = MS_BUF_INIT;
    const char *parts[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        if (!parts[i] || !*parts[i])
            continue;
        if (p.len && p.data[p.len - 1] != '/' && ms_buf_putc(&p, '/') != 0)
            goto oom;
        if (ms_buf_puts(&p, parts[i]) != 0)
            goto oom;
    }
    if (!p.data && ms_buf_puts(&p, ".") != 0)
        goto oom;
    return ms_buf_steal(&p);
oom:
    ms_buf_free(&p);
    return NULL;
}

int au_load_detail(const char *path, ms_mllog *log, char *why, size_t whysz)
{
    ms_err e = {0};
    memset(log, 0, sizeof *log);
    if (!ms_path_exists(path)) {
        snprintf(why, whysz, "%s: no such file (expected the run's detail log)", path);
        return -1;
    }
    if (ms_mllog_load(log, path, 0, &e) != MS_OK) {
        snprintf(why, whysz, "%s", e.msg);
        return -1;
    }
    if (log->len == 0 || log->nlines == 0) {
        snprintf(why, whysz, "%s: the file is empty (expected :::MLLOG records)", path);
        ms_mllog_free(log);
        return -1;
    }
    if (!log->first_line_is_record) {
        snprintf(why, whysz, "%s:1: the first line is not a ':::MLLOG {...}' record", path);
        ms_mllog_free(log);
        return -1;
    }
    if (log->nbad) {
        snprintf(why, whysz, "%s:%zu: malformed record (%s)", path, log->first_bad_line,
                 log->first_bad_msg);
        ms_mllog_free(log);
        return -1;
    }
    return 0;
}

uint64_t au_detail_errors(const ms_mllog *log)
{
    uint64_t n;
    if (ms_mllog_get_u64(log, "num_errors", &n) == 0)
        return n;
    return log->n_errors;
}

static void rep_vline(au_rep *r, const char *prefix, const char *fmt, va_list ap)
{
    if (!r || !r->b)
        return;
    ms_buf_puts(r->b, prefix);
    ms_buf_vprintf(r->b, fmt, ap);
    ms_buf_putc(r->b, '\n');
}

void au_rep_check(au_rep *r, int status, const char *fmt, ...)
{
    if (!r)
        return;
    if (status == AU_PASSED)
        r->passes++;
    else if (status == AU_FAILED)
        r->fails++;
    else
        r->skips++;
    va_list ap;
    va_start(ap, fmt);
    rep_vline(r, status == AU_PASSED ? "PASS  " : status == AU_FAILED ? "FAIL  " : "SKIP  ", fmt, ap);
    va_end(ap);
}

void au_rep_detail(au_rep *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rep_vline(r, "        ", fmt, ap);
    va_end(ap);
}

void au_note(ms_buf *b, const char *fmt, ...)
{
    if (!b)
        return;
    va_list ap;
    va_start(ap, fmt);
    ms_buf_vprintf(b, fmt, ap);
    va_end(ap);
    ms_buf_putc(b, '\n');
}

const char *au_model_from_path(const au_rules *r, const char *path, char *buf, size_t n)
{
    if (!r || !path)
        return NULL;
    const char *p = path;
    const char *found = NULL;
    size_t flen = 0;
    while (*p) {
        while (*p == '/')
            p++;
        const char *q = p;
        while (*q && *q != '/')
            q++;
        size_t len = (size_t)(q - p);
        if (len > 0 && len < n) {
            memcpy(buf, p, len);
            buf[len] = '\0';
            if (au_rules_audit_dir(r, buf)) {
                found = p;   /* the last such component wins (closest to the scenario) */
                flen = len;
            }
        }
        p = q;
    }
    if (!found)
        return NULL;
    memcpy(buf, found, flen);
    buf[flen] = '\0';
    return buf;
}

int au_test_from_path(const char *path)
{
    int t = 0;
    for (const char *p = path; (p = strstr(p, "TEST0")) != NULL; p++) {
        if ((p == path || p[-1] == '/') && (p[5] == '1' || p[5] == '4' || p[5] == '5') &&
            (p[6] == '/' || p[6] == '\0'))
            t = p[5] - '0';
    }
    return t;
}
