/* RFC 4180 CSV reader (see csv.h). */
#include "common/csv.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fsutil.h"

void ms_csv_free(ms_csv *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nrows; i++) {
        for (size_t j = 0; j < c->rows[i].n; j++)
            free(c->rows[i].fields[j]);
        free(c->rows[i].fields);
    }
    free(c->rows);
    memset(c, 0, sizeof *c);
}

static int push_field(ms_csv_row *r, size_t *cap, ms_buf *f)
{
    if (MS_GROW(r->fields, *cap, r->n + 1, 16))
        return -1;
    char *s = malloc(f->len + 1);
    if (!s)
        return -1;
    if (f->len)
        memcpy(s, f->data, f->len);
    s[f->len] = 0;
    r->fields[r->n++] = s;
    ms_buf_reset(f);
    return 0;
}

static int push_row(ms_csv *c, ms_csv_row *r)
{
    if (MS_GROW(c->rows, c->cap, c->nrows + 1, 64))
        return -1;
    c->rows[c->nrows++] = *r;
    memset(r, 0, sizeof *r);
    return 0;
}

int ms_csv_parse(const char *text, size_t len, const char *name, ms_csv *out, ms_err *e)
{
    memset(out, 0, sizeof *out);
    ms_buf f = MS_BUF_INIT;
    ms_csv_row row = {0};
    size_t rcap = 0, line = 1;
    size_t i = 0;
    int rc = 0;
    while (i < len) {
        /* start of a record: skip empty lines */
        if (text[i] == '\n' || text[i] == '\r') {
            if (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')
                i++;
            i++;
            line++;
            continue;
        }
        row.line = line;
        rcap = 0;
        for (;;) { /* one field */
            int quoted = i < len && text[i] == '"';
            if (quoted) {
                size_t qline = line;
                i++;
                for (;;) {
                    if (i >= len) {
                        rc = ms_err_set(e, MS_EINPUT, "%s:%zu: quoted field not closed", name, qline);
                        goto out;
                    }
                    char ch = text[i];
                    if (ch == '"') {
                        if (i + 1 < len && text[i + 1] == '"') {
                            if (ms_buf_putc(&f, '"'))
                                goto oom;
                            i += 2;
                            continue;
                        }
                        i++;
                        break;
                    }
                    if (ch == '\n' || (ch == '\r' && !(i + 1 < len && text[i + 1] == '\n')))
                        line++;
                    if (ms_buf_putc(&f, ch))
                        goto oom;
                    i++;
                }
            }
            /* unquoted text, or text after a closing quote: kept literally (quotes included),
             * as Python's csv module and pandas do with the legacy checker's unescaped quotes */
            while (i < len && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
                if (ms_buf_putc(&f, text[i]))
                    goto oom;
                i++;
            }
            if (push_field(&row, &rcap, &f))
                goto oom;
            if (i < len && text[i] == ',') {
                i++;
                continue;
            }
            break; /* end of record (line break or end of text) */
        }
        if (push_row(out, &row))
            goto oom;
    }
    goto out;
oom:
    rc = ms_err_oom(e);
out:
    for (size_t j = 0; j < row.n; j++)
        free(row.fields[j]);
    free(row.fields);
    ms_buf_free(&f);
    if (rc)
        ms_csv_free(out);
    return rc;
}

static int parse_csv(const char *text, size_t len, const char *name, void *out, ms_err *e)
{
    return ms_csv_parse(text, len, name, out, e);
}

int ms_csv_load(const char *path, ms_csv *out, ms_err *e)
{
    return ms_parse_file(path, parse_csv, out, e);
}

int ms_csv_col(const ms_csv *c, const char *name)
{
    if (!c->nrows)
        return -1;
    for (size_t i = 0; i < c->rows[0].n; i++)
        if (!strcmp(c->rows[0].fields[i], name))
            return (int)i;
    return -1;
}

int ms_csv_put_field(ms_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\r\n"))
        return ms_buf_puts(b, s);
    if (ms_buf_putc(b, '"'))
        return -1;
    for (const char *p = s; *p; p++) {
        if (*p == '"' && ms_buf_putc(b, '"'))
            return -1;
        if (ms_buf_putc(b, *p))
            return -1;
    }
    return ms_buf_putc(b, '"');
}
