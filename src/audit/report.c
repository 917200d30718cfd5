/* Helpers of the audits: file copies, detail-log loading with reasons, the STRICT report, and
 * names guessed from paths. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit_int.h"
#include "common/fsutil.h"

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
