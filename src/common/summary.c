/* mlperf_log_summary.txt reader: see summary.h. */
#include "common/summary.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/pytext.h"

/* Lines as Python's text mode sees them (\n, \r\n and \r end a line): common/pytext.h. */
static int split_lines(ms_summary *s, ms_err *e)
{
    size_t cap = 64;
    s->lines = malloc(cap * sizeof *s->lines);
    if (!s->lines)
        return ms_err_oom(e);
    ms_lines it;
    ms_lines_init(&it, s->text, s->len);
    const char *l;
    size_t n;
    int nl;
    while (ms_lines_next(&it, &l, &n, &nl)) {
        if (MS_GROW(s->lines, cap, s->nlines + 1, 64))
            return ms_err_oom(e);
        s->lines[s->nlines].text = l;
        s->lines[s->nlines].len = n;
        s->nlines++;
    }
    return MS_OK;
}

int ms_summary_parse(ms_summary *s, const char *text, size_t len, const char *name, ms_err *e)
{
    memset(s, 0, sizeof *s);
    s->path = strdup(name ? name : "summary");
    s->text = malloc(len + 1);
    if (!s->path || !s->text) {
        ms_summary_free(s);
        return ms_err_oom(e);
    }
    memcpy(s->text, text, len);
    s->text[len] = '\0';
    s->len = len;
    if (split_lines(s, e) != MS_OK) {
        ms_summary_free(s);
        return e ? e->code : MS_ERUNTIME;
    }
    return MS_OK;
}

int ms_summary_load(ms_summary *s, const char *path, ms_err *e)
{
    memset(s, 0, sizeof *s);
    char *text;
    size_t len;
    int rc = ms_read_file(path, 0, &text, &len, e);
    if (rc != MS_OK)
        return rc;
    s->path = strdup(path);
    s->text = text;
    s->len = len;
    if (!s->path) {
        ms_summary_free(s);
        return ms_err_oom(e);
    }
    if (split_lines(s, e) != MS_OK) {
        ms_summary_free(s);
        return e ? e->code : MS_ERUNTIME;
    }
    return MS_OK;
}

void ms_summary_free(ms_summary *s)
{
    free(s->path);
    free(s->text);
    free(s->lines);
    memset(s, 0, sizeof *s);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int ms_summary_line_value(const ms_summary_line *l, const char **v, size_t *n)
{
    for (size_t i = 0; i + 1 < l->len; i++) {
        if (l->text[i] == ':' && l->text[i + 1] == ' ') {
            const char *a = l->text + i + 2, *b = l->text + l->len;
            while (a < b && is_space(*a))
                a++;
            while (b > a && is_space(b[-1]))
                b--;
            *v = a;
            *n = (size_t)(b - a);
            return 0;
        }
    }
    return -1;
}

long ms_summary_find_prefix(const ms_summary *s, const char *prefix)
{
    size_t pl = strlen(prefix);
    for (size_t i = 0; i < s->nlines; i++)
        if (s->lines[i].len >= pl && !memcmp(s->lines[i].text, prefix, pl))
            return (long)i;
    return -1;
}

char *ms_summary_get(const ms_summary *s, const char *prefix)
{
    long i = ms_summary_find_prefix(s, prefix);
    const char *v;
    size_t n;
    if (i < 0 || ms_summary_line_value(&s->lines[i], &v, &n) != 0)
        return NULL;
    return strndup(v, n);
}
