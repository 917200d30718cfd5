/* Text detail log of LoadGen 0.5/0.7 (textlog.h): record prefix, ERROR/WARNING flags, key/value
 * split at the first ':', continuation lines. The layout follows AsyncLog::LogDetail
 * (loadgen/logging.h of the r0.5 and v0.7.1 LoadGen). */
#include "common/textlog.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static const char *const PFX_PID = "\"pid\": ";

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* decimal digits at *p (at most 20, value below 2^64); advances *p */
static int read_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t n = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        s++;
        n++;
    }
    if (!n)
        return -1;
    *p = s;
    *out = v;
    return 0;
}

static int lit(const char **p, const char *end, const char *s)
{
    size_t n = strlen(s);
    if ((size_t)(end - *p) < n || memcmp(*p, s, n))
        return -1;
    *p += n;
    return 0;
}

ms_logfmt ms_log_detect(const char *buf, size_t len)
{
    const char *p = buf, *end = buf + len;
    /* a UTF-8 byte-order mark, then blank lines */
    if (len >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        p += 3;
    while (p < end && (is_space(*p) || *p == '\n'))
        p++;
    if ((size_t)(end - p) >= 8 && !memcmp(p, ":::MLLOG", 8))
        return MS_LOGFMT_MLLOG;
    if ((size_t)(end - p) >= strlen(PFX_PID) && !memcmp(p, PFX_PID, strlen(PFX_PID)))
        return MS_LOGFMT_TEXT;
    return MS_LOGFMT_UNKNOWN;
}

const char *ms_logfmt_name(ms_logfmt f)
{
    switch (f) {
    case MS_LOGFMT_MLLOG: return ":::MLLOG JSON";
    case MS_LOGFMT_TEXT: return "text (the early LoadGens, before :::MLLOG)";
    default: return "unknown";
    }
}

/* Parses the prefix and message of one record line; 1 record, 0 not a record line, -1 bad */
static int parse_record(const char *line, const char *end, ms_textlog_rec *r)
{
    const char *p = line;
    if (lit(&p, end, PFX_PID))
        return 0;
    if (read_u64(&p, end, &r->pid) || lit(&p, end, ", \"tid\": ") || read_u64(&p, end, &r->tid) ||
        lit(&p, end, ", \"ts\": ") || read_u64(&p, end, &r->ts_ns) || lit(&p, end, "ns :"))
        return -1;
    if (p < end && *p == ' ')
        p++;
    if (!lit(&p, end, "ERROR : "))
        r->is_error = 1;
    else if (!lit(&p, end, "WARNING : "))
        r->is_warning = 1;
    const char *colon = memchr(p, ':', (size_t)(end - p));
    const char *kend = colon ? colon : end;
    while (kend > p && is_space(kend[-1]))
        kend--;
    r->key = p;
    r->key_len = (size_t)(kend - p);
    if (colon) {
        const char *v = colon + 1;
        while (v < end && is_space(*v))
            v++;
        const char *vend = end;
        while (vend > v && is_space(vend[-1]))
            vend--;
        r->has_value = 1;
        r->value = v;
        r->value_len = (size_t)(vend - v);
    } else {
        r->value = end;
        r->value_len = 0;
    }
    return 1;
}

int ms_textlog_parse(ms_textlog *log, const char *buf, size_t len, ms_err *e)
{
    memset(log, 0, sizeof *log);
    log->text = malloc(len + 1);
    if (!log->text)
        return ms_err_oom(e);
    if (len)
        memcpy(log->text, buf, len);
    log->text[len] = '\0';
    log->len = len;
    size_t cap = 0;
    const char *p = log->text, *end = log->text + len;
    size_t line_no = 0;
    ms_textlog_rec *last = NULL;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *lend = nl ? nl : end;
        line_no++;
        ms_textlog_rec r;
        memset(&r, 0, sizeof r);
        int k = parse_record(p, lend, &r);
        if (k == 1) {
            if (MS_GROW(log->recs, cap, log->nrecs + 1, 64)) {
                ms_textlog_free(log);
                return ms_err_oom(e);
            }
            r.line_no = line_no;
            log->recs[log->nrecs] = r;
            last = &log->recs[log->nrecs++];
            log->n_errors += (size_t)r.is_error;
            log->n_warnings += (size_t)r.is_warning;
        } else if (k < 0) {
            if (!log->nbad)
                log->first_bad_line = line_no;
            log->nbad++;
            last = NULL;
        } else if (last && last->has_value) {
            /* a continuation line of a multi-line message (git_log, SHA1 of files): the value
             * runs on to its end; blank lines alone do not extend it */
            const char *b = p, *vend = lend;
            while (b < lend && is_space(*b))
                b++;
            while (vend > b && is_space(vend[-1]))
                vend--;
            if (vend > b) {
                if (!last->value_len)
                    last->value = b;
                last->value_len = (size_t)(vend - last->value);
            }
        }
        p = nl ? nl + 1 : end;
    }
    log->nlines = line_no;
    return MS_OK;
}

void ms_textlog_free(ms_textlog *log)
{
    free(log->text);
    free(log->recs);
    memset(log, 0, sizeof *log);
}

const ms_textlog_rec *ms_textlog_find(const ms_textlog *log, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < log->nrecs; i++)
        if (log->recs[i].key_len == n && !memcmp(log->recs[i].key, key, n))
            return &log->recs[i];
    return NULL;
}

char *ms_textlog_value(const ms_textlog_rec *r)
{
    char *s = malloc(r->value_len + 1);
    if (!s)
        return NULL;
    if (r->value_len)
        memcpy(s, r->value, r->value_len);
    s[r->value_len] = '\0';
    return s;
}
