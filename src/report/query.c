/* mlsubmit query: read-only SQL on an index. The database is opened with SQLITE_OPEN_READONLY
 * and PRAGMA query_only, and every statement must be read-only (sqlite3_stmt_readonly): a write
 * is refused before it runs, whatever the file permissions. */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/csv.h"
#include "report/internal.h"

/* display width of UTF-8 text (code points; good enough for aligned columns) */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

static int run_stmt(sqlite3 *db, sqlite3_stmt *st, int csv, FILE *out, ms_err *e)
{
    int nc = sqlite3_column_count(st);
    if (nc == 0) {
        int r = sqlite3_step(st);
        return r == SQLITE_DONE || r == SQLITE_ROW ? 0 : ms_err_set(e, MS_EUSAGE, "query: %s", sqlite3_errmsg(db));
    }
    char **cells = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    /* header */
    for (int k = 0; k < nc; k++) {
        if (MS_GROW(cells, cap, n + 1, 64)) {
            rc = ms_err_oom(e);
            goto out;
        }
        const char *h = sqlite3_column_name(st, k);
        if (!(cells[n++] = strdup(h ? h : ""))) {
            rc = ms_err_oom(e);
            goto out;
        }
    }
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        for (int k = 0; k < nc; k++) {
            if (MS_GROW(cells, cap, n + 1, 64)) {
                rc = ms_err_oom(e);
                goto out;
            }
            const char *v = sqlite3_column_type(st, k) == SQLITE_NULL ? (csv ? "" : "NULL")
                                                                       : (const char *)sqlite3_column_text(st, k);
            if (!(cells[n++] = strdup(v ? v : ""))) {
                rc = ms_err_oom(e);
                goto out;
            }
        }
    }
    if (r != SQLITE_DONE) {
        rc = ms_err_set(e, MS_EUSAGE, "query: %s", sqlite3_errmsg(db));
        goto out;
    }
    size_t rows = n / (size_t)nc;
    ms_buf b = MS_BUF_INIT;
    if (csv) {
        for (size_t i = 0; i < rows; i++) {
            for (int k = 0; k < nc; k++) {
                if (k)
                    ms_buf_putc(&b, ',');
                ms_csv_put_field(&b, cells[i * (size_t)nc + (size_t)k]);
            }
            ms_buf_puts(&b, "\r\n");
        }
    } else {
        size_t *w = calloc((size_t)nc, sizeof *w);
        if (!w) {
            rc = ms_err_oom(e);
            goto out;
        }
        for (size_t i = 0; i < rows; i++)
            for (int k = 0; k < nc; k++) {
                size_t x = width(cells[i * (size_t)nc + (size_t)k]);
                if (x > w[k])
                    w[k] = x;
            }
        for (size_t i = 0; i < rows; i++) {
            for (int k = 0; k < nc; k++) {
                const char *v = cells[i * (size_t)nc + (size_t)k];
                ms_buf_puts(&b, v);
                if (k + 1 < nc)
                    for (size_t p = width(v); p < w[k] + 2; p++)
                        ms_buf_putc(&b, ' ');
            }
            /* no trailing blanks */
            while (b.len && b.data[b.len - 1] == ' ')
                b.len--;
            ms_buf_putc(&b, '\n');
            if (i == 0) {
                for (int k = 0; k < nc; k++) {
                    for (size_t p = 0; p < w[k]; p++)
                        ms_buf_putc(&b, '-');
                    if (k + 1 < nc)
                        ms_buf_puts(&b, "  ");
                }
                ms_buf_putc(&b, '\n');
            }
        }
        free(w);
        ms_buf_printf(&b, "(%zu row%s)\n", rows - 1, rows == 2 ? "" : "s");
    }
    if (b.len && fwrite(b.data, 1, b.len, out) != b.len)
        rc = ms_err_set(e, MS_ERUNTIME, "query: cannot write the output");
    ms_buf_free(&b);
out:
    for (size_t i = 0; i < n; i++)
        free(cells[i]);
    free(cells);
    return rc;
}

int rp_query(const char *dbpath, const char *sql, int csv, FILE *out, ms_err *e)
{
    sqlite3 *db = NULL;
    if (ms_lazy_sqlite_load("mlsubmit query", e))
        return MS_ERUNTIME;
    if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = ms_err_set(e, MS_EINPUT, "%s: cannot open: %s", dbpath, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return rc;
    }
    int rc = rp_db_exec(db, "PRAGMA query_only = 1", "query", e);
    sqlite3_stmt *probe = NULL;
    if (!rc && (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &probe, NULL) !=
                    SQLITE_OK ||
                sqlite3_step(probe) != SQLITE_ROW))
        rc = ms_err_set(e, MS_EINPUT, "%s: not an mlsubmit index (no meta.schema_version): %s", dbpath,
                        sqlite3_errmsg(db));
    sqlite3_finalize(probe);
    const char *p = sql;
    int any = 0;
    while (!rc && p && *p) {
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        if (sqlite3_prepare_v2(db, p, -1, &st, &tail) != SQLITE_OK) {
            rc = ms_err_set(e, MS_EUSAGE, "query: %s", sqlite3_errmsg(db));
            break;
        }
        if (!st) { /* blanks or a comment */
            p = tail;
            continue;
        }
        if (!sqlite3_stmt_readonly(st)) {
            rc = ms_err_set(e, MS_EUSAGE, "query: only read-only statements are allowed (SELECT, read-only PRAGMA, "
                                          "EXPLAIN); refused: %.*s",
                            (int)(tail ? tail - p : (long)strlen(p)), p);
            sqlite3_finalize(st);
            break;
        }
        rc = run_stmt(db, st, csv, out, e);
        sqlite3_finalize(st);
        any = 1;
        p = tail;
    }
    if (!rc && !any)
        rc = ms_err_set(e, MS_EUSAGE, "query: no SQL statement given");
    sqlite3_close(db);
    return rc;
}
