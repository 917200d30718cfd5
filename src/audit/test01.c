/* TEST01 accuracy verification (compliance/TEST01/verify_accuracy.py, create_accuracy_baseline.sh):
 *   mode A   upstream's default: first dtype element of each performance-mode response against
 *            the accuracy-mode response of its qsl_idx, with upstream's quirks (a later record
 *            of the same qsl_idx is compared with the previous compliance record);
 *   mode B   upstream's --unixmode: MD5 of each record line without seq_id and commas;
 *   STRICT   every byte (and token_data / token_count) against the first reference record.
 * Both logs are streamed; per reference qsl_idx only digests and the first element are kept. */
#include <math.h>
#include "common/lazy_crypto.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_int.h"
#include "common/buf.h"
#include "common/acclog.h"
#include "common/fsutil.h"
#include "common/strutil.h"
#include "loadgen/digits.h"

/* ---- qsl_idx -> entry map ------------------------------------------------------------------ */

typedef struct ent {
    uint64_t qsl;
    /* mode A: the data the next compliance record with this qsl_idx is compared with */
    unsigned char first[8];
    uint64_t nelem;
    unsigned char bad_len;     /* byte length not a multiple of the element size */
    unsigned char in_test;
    /* the first reference record (STRICT, duplicates) */
    unsigned char has_ref, ref_has_td, ref_has_tc, covered;
    unsigned char ref_hex_md5[16], ref_md5[16], ref_td_md5[16];
    uint64_t ref_len;
    int64_t ref_tc;
} ent;

typedef struct emap {
    ent *v;
    size_t n, cap;
    uint32_t *slot;    /* index + 1, 0 = empty */
    size_t nslots;
} emap;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static void emap_free(emap *m)
{
    free(m->v);
    free(m->slot);
    memset(m, 0, sizeof *m);
}

static int emap_grow(emap *m)
{
    size_t ns = m->nslots ? m->nslots * 2 : 1024;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < m->n; i++) {
        size_t h = mix(m->v[i].qsl) & (ns - 1);
        while (s[h])
            h = (h + 1) & (ns - 1);
        s[h] = (uint32_t)(i + 1);
    }
    free(m->slot);
    m->slot = s;
    m->nslots = ns;
    return 0;
}

/* Finds qsl; with create, adds a zeroed entry if absent (*created = 1). NULL on OOM / absent. */
static ent *emap_get(emap *m, uint64_t qsl, int create, int *created)
{
    if (created)
        *created = 0;
    if (m->nslots) {
        size_t h = mix(qsl) & (m->nslots - 1);
        while (m->slot[h]) {
            ent *x = &m->v[m->slot[h] - 1];
            if (x->qsl == qsl)
                return x;
            h = (h + 1) & (m->nslots - 1);
        }
    }
    if (!create)
        return NULL;
    if ((m->n + 1) * 2 > m->nslots && emap_grow(m) != 0)
        return NULL;
    if (MS_GROW(m->v, m->cap, m->n + 1, 1024))
        return NULL;
    ent *x = &m->v[m->n];
    memset(x, 0, sizeof *x);
    x->qsl = qsl;
    size_t h = mix(qsl) & (m->nslots - 1);
    while (m->slot[h])
        h = (h + 1) & (m->nslots - 1);
    m->slot[h] = (uint32_t)(++m->n);
    if (created)
        *created = 1;
    return x;
}

static void md5(const void *p, size_t n, unsigned char out[16])
{
    unsigned int len = 16;
    EVP_Digest(p, n, out, &len, EVP_md5(), NULL);
}

static size_t elem_size(au_dtype d)
{
    return d == AU_DT_BYTE ? 1 : d == AU_DT_INT64 ? 8 : 4;
}

/* upstream: data[0] != data_perf[0] (a float NaN never equals itself) */
static int first_differs(au_dtype d, const unsigned char *a, const unsigned char *b)
{
    if (d == AU_DT_FLOAT32) {
        float x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        return !(x == y);
    }
    return memcmp(a, b, elem_size(d)) != 0;
}

/* A log cut by the packaging tool (truncate_accuracy_log.py) is no longer JSON: say so. */
void au_explain_acclog_error(const char *path, const ms_err *pe, char *why, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    ms_err e2 = {0};
    int truncated = 0;
    /* 4096 bytes, "\n\n...\n\n" (written with \r\n on Windows), the last 4096 bytes */
    if (ms_read_file(path, 1 << 16, &text, &len, &e2) == MS_OK && len >= 8199 && len < 9000)
        truncated = memmem(text + 4096, len - 4096, "\n...\n", 5) || memmem(text + 4096, len - 4096, "\n...\r\n", 6);
    free(text);
    if (truncated)
        snprintf(why, n,
                 "%s was truncated by the packaging tool (the first and last 4096 bytes around "
                 "'...'); it is not JSON any more: verify against the untruncated log (its SHA-256 "
                 "is the hash= line of accuracy.txt)",
                 path);
    else
        snprintf(why, n, "%s", pe->msg);
}

/* ---- mode A and STRICT ----------------------------------------------------------------------- */

static int read_reference(au_t01 *t, emap *m, char *why, size_t whysz, int *oom)
{
    ms_err e = {0};
    ms_acclog *r = ms_acclog_open(t->ref_log, MS_ACCLOG_KEEP_HEX, &e);
    if (!r) {
        snprintf(why, whysz, "%s", e.msg);
        return -1;
    }
    size_t esz = elem_size(t->dtype);
    ms_acc_entry a;
    int rc;
    while ((rc = ms_acclog_next(r, &a, &e)) == 1) {
        t->acc_entries++;
        int created;
        ent *x = emap_get(m, a.qsl_idx, 1, &created);
        if (!x) {
            *oom = 1;
            break;
        }
        unsigned char hm[16];
        md5(a.data_hex, a.data_hex_len, hm);
        if (!created) {
            t->acc_dup++;
            if (memcmp(hm, x->ref_hex_md5, 16) != 0)
                t->acc_mismatch++;
            continue;
        }
        x->has_ref = 1;
        memcpy(x->ref_hex_md5, hm, 16);
        md5(a.data, a.data_len, x->ref_md5);
        x->ref_len = a.data_len;
        x->ref_has_td = (unsigned char)a.has_token_data;
        if (a.has_token_data)
            md5(a.token_data, a.token_data_len, x->ref_td_md5);
        x->ref_has_tc = (unsigned char)a.has_token_count;
        x->ref_tc = a.token_count;
        x->bad_len = a.data_len % esz != 0;
        x->nelem = a.data_len / esz;
        if (a.data_len >= esz)
            memcpy(x->first, a.data, esz);
    }
    ms_acclog_close(r);
    if (rc < 0 && !*oom) {
        au_explain_acclog_error(t->ref_log, &e, why, whysz);
        return -1;
    }
    return *oom ? -1 : 0;
}

/* Returns 0, -1 parse error (why), -2 a record upstream aborts on (why). */
static int read_test(au_t01 *t, emap *m, char *why, size_t whysz, int *oom)
{
    ms_err e = {0};
    ms_acclog *r = ms_acclog_open(t->test_log, 0, &e);
    if (!r) {
        snprintf(why, whysz, "%s", e.msg);
        return -1;
    }
    size_t esz = elem_size(t->dtype);
    ms_acc_entry a;
    int rc, abort_rc = 0;
    while ((rc = ms_acclog_next(r, &a, &e)) == 1) {
        t->perf_entries++;
        if (a.data_len % esz != 0 && !abort_rc) {
            snprintf(why, whysz,
                     "%s:%zu: qsl_idx %llu: a response of %zu bytes is not a whole number of %s "
                     "elements (%zu bytes); upstream aborts here without a verdict",
                     t->test_log, a.line, (unsigned long long)a.qsl_idx, a.data_len,
                     au_dtype_name(t->dtype), esz);
            abort_rc = -2;
        }
        int created;
        ent *x = emap_get(m, a.qsl_idx, 1, &created);
        if (!x) {
            *oom = 1;
            break;
        }
        if (!abort_rc) {
            if (!created) {
                t->qsl_match++;
                if (x->bad_len) {
                    snprintf(why, whysz,
                             "%s: the accuracy-mode response of qsl_idx %llu is not a whole number of "
                             "%s elements; upstream aborts here without a verdict",
                             t->ref_log, (unsigned long long)a.qsl_idx, au_dtype_name(t->dtype));
                    abort_rc = -2;
                } else {
                    uint64_t ne = a.data_len / esz;
                    if (x->nelem == 0 || ne == 0) {
                        if (x->nelem != ne)
                            t->data_mismatch++;
                    } else if (first_differs(t->dtype, a.data, x->first)) {
                        t->data_mismatch++;
                    }
                }
            } else {
                t->missing++;
            }
            /* upstream overwrites the entry with this compliance record */
            x->nelem = a.data_len / esz;
            x->bad_len = 0;
            if (a.data_len >= esz)
                memcpy(x->first, a.data, esz);
        }
        x->in_test = 1;
        if (t->strict && x->has_ref) {
            if (!x->covered) {
                x->covered = 1;
                t->covered++;
            }
            unsigned char d[16];
            md5(a.data, a.data_len, d);
            int diff = a.data_len != x->ref_len || memcmp(d, x->ref_md5, 16) != 0;
            if (a.has_token_data != x->ref_has_td || a.has_token_count != x->ref_has_tc)
                diff = 1;
            if (!diff && a.has_token_data) {
                md5(a.token_data, a.token_data_len, d);
                diff = memcmp(d, x->ref_td_md5, 16) != 0;
            }
            if (!diff && a.has_token_count && a.token_count != x->ref_tc)
                diff = 1;
            t->full_mismatch += diff;
        }
    }
    ms_acclog_close(r);
    if (*oom)
        return -1;
    if (rc < 0) {
        au_explain_acclog_error(t->test_log, &e, why, whysz);
        return -1;
    }
    return abort_rc;
}

static void counters_text(const au_t01 *t, ms_buf *out)
{
    ms_buf_printf(out,
                  "num_acc_log_entries = %llu\nnum_acc_log_duplicate_keys = %llu\n"
                  "num_acc_log_data_mismatch = %llu\nnum_perf_log_entries = %llu\n"
                  "num_perf_log_qsl_idx_match = %llu\nnum_perf_log_data_mismatch = %llu\n"
                  "num_missing_qsl_idxs = %llu\n",
                  (unsigned long long)t->acc_entries, (unsigned long long)t->acc_dup,
                  (unsigned long long)t->acc_mismatch, (unsigned long long)t->perf_entries,
                  (unsigned long long)t->qsl_match, (unsigned long long)t->data_mismatch,
                  (unsigned long long)t->missing);
}

static int mode_a(au_t01 *t, ms_buf *out, au_rep *rep, ms_buf *notes, ms_err *e)
{
    emap m = {0};
    char why[2048] = "";
    int oom = 0;
    ms_buf_puts(out, "Verifying accuracy. This might take a while...\n");
    int rr = read_reference(t, &m, why, sizeof why, &oom);
    int tr = rr == 0 ? read_test(t, &m, why, sizeof why, &oom) : -1;
    emap_free(&m);
    if (oom)
        return ms_err_oom(e);
    if (rr == 0 && tr != -1)
        ms_buf_puts(out, "Reading accuracy mode results...\nReading performance mode results...\n");
    if (rr != 0 || tr != 0) {
        t->input_error = 1;
        ms_buf_printf(out, "ERROR: %s\nTEST FAIL\n\n", why);
        au_note(notes, "%s", why);
        if (t->strict)
            au_rep_check(rep, AU_FAILED, "full-byte comparison: not possible: %s", why);
        return MS_OK;
    }
    counters_text(t, out);
    t->pass = t->data_mismatch == 0 && t->qsl_match > 0;
    ms_buf_puts(out, t->pass ? "TEST PASS\n\n" : "TEST FAIL\n\n");
    if (t->strict) {
        int ok = t->perf_entries > 0 && t->full_mismatch == 0 && t->covered > 0;
        au_rep_check(rep, ok ? AU_PASSED : AU_FAILED,
                     "full-byte comparison against the first accuracy-mode record of each qsl_idx "
                     "(data, token_data, token_count)");
        au_rep_detail(rep, "num_perf_log_entries = %llu", (unsigned long long)t->perf_entries);
        au_rep_detail(rep, "num_perf_log_full_mismatch = %llu", (unsigned long long)t->full_mismatch);
        au_rep_detail(rep, "distinct qsl_idx covered = %llu", (unsigned long long)t->covered);
        if (t->perf_entries == 0)
            au_rep_detail(rep, "the compliance accuracy log is empty");
        if (t->full_mismatch && !t->data_mismatch)
            au_rep_detail(rep, "every mismatch is after the first element: invisible to COMPAT mode A (A2c)");
    }
    return MS_OK;
}

/* ---- mode B: line digests -------------------------------------------------------------------- */

/* trim, delete commas, delete '"seq_id" <sp>* : <sp>* <non-space>+' (verify_accuracy.py --unixmode) */
static void canon(const char *s, size_t n, ms_buf *out)
{
    ms_buf_reset(out);
    while (n && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
        s++, n--;
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    for (size_t i = 0; i < n; i++)
        if (s[i] != ',')
            ms_buf_putc(out, s[i]);
    static const char key[] = "\"seq_id\"";
    size_t w = 0;
    char *d = out->data;
    for (size_t i = 0; d && i < out->len;) {
        if (out->len - i >= sizeof key - 1 && !memcmp(d + i, key, sizeof key - 1)) {
            size_t j = i + sizeof key - 1;
            while (j < out->len && d[j] == ' ')
                j++;
            if (j < out->len && d[j] == ':') {
                j++;
                while (j < out->len && d[j] == ' ')
                    j++;
                size_t k = j;
                while (k < out->len && d[k] != ' ' && d[k] != '\t')
                    k++;
                if (k > j) {
                    i = k;
                    continue;
                }
            }
        }
        d[w++] = d[i++];
    }
    out->len = w;
    if (d)
        d[w] = '\0';
}

/* 4th field of the line split on ": " and "," (awk -F': |,'), right-trimmed */
static void field4(const char *s, size_t n, const char **f, size_t *fl)
{
    size_t start = 0, k = 0;
    *f = s + n;
    *fl = 0;
    for (size_t i = 0; i <= n; i++) {
        int sep2 = i + 1 < n && s[i] == ':' && s[i + 1] == ' ';
        if (i == n || sep2 || s[i] == ',') {
            if (++k == 4) {
                size_t e = i;
                while (e > start && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r'))
                    e--;
                *f = s + start;
                *fl = e - start;
                return;
            }
            start = i + (sep2 ? 2 : 1);
            i += sep2;
        }
    }
}

typedef struct bline {
    char *canon;      /* canonical compliance line + "\n" */
    char *idx;        /* its qsl_idx text */
} bline;

typedef struct bidx {
    char *idx;
    ms_buf joined;    /* canonical reference lines + "\n" each */
} bidx;

static int cmp_bidx(const void *a, const void *b)
{
    return strcmp(((const bidx *)a)->idx, ((const bidx *)b)->idx);
}

static int mode_b(au_t01 *t, ms_buf *out, au_rep *rep, ms_buf *notes, ms_err *e)
{
    char *ct;
    size_t cl;
    ms_buf_puts(out, "Verifying accuracy. This might take a while...\n");
    if (ms_read_file(t->test_log, 0, &ct, &cl, e) != MS_OK) {
        t->input_error = 1;
        ms_buf_printf(out, "ERROR: %s\nTEST FAIL\n\n", e->msg);
        au_note(notes, "%s", e->msg);
        ms_err_clear(e);
        return MS_OK;
    }
    FILE *rf = fopen(t->ref_log, "r");
    if (!rf) {
        t->input_error = 1;
        ms_buf_printf(out, "ERROR: %s: cannot open (expected the accuracy-mode log)\nTEST FAIL\n\n", t->ref_log);
        au_note(notes, "%s: cannot open (expected the accuracy-mode log)", t->ref_log);
        free(ct);
        return MS_OK;
    }
    size_t nc = 0;
    for (size_t i = 0; i < cl; i++)
        nc += ct[i] == '\n';
    bline *bl = calloc(nc ? nc : 1, sizeof *bl);
    bidx *bx = calloc(nc ? nc : 1, sizeof *bx);
    size_t nbl = 0, nbx = 0;
    ms_buf cb = MS_BUF_INIT;
    int rc = MS_OK;
    if (!bl || !bx) {
        rc = ms_err_oom(e);
        goto done;
    }
    const char *p = ct;
    for (size_t i = 0; i < nc; i++) {
        const char *nl = memchr(p, '\n', (size_t)(ct + cl - p));
        if (i > 0 && i + 1 < nc) {
            canon(p, (size_t)(nl - p), &cb);
            const char *f;
            size_t fl;
            field4(p, (size_t)(nl - p), &f, &fl);
            bl[nbl].idx = strndup(f, fl);
            ms_buf_putc(&cb, '\n');
            bl[nbl].canon = strndup(cb.data, cb.len);
            if (!bl[nbl].idx || !bl[nbl].canon) {
                nbl++;
                rc = ms_err_oom(e);
                goto done;
            }
            nbl++;
        }
        p = nl + 1;
    }
    /* distinct indices */
    for (size_t i = 0; i < nbl; i++)
        bx[nbx++].idx = bl[i].idx;
    qsort(bx, nbx, sizeof *bx, cmp_bidx);
    size_t u = 0;
    for (size_t i = 0; i < nbx; i++)
        if (u == 0 || strcmp(bx[u - 1].idx, bx[i].idx) != 0)
            bx[u++] = bx[i];
    nbx = u;
    /* stream the reference, collecting the lines grep would print for each index */
    char *line = NULL;
    size_t lcap = 0;
    ssize_t ll;
    uint64_t nr = 0;
    static const char pat[] = "qsl_idx\" : ";
    while ((ll = getline(&line, &lcap, rf)) > 0) {
        if (line[ll - 1] == '\n')
            nr++;
        int canon_done = 0;
        const char *last_hit = NULL;
        for (const char *s = line; (s = strstr(s, pat)) != NULL; s++) {
            const char *v = s + sizeof pat - 1;
            const char *comma = strchr(v, ',');
            if (!comma)
                break;
            bidx key = {.idx = strndup(v, (size_t)(comma - v))};
            if (!key.idx) {
                rc = ms_err_oom(e);
                break;
            }
            bidx *hit = bsearch(&key, bx, nbx, sizeof *bx, cmp_bidx);
            free(key.idx);
            if (!hit || (const char *)hit == last_hit)
                continue;
            last_hit = (const char *)hit;
            if (!canon_done) {
                canon(line, (size_t)ll, &cb);
                ms_buf_putc(&cb, '\n');
                canon_done = 1;
            }
            if (ms_buf_append(&hit->joined, cb.data, cb.len) != 0) {
                rc = ms_err_oom(e);
                break;
            }
        }
        if (rc != MS_OK)
            break;
    }
    free(line);
    if (rc != MS_OK)
        goto done;
    uint64_t mism = 0, match = 0;
    for (size_t i = 0; i < nbl; i++) {
        bidx key = {.idx = bl[i].idx};
        bidx *hit = bsearch(&key, bx, nbx, sizeof *bx, cmp_bidx);
        const char *j = hit && hit->joined.data ? hit->joined.data : "";
        if (!strcmp(j, bl[i].canon))
            match++;
        else
            mism++;
    }
    ms_buf_puts(out, "Each dot represents 1% completion:\n");
    size_t step = nc / 100 ? nc / 100 : 1;
    for (size_t i = 0; i < nc; i += step)
        ms_buf_putc(out, '.');
    ms_buf_printf(out, "\nnum_acc_log_entries = %lld\nnum_perf_log_data_mismatch = %llu\nnum_perf_log_entries = %lld\n",
                  (long long)nr - 2, (unsigned long long)mism, (long long)nc - 2);
    t->acc_entries = nr >= 2 ? nr - 2 : 0;
    t->perf_entries = nc >= 2 ? nc - 2 : 0;
    t->data_mismatch = mism;
    t->qsl_match = match;
    t->pass = mism == 0 && match > 0;
    ms_buf_puts(out, t->pass ? "TEST PASS\n\n" : "TEST FAIL\n\n");
    if (nc < 100 && nc > 0)
        au_note(notes, "%s: fewer than 100 lines; upstream's --unixmode divides by zero here (one dot per line written instead)",
                t->test_log);
    (void)rep;
done:
    for (size_t i = 0; i < nbl; i++) {
        free(bl[i].idx);
        free(bl[i].canon);
    }
    for (size_t i = 0; i < nbx; i++)
        ms_buf_free(&bx[i].joined);
    free(bl);
    free(bx);
    ms_buf_free(&cb);
    free(ct);
    fclose(rf);
    return rc;
}

int au_test01_accuracy(au_t01 *t, ms_buf *out, au_rep *rep, ms_buf *notes, ms_err *e)
{
    t->pass = 0;
    t->input_error = 0;
    t->acc_entries = t->acc_dup = t->acc_mismatch = 0;
    t->perf_entries = t->qsl_match = t->data_mismatch = t->missing = 0;
    t->full_mismatch = t->covered = 0;
    int lrc = ms_lazy_crypto_load("the TEST01 accuracy comparison", e);
    if (lrc != MS_OK)
        return lrc;
    if (!t->unixmode)
        return mode_a(t, out, rep, notes, e);
    int rc = mode_b(t, out, rep, notes, e);
    if (rc == MS_OK && t->strict) {
        /* STRICT compares decoded bytes whatever the COMPAT mode */
        au_t01 s = *t;
        ms_buf scratch = MS_BUF_INIT;
        s.unixmode = 0;
        rc = mode_a(&s, &scratch, rep, NULL, e);
        t->full_mismatch = s.full_mismatch;
        t->covered = s.covered;
        ms_buf_free(&scratch);
    }
    return rc;
}

/* ---- scorers and the non-determinism fallback (create_accuracy_baseline.sh) ------------------ */

/* qsl_idx -> MD5 of the first accuracy-mode response, for the bytes scorer */
static int ref_digests(const char *ref_log, emap *m, ms_err *e)
{
    ms_acclog *r = ms_acclog_open(ref_log, 0, e);
    if (!r)
        return e->code;
    ms_acc_entry a;
    int rc;
    while ((rc = ms_acclog_next(r, &a, e)) == 1) {
        int created;
        ent *x = emap_get(m, a.qsl_idx, 1, &created);
        if (!x) {
            ms_acclog_close(r);
            return ms_err_oom(e);
        }
        if (created) {
            md5(a.data, a.data_len, x->ref_md5);
            x->ref_len = a.data_len;
        }
    }
    ms_acclog_close(r);
    return rc < 0 ? e->code : MS_OK;
}

static int score_bytes(const char *ref_log, const char *log, size_t *good, size_t *total, ms_err *e)
{
    emap m = {0};
    int rc = ref_digests(ref_log, &m, e);
    emap seen = {0};
    ms_acclog *r = rc == MS_OK ? ms_acclog_open(log, 0, e) : NULL;
    *good = *total = 0;
    if (r) {
        ms_acc_entry a;
        int k;
        while ((k = ms_acclog_next(r, &a, e)) == 1) {
            int created;
            if (!emap_get(&seen, a.qsl_idx, 1, &created)) {
                rc = ms_err_oom(e);
                break;
            }
            if (!created)
                continue; /* each qsl_idx scored once, like the accuracy scripts */
            (*total)++;
            ent *x = emap_get(&m, a.qsl_idx, 0, NULL);
            unsigned char d[16];
            md5(a.data, a.data_len, d);
            *good += x && x->ref_len == a.data_len && !memcmp(d, x->ref_md5, 16);
        }
        if (k < 0 && rc == MS_OK)
            rc = e->code;
        ms_acclog_close(r);
    } else if (rc == MS_OK) {
        rc = e->code;
    }
    emap_free(&m);
    emap_free(&seen);
    return rc;
}

int au_score_log(au_scorer sc, const char *data_dir, const char *ref_log, const char *log, char **text,
                 double *metric, ms_err *e)
{
    size_t good = 0, total = 0;
    int rc;
    *text = NULL;
    if (sc == AU_SCORER_DIGITS) {
        digits_dataset ds;
        char *dir = digits_find_dir(data_dir, e);
        if (!dir)
            return e && e->code ? e->code : MS_EINPUT;
        rc = digits_load_dir(dir, &ds, e);
        free(dir);
        if (rc != MS_OK)
            return rc;
        digits_score s;
        rc = digits_score_log(log, &ds, &s, e);
        digits_dataset_free(&ds);
        good = s.good;
        total = s.total;
    } else if (sc == AU_SCORER_BYTES) {
        rc = score_bytes(ref_log, log, &good, &total, e);
    } else {
        return ms_err_set(e, MS_EUSAGE, "no accuracy scorer chosen");
    }
    if (rc != MS_OK)
        return rc;
    ms_buf b = MS_BUF_INIT;
    double pct = total ? 100.0 * (double)good / (double)total : 0.0;
    if (ms_buf_printf(&b, "accuracy=%.3f%%, good=%zu, total=%zu\n", pct, good, total) != 0)
        return ms_err_oom(e);
    /* the value as printed, which is what the checker reads back */
    *metric = strtod(b.data + strlen("accuracy="), NULL);
    *text = ms_buf_steal(&b);
    return MS_OK;
}

static int hex_put(FILE *f, const unsigned char *d, size_t n)
{
    static const char hx[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++)
        if (fputc(hx[d[i] >> 4], f) == EOF || fputc(hx[d[i] & 15], f) == EOF)
            return -1;
    return 0;
}

/* mlperf_log_accuracy_baseline.json: every reference record whose qsl_idx the compliance log
 * holds, in reference order (create_accuracy_baseline.sh). */
static int write_baseline(const char *ref_log, const char *test_log, const char *path, ms_err *e)
{
    emap s = {0};
    ms_acclog *r = ms_acclog_open(test_log, 0, e);
    if (!r)
        return e->code;
    ms_acc_entry a;
    int rc;
    while ((rc = ms_acclog_next(r, &a, e)) == 1)
        if (!emap_get(&s, a.qsl_idx, 1, NULL)) {
            ms_acclog_close(r);
            emap_free(&s);
            return ms_err_oom(e);
        }
    ms_acclog_close(r);
    if (rc < 0) {
        emap_free(&s);
        return e->code;
    }
    ms_afile af;
    if (ms_afile_open(&af, path, e) != MS_OK) {
        emap_free(&s);
        return e->code;
    }
    r = ms_acclog_open(ref_log, MS_ACCLOG_KEEP_HEX, e);
    if (!r) {
        ms_afile_abort(&af);
        emap_free(&s);
        return e->code;
    }
    int first = 1, io = fputs("[\n", af.fp) == EOF;
    while (!io && (rc = ms_acclog_next(r, &a, e)) == 1) {
        if (!emap_get(&s, a.qsl_idx, 0, NULL))
            continue;
        io |= fprintf(af.fp, "%s{ \"seq_id\" : %llu, \"qsl_idx\" : %llu, \"data\" : \"%s\"", first ? "" : ",\n",
                      (unsigned long long)a.seq_id, (unsigned long long)a.qsl_idx, a.data_hex) < 0;
        if (a.has_token_data) {
            io |= fputs(", \"token_data\" : \"", af.fp) == EOF;
            io |= hex_put(af.fp, a.token_data, a.token_data_len) != 0 || fputc('"', af.fp) == EOF;
        }
        if (a.has_token_count)
            io |= fprintf(af.fp, ", \"token_count\" : %lld", (long long)a.token_count) < 0;
        io |= fputs(" }", af.fp) == EOF;
        first = 0;
    }
    ms_acclog_close(r);
    emap_free(&s);
    if (rc < 0) {
        ms_afile_abort(&af);
        return e->code;
    }
    io |= fputs(first ? "]\n" : "\n]\n", af.fp) == EOF;
    if (io) {
        ms_afile_abort(&af);
        return ms_err_set(e, MS_ERUNTIME, "%s: write failed", path);
    }
    return ms_afile_commit(&af, e);
}

int au_test01_fallback(const char *ref_log, const char *test_log, au_fallback *f, ms_err *e)
{
    f->pass = 0;
    f->baseline = f->compliance = f->delta_pct = 0;
    int lrc = ms_lazy_crypto_load("the TEST01 accuracy comparison", e);
    if (lrc != MS_OK)
        return lrc;
    char *bpath = au_path3(f->work_dir, "mlperf_log_accuracy_baseline.json", NULL);
    if (!bpath)
        return ms_err_oom(e);
    int rc = write_baseline(ref_log, test_log, bpath, e);
    if (rc == MS_OK)
        rc = au_score_log(f->scorer, f->data_dir, ref_log, bpath, &f->baseline_text, &f->baseline, e);
    if (rc == MS_OK)
        rc = au_score_log(f->scorer, f->data_dir, ref_log, test_log, &f->compliance_text, &f->compliance, e);
    free(bpath);
    if (rc != MS_OK)
        return rc;
    if (f->baseline != 0 && f->compliance != 0) {
        f->delta_pct = fabs(1.0 - f->baseline / f->compliance) * 100.0;
        f->pass = f->delta_pct <= f->allowed_pct;
    } else {
        f->delta_pct = INFINITY;
    }
    return MS_OK;
}

void au_fallback_free(au_fallback *f)
{
    free(f->baseline_text);
    free(f->compliance_text);
    f->baseline_text = f->compliance_text = NULL;
}
