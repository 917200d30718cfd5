#include "common/pytext.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void ms_lines_init(ms_lines *it, const char *text, size_t len)
{
    it->p = text;
    it->end = text + len;
    it->line_no = 0;
}

int ms_lines_next(ms_lines *it, const char **line, size_t *len, int *had_nl)
{
    if (it->p >= it->end)
        return 0;
    /* the line ends at the first '\n' or '\r': memchr for the '\n', then for a '\r' before it
     * (rare), both many bytes a step */
    const char *s = it->p;
    const char *q = memchr(s, '\n', (size_t)(it->end - s));
    if (!q)
        q = it->end;
    const char *cr = memchr(s, '\r', (size_t)(q - s));
    if (cr)
        q = cr;
    *line = s;
    *len = (size_t)(q - s);
    *had_nl = q < it->end;
    if (q < it->end) {
        if (*q == '\r' && q + 1 < it->end && q[1] == '\n')
            q++;
        q++;
    }
    it->p = q;
    it->line_no++;
    return 1;
}

size_t ms_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned v = c & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v < 0xE000))
        return 0;
    return len;
}

int ms_utf8_valid(const char *s, size_t n, size_t *bad_off)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* fast path: 8 ASCII bytes at a time */
        while (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len = ms_utf8_seq(p + i, n - i);
        if (!len) {
            if (bad_off)
                *bad_off = i;
            return 0;
        }
        i += len;
    }
    return 1;
}

/* Where CPython's UTF-8 decoder (PyUnicode_DecodeUTF8Stateful, incremental) detects the first
 * error: the offset of the byte that makes a sequence invalid (*truncated = 0), or n when the
 * text ends inside a sequence that it keeps pending (*truncated = 1): one valid so far, or a
 * surrogate's first two bytes (ED A0..BF), which it only rejects once a third byte comes. n
 * when there is none. */
static size_t utf8_first_error(const unsigned char *p, size_t n, int *truncated)
{
    *truncated = 0;
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        unsigned lo = 0x80, hi = 0xBF; /* range of the second byte */
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF)
            len = 3;
        else if (c >= 0xF0 && c <= 0xF4)
            len = 4;
        else
            return i;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
        for (size_t k = 1; k < len; k++) {
            if (i + k >= n) {
                *truncated = 1;
                return n;
            }
            unsigned b = p[i + k];
            if (k == 1 && c == 0xED && b >= 0xA0 && b <= 0xBF) { /* a surrogate */
                if (i + 2 >= n) {
                    *truncated = 1;
                    return n;
                }
                return i + 2;
            }
            if (k == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80)
                return i + k;
        }
        i += len;
    }
    return n;
}

/* Length of the UTF-8 sequence that the lead byte c starts (1 for ASCII and invalid bytes). */
static size_t utf8_seq_len(unsigned c)
{
    return c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 1;
}

int ms_py_utf8_read_raises(const char *s, size_t n, size_t upto)
{
    int truncated;
    size_t bad = utf8_first_error((const unsigned char *)s, n, &truncated);
    if (bad >= n && !truncated)
        return 0;
    if (upto == MS_PY_READ_TO_EOF || upto > n)
        return 1; /* the final decode at the end of the file raises on any error */
    /* the bytes the reader must have decoded to hand out the line ending at upto: a line
     * ending with '\r' also needs the next character (is it "\r\n"?), a last line without
     * terminator the end of the file */
    size_t need = upto;
    if (upto == 0 || s[upto - 1] == '\r' || (upto == n && s[n - 1] != '\n'))
        need = upto < n ? upto + utf8_seq_len((unsigned char)s[upto]) : n + 1;
    if (need > n)
        return 1; /* it reads on to the end of the file: the final decode */
    if (truncated)
        return 0; /* kept pending, never decoded with final set */
    size_t chunks = (need + MS_PY_TEXT_CHUNK - 1) / MS_PY_TEXT_CHUNK;
    return bad < chunks * MS_PY_TEXT_CHUNK;
}

static int py_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
           c == '\x1c' || c == '\x1d' || c == '\x1e' || c == '\x1f';
}

const char *ms_py_strip(const char *s, size_t *n)
{
    size_t len = *n;
    while (len && py_ws(*s)) {
        s++;
        len--;
    }
    while (len && py_ws(s[len - 1]))
        len--;
    *n = len;
    return s;
}

int ms_pyre_compile(ms_pyre *re, const char *pattern, ms_err *e)
{
    memset(re, 0, sizeof *re);
    size_t n = strlen(pattern);
    char *pat = malloc(n + 1);
    if (!pat)
        return ms_err_oom(e);
    /* \Z in Python is PCRE's \z (end of subject only); copy escapes pairwise so "\\Z" stays */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (pattern[i] == '\\' && i + 1 < n) {
            pat[m++] = '\\';
            pat[m++] = pattern[i + 1] == 'Z' ? 'z' : pattern[i + 1];
            i++;
        } else {
            pat[m++] = pattern[i];
        }
    }
    pat[m] = '\0';
    int errcode;
    PCRE2_SIZE erroff;
    re->code = pcre2_compile((PCRE2_SPTR)pat, m, PCRE2_ANCHORED | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                             &errcode, &erroff, NULL);
    free(pat);
    if (!re->code) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        return ms_err_set(e, MS_EINPUT, "regular expression '%s': %s at offset %zu", pattern,
                          (char *)msg, (size_t)erroff);
    }
    re->pattern = strdup(pattern);
    if (!re->pattern) {
        ms_pyre_free(re);
        return ms_err_oom(e);
    }
    return MS_OK;
}

int ms_pcre2_jit_ok(void)
{
    const char *no = getenv("MLSUBMIT_NO_JIT"), *pre = getenv("LD_PRELOAD");
    return !(no && *no) && !(pre && strstr(pre, "vgpreload"));
}

void ms_pyre_jit(ms_pyre *re)
{
    if (re->code && ms_pcre2_jit_ok())
        (void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE);
}

void ms_pyre_free(ms_pyre *re)
{
    if (re->code)
        pcre2_code_free(re->code);
    free(re->pattern);
    memset(re, 0, sizeof *re);
}

int ms_pyre_match(const ms_pyre *re, const char *subject, size_t n, const char **g1,
                  size_t *g1len, ms_err *e)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!md)
        return ms_err_oom(e), -1;
    int rc = pcre2_match(re->code, (PCRE2_SPTR)subject, n, 0, 0, md, NULL);
    int ret;
    if (rc == PCRE2_ERROR_NOMATCH) {
        ret = 0;
    } else if (rc < 0) {
        PCRE2_UCHAR msg[160];
        pcre2_get_error_message(rc, msg, sizeof msg);
        ms_err_set(e, MS_EINPUT, "matching '%s': %s", re->pattern, (char *)msg);
        ret = -1;
    } else {
        ret = 1;
        if (g1) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            if (rc >= 2 && ov[2] != PCRE2_UNSET) {
                *g1 = subject + ov[2];
                *g1len = ov[3] - ov[2];
            } else {
                *g1 = NULL;
                *g1len = 0;
            }
        }
    }
    pcre2_match_data_free(md);
    return ret;
}

int ms_pyre_match_line(const ms_pyre *re, const char *line, size_t len, int had_nl,
                       char **scratch, size_t *scratch_cap, const char **g1, size_t *g1len,
                       ms_err *e)
{
    if (len + 2 > *scratch_cap) {
        size_t nc = len + 64;
        char *nb = realloc(*scratch, nc);
        if (!nb)
            return ms_err_oom(e), -1;
        *scratch = nb;
        *scratch_cap = nc;
    }
    memcpy(*scratch, line, len);
    size_t n = len;
    if (had_nl)
        (*scratch)[n++] = '\n';
    (*scratch)[n] = '\0';
    return ms_pyre_match(re, *scratch, n, g1, g1len, e);
}

void ms_pyre_lines_init(ms_pyre_lines *l, const char *text, size_t len)
{
    memset(l, 0, sizeof *l);
    ms_lines_init(&l->it, text, len);
}

int ms_pyre_lines_next(ms_pyre_lines *l)
{
    return ms_lines_next(&l->it, &l->line, &l->len, &l->had_nl);
}

int ms_pyre_lines_match(ms_pyre_lines *l, const ms_pyre *re, const char **g1, size_t *g1len, ms_err *e)
{
    return ms_pyre_match_line(re, l->line, l->len, l->had_nl, &l->scratch, &l->scratch_cap, g1, g1len, e);
}

void ms_pyre_lines_free(ms_pyre_lines *l)
{
    free(l->scratch);
    l->scratch = NULL;
    l->scratch_cap = 0;
}
