/* Reader and comparison of issued-query traces (`--dump-issued`, the format of the reference
 * traces in testdata/traces): "L i0 i1 ..." per load call, "Q i0 i1 ..." per issued query. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/fsutil.h"
#include "loadgen/loadgen.h"

void lg_issued_trace_free(lg_issued_trace *t)
{
    if (!t)
        return;
    free(t->kinds);
    free(t->start);
    free(t->count);
    free(t->idx);
    free(t->line);
    memset(t, 0, sizeof *t);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < need) {
        if (nc > SIZE_MAX / 2 / elem)
            return -1;
        nc *= 2;
    }
    void *np = realloc(*p, nc * elem);
    if (!np)
        return -1;
    *p = np;
    *cap = nc;
    return 0;
}

int lg_issued_trace_parse(const char *text, size_t len, const char *name, lg_issued_trace *t,
                          ms_err *e)
{
    memset(t, 0, sizeof *t);
    size_t rcap = 0, icap = 0, lcap = 0, scap = 0, ccap = 0;
    const char *p = text, *end = text + len;
    size_t line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        line++;
        if (le > p && le[-1] == '\r')
            le--;
        if (le == p) { /* blank line */
            p = nl ? nl + 1 : end;
            continue;
        }
        char kind = *p;
        if ((kind != 'L' && kind != 'Q') || (le - p > 1 && p[1] != ' ')) {
            lg_issued_trace_free(t);
            return ms_err_set(e, MS_EINPUT, "%s:%zu: expected a line 'L i0 i1 ...' or 'Q i0 i1 ...'", name, line);
        }
        if (grow((void **)&t->kinds, &rcap, t->nrecords + 1, 1) || grow((void **)&t->start, &scap, t->nrecords + 1, sizeof *t->start) ||
            grow((void **)&t->count, &ccap, t->nrecords + 1, sizeof *t->count) ||
            grow((void **)&t->line, &lcap, t->nrecords + 1, sizeof *t->line)) {
            lg_issued_trace_free(t);
            return ms_err_oom(e);
        }
        t->kinds[t->nrecords] = kind;
        t->start[t->nrecords] = t->nidx;
        t->line[t->nrecords] = line;
        size_t cnt = 0;
        const char *q = p + 1;
        while (q < le) {
            while (q < le && *q == ' ')
                q++;
            if (q >= le)
                break;
            if (!isdigit((unsigned char)*q)) {
                lg_issued_trace_free(t);
                return ms_err_set(e, MS_EINPUT, "%s:%zu: '%c' is not a sample index (expected decimal digits)",
                                  name, line, *q);
            }
            uint64_t v = 0;
            while (q < le && isdigit((unsigned char)*q)) {
                unsigned d = (unsigned)(*q - '0');
                if (v > (UINT64_MAX - d) / 10) {
                    lg_issued_trace_free(t);
                    return ms_err_set(e, MS_EINPUT, "%s:%zu: sample index beyond 64 bits", name, line);
                }
                v = v * 10 + d;
                q++;
            }
            if (q < le && *q != ' ') {
                lg_issued_trace_free(t);
                return ms_err_set(e, MS_EINPUT, "%s:%zu: '%c' after a sample index (expected a space)", name, line, *q);
            }
            if (grow((void **)&t->idx, &icap, t->nidx + 1, sizeof *t->idx)) {
                lg_issued_trace_free(t);
                return ms_err_oom(e);
            }
            t->idx[t->nidx++] = v;
            cnt++;
        }
        t->count[t->nrecords++] = cnt;
        p = nl ? nl + 1 : end;
    }
    return MS_OK;
}

static int parse_trace(const char *text, size_t len, const char *name, void *out, ms_err *e)
{
    return lg_issued_trace_parse(text, len, name, out, e);
}

int lg_issued_trace_load(const char *path, lg_issued_trace *t, ms_err *e)
{
    return ms_parse_file(path, parse_trace, t, e);
}

int lg_issued_trace_diff(const lg_issued_trace *a, const lg_issued_trace *b, char *msg, size_t n)
{
    size_t nr = a->nrecords < b->nrecords ? a->nrecords : b->nrecords;
    size_t nq = 0;
    for (size_t r = 0; r < nr; r++) {
        if (a->kinds[r] == 'Q')
            nq++;
        if (a->kinds[r] != b->kinds[r]) {
            snprintf(msg, n, "record %zu (lines %zu / %zu): a %s against a %s", r + 1, a->line[r], b->line[r],
                     a->kinds[r] == 'L' ? "load" : "query", b->kinds[r] == 'L' ? "load" : "query");
            return 1;
        }
        size_t ca = a->count[r], cb = b->count[r];
        for (size_t i = 0; i < ca && i < cb; i++)
            if (a->idx[a->start[r] + i] != b->idx[b->start[r] + i]) {
                snprintf(msg, n,
                         "record %zu (lines %zu / %zu, %s%s%zu): position %zu is %llu against %llu",
                         r + 1, a->line[r], b->line[r], a->kinds[r] == 'L' ? "load" : "query",
                         a->kinds[r] == 'L' ? "" : " ", a->kinds[r] == 'L' ? (size_t)0 : nq, i + 1,
                         (unsigned long long)a->idx[a->start[r] + i], (unsigned long long)b->idx[b->start[r] + i]);
                return 1;
            }
        if (ca != cb) {
            snprintf(msg, n, "record %zu (lines %zu / %zu): %zu samples against %zu", r + 1, a->line[r],
                     b->line[r], ca, cb);
            return 1;
        }
    }
    if (a->nrecords != b->nrecords) {
        snprintf(msg, n, "the traces agree on %zu records, then one has %zu more", nr,
                 a->nrecords > b->nrecords ? a->nrecords - nr : b->nrecords - nr);
        return 1;
    }
    snprintf(msg, n, "identical: %zu records (%zu queries)", nr, nq);
    return 0;
}
