/* mlsubmit truncate: truncate_accuracy_log.py (truncate_accuracy_log.py) with a verifiable record.
 *
 * For every accuracy log of the tree (split layout: results/.../<scenario>/accuracy and, in
 * closed/network, compliance/.../<scenario>/TEST01/accuracy; unified layout: results/.../
 * <scenario>/accuracy and TEST01, TEST07, TEST09 accuracy directories) that is not done yet:
 * the full log is copied to the backup directory (same relative path), hash=<sha256> is
 * appended to accuracy.txt (TEST07/TEST09 of the unified layout: accuracy.txt holds only that
 * line), and a log of 4,096 bytes or more is replaced by its first 4,096 characters,
 * "\n\n...\n\n" and its last 4,096 bytes. Every file is written to a temporary file and renamed.
 *
 * Unlike upstream, each truncation is recorded in <backup>/mlsubmit-truncation.json: the log's
 * path, the full log's SHA-256 and size, the truncated log's SHA-256 and size. `--verify` then
 * proves that the tree's log is exactly the truncation of the kept full log and that
 * accuracy.txt names it; upstream's hash line alone can never be checked against anything. */
#include "report/report.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/lazy_sqlite.h"

#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/pytext.h"
#include "report/internal.h"

#define KEEP 4096
#define DONE_LIMIT 10240

typedef struct trec {
    char *path; /* relative to the root */
    char full_sha[65];
    uint64_t full_size;
    char trunc_sha[65];
    uint64_t trunc_size;
} trec;

typedef struct tctx {
    const rp_truncate_opts *o;
    rp_truncate_stats *st;
    int unified;
    ms_pyre hash_re;
    trec *recs;
    size_t nrec, cap;
    ms_buf line;
} tctx;

#define tnote(c, ...) rp_notef((c)->o->note, (c)->o->ctx, &(c)->line, __VA_ARGS__)


static trec *rec_find(tctx *c, const char *path)
{
    for (size_t i = 0; i < c->nrec; i++)
        if (!strcmp(c->recs[i].path, path))
            return &c->recs[i];
    return NULL;
}

static trec *rec_put(tctx *c, const char *path, ms_err *e)
{
    trec *r = rec_find(c, path);
    if (r)
        return r;
    if (MS_GROW(c->recs, c->cap, c->nrec + 1, 32)) {
        ms_err_oom(e);
        return NULL;
    }
    r = &c->recs[c->nrec];
    memset(r, 0, sizeof *r);
    if (!(r->path = strdup(path))) {
        ms_err_oom(e);
        return NULL;
    }
    c->nrec++;
    return r;
}

/* The truncated form of a log (truncate_accuracy_log.py): the first 4,096 characters (UTF-8 code
 * points; bytes for invalid UTF-8), "\n\n...\n\n", the last 4,096 bytes. */
static int truncated_form(const char *data, size_t len, ms_buf *out)
{
    size_t i = 0, chars = 0;
    while (i < len && chars < KEEP) {
        unsigned char ch = (unsigned char)data[i];
        size_t l = ch < 0x80 ? 1 : (ch & 0xE0) == 0xC0 ? 2 : (ch & 0xF0) == 0xE0 ? 3 : (ch & 0xF8) == 0xF0 ? 4 : 1;
        if (i + l > len)
            l = 1;
        i += l;
        chars++;
    }
    if (ms_buf_append(out, data, i) || ms_buf_puts(out, "\n\n...\n\n") ||
        ms_buf_append(out, data + len - KEEP, KEEP))
        return -1;
    return 0;
}

/* hash= lines of accuracy.txt (truncate_accuracy_log.py's regex, re.match, universal newlines):
 * *first gets a malloc'd copy of the first one's value (NULL if none); *has_want is set when one
 * of them equals want (may be NULL). */
static int find_hash(tctx *c, const char *text, size_t len, const char *want, char **first, int *has_want,
                     ms_err *e)
{
    *first = NULL;
    if (has_want)
        *has_want = 0;
    ms_lines it;
    ms_lines_init(&it, text, len);
    const char *l;
    size_t n;
    int nl;
    char *scratch = NULL;
    size_t scap = 0;
    while (ms_lines_next(&it, &l, &n, &nl)) {
        const char *g;
        size_t gl;
        int m = ms_pyre_match_line(&c->hash_re, l, n, nl, &scratch, &scap, &g, &gl, e);
        if (m < 0) {
            free(scratch);
            free(*first);
            *first = NULL;
            return MS_ERUNTIME;
        }
        if (m != 1)
            continue;
        if (!*first && !(*first = g ? strndup(g, gl) : strdup(""))) {
            free(scratch);
            return ms_err_oom(e);
        }
        if (want && has_want && g && gl == strlen(want) && !memcmp(g, want, gl))
            *has_want = 1;
    }
    free(scratch);
    return 0;
}

static int write_copy(const char *path, const char *data, size_t len, ms_err *e)
{
    char *dir = strdup(path);
    if (!dir)
        return ms_err_oom(e);
    char *s = strrchr(dir, '/');
    int rc = 0;
    if (s) {
        *s = 0;
        rc = ms_mkdir_p(dir, e);
    }
    free(dir);
    return rc ? rc : ms_write_file_atomic(path, data, len, e);
}

/* One accuracy directory. rel: path of the directory relative to the root. */
static int truncate_dir(tctx *c, const char *rel, int is_results, int fresh_txt, ms_err *e)
{
    const rp_truncate_opts *o = c->o;
    char *dir = rp_fmt("%s/%s", o->root, rel);
    char *logp = rp_fmt("%s/mlperf_log_accuracy.json", dir);
    char *txtp = rp_fmt("%s/accuracy.txt", dir);
    char *lrel = rp_fmt("%s/mlperf_log_accuracy.json", rel);
    char *bakp = rp_fmt("%s/%s", o->backup, lrel ? lrel : "");
    char *log = NULL, *txt = NULL, *hash = NULL;
    size_t loglen = 0, txtlen = 0;
    ms_buf nt = MS_BUF_INIT, tr = MS_BUF_INIT;
    int rc = 0;
    if (!dir || !logp || !txtp || !lrel || !bakp) {
        rc = ms_err_oom(e);
        goto out;
    }
    if (!ms_is_regular_file(logp)) {
        tnote(c, "error: %s: no mlperf_log_accuracy.json; skipped", rel);
        c->st->errors++;
        goto out;
    }
    int has_txt = ms_is_regular_file(txtp);
    if (!has_txt && is_results) {
        tnote(c, "error: %s: no accuracy.txt; skipped", rel);
        c->st->errors++;
        goto out;
    }
    ms_err le;
    if (has_txt && ms_read_file(txtp, 64u << 20, &txt, &txtlen, &le)) {
        tnote(c, "error: %s; skipped", le.msg);
        c->st->errors++;
        goto out;
    }
    if (ms_read_file(logp, 0, &log, &loglen, &le)) {
        tnote(c, "error: %s; skipped", le.msg);
        c->st->errors++;
        goto out;
    }
    char full_sha[MS_HASH_HEX_MAX];
    if ((rc = ms_hash_mem("sha256", log, loglen, full_sha, e)))
        goto out;
    int named = 0;
    if (txt && (rc = find_hash(c, txt, txtlen, full_sha, &hash, &named, e)))
        goto out;
    if (hash && loglen < DONE_LIMIT) {
        /* already done; rebuild a lost record from the backup when there is one */
        c->st->already++;
        if (!rec_find(c, lrel) && ms_is_regular_file(bakp)) {
            char bsha[MS_HASH_HEX_MAX];
            unsigned long long bsize = 0;
            int named_b = 0;
            char *first_b = NULL;
            if (ms_hash_file("sha256", bakp, bsha, &bsize, &le) == 0 && txt &&
                find_hash(c, txt, txtlen, bsha, &first_b, &named_b, &le) == 0 && named_b) {
                free(first_b);
                trec *r = rec_put(c, lrel, e);
                if (!r) {
                    rc = MS_ERUNTIME;
                    goto out;
                }
                memcpy(r->full_sha, bsha, 65);
                r->full_size = bsize;
                memcpy(r->trunc_sha, full_sha, 65);
                r->trunc_size = loglen;
                tnote(c, "done already: %s (record rebuilt from the backup)", lrel);
                goto out;
            }
            free(first_b);
        }
        tnote(c, "done already: %s", lrel);
        goto out;
    }
    if (o->dry_run) {
        tnote(c, "would truncate %s (%zu bytes)", lrel, loglen);
        c->st->truncated++;
        goto out;
    }
    /* 4. the backup (an identical one left by an interrupted run is reused) */
    if (ms_path_exists(bakp)) {
        char bsha[MS_HASH_HEX_MAX];
        unsigned long long bsize = 0;
        if (ms_hash_file("sha256", bakp, bsha, &bsize, &le) || strcmp(bsha, full_sha)) {
            tnote(c, "error: %s: the backup %s already exists and differs; skipped", lrel, bakp);
            c->st->errors++;
            goto out;
        }
    } else if ((rc = write_copy(bakp, log, loglen, e))) {
        goto out;
    }
    /* 5. hash line */
    if (fresh_txt) {
        rc = ms_buf_printf(&nt, "hash=%s\n", full_sha) ? ms_err_oom(e) : 0;
    } else if (!named) {
        if ((txt && ms_buf_append(&nt, txt, txtlen)) || ms_buf_printf(&nt, "\nhash=%s\n", full_sha))
            rc = ms_err_oom(e);
    }
    if (!rc && nt.len && (rc = ms_write_file_atomic(txtp, nt.data, nt.len, e)))
        goto out;
    if (rc)
        goto out;
    /* 6. the truncated log */
    const char *final = log;
    size_t final_len = loglen;
    if (loglen >= KEEP) {
        if (truncated_form(log, loglen, &tr)) {
            rc = ms_err_oom(e);
            goto out;
        }
        if ((rc = ms_write_file_atomic(logp, tr.data, tr.len, e)))
            goto out;
        final = tr.data;
        final_len = tr.len;
    }
    trec *r = rec_put(c, lrel, e);
    if (!r) {
        rc = MS_ERUNTIME;
        goto out;
    }
    memcpy(r->full_sha, full_sha, 65);
    r->full_size = loglen;
    r->trunc_size = final_len;
    if ((rc = ms_hash_mem("sha256", final, final_len, r->trunc_sha, e)))
        goto out;
    c->st->truncated++;
    tnote(c, "truncated %s: %zu -> %zu bytes, hash=%s", lrel, loglen, final_len, full_sha);
out:
    free(dir);
    free(logp);
    free(txtp);
    free(lrel);
    free(bakp);
    free(log);
    free(txt);
    free(hash);
    ms_buf_free(&nt);
    ms_buf_free(&tr);
    return rc;
}

static int skipped_scenario(const rp_truncate_opts *o, const char *scen)
{
    for (size_t i = 0; i < o->nskip; i++)
        if (!strcmp(o->scenarios_to_skip[i], scen))
            return 1;
    return 0;
}

typedef int (*dir_fn)(tctx *c, const char *rel, int is_results, int fresh_txt, ms_err *e);

/* Visits every accuracy directory of the tree. */
static int visit(tctx *c, dir_fn fn, ms_err *e)
{
    const rp_truncate_opts *o = c->o;
    static const char *const divisions[] = {"closed", "network", "open"};
    int rc = 0;
    for (size_t d = 0; d < 3 && !rc; d++) {
        char *dp = rp_fmt("%s/%s", o->root, divisions[d]);
        char **subs;
        size_t nsub;
        if (!dp)
            return ms_err_oom(e);
        rc = rp_list(dp, 1, &subs, &nsub, e);
        free(dp);
        for (size_t s = 0; s < nsub && !rc; s++) {
            if (o->submitter && strcmp(o->submitter, subs[s]))
                continue;
            int closed_net = strcmp(divisions[d], "open") != 0;
            for (int tree = 0; tree < (c->unified ? 1 : 2) && !rc; tree++) {
                if (tree == 1 && !closed_net)
                    continue;
                const char *tname = tree ? "compliance" : "results";
                char *tp = rp_fmt("%s/%s/%s/%s", o->root, divisions[d], subs[s], tname);
                char **sys;
                size_t nsys;
                if ((rc = rp_list(tp, 1, &sys, &nsys, e))) {
                    free(tp);
                    break;
                }
                for (size_t y = 0; y < nsys && !rc; y++) {
                    char *yp = rp_fmt("%s/%s", tp, sys[y]);
                    char **mod;
                    size_t nmod;
                    if ((rc = rp_list(yp, 1, &mod, &nmod, e))) {
                        free(yp);
                        break;
                    }
                    for (size_t m = 0; m < nmod && !rc; m++) {
                        char *mp = rp_fmt("%s/%s", yp, mod[m]);
                        char **scen;
                        size_t nscen;
                        if ((rc = rp_list(mp, 1, &scen, &nscen, e))) {
                            free(mp);
                            break;
                        }
                        for (size_t k = 0; k < nscen && !rc; k++) {
                            if (skipped_scenario(o, scen[k]))
                                continue;
                            char *base = rp_fmt("%s/%s/%s/%s/%s/%s", divisions[d], subs[s], tname,
                                                sys[y], mod[m], scen[k]);
                            if (!base) {
                                rc = ms_err_oom(e);
                                break;
                            }
                            char *abs = rp_fmt("%s/%s", o->root, base);
                            int endpoints = 0;
                            if (abs && c->unified) {
                                char *y1 = rp_fmt("%s/config.yaml", abs), *y2 = rp_fmt("%s/config.yml", abs);
                                char *al = rp_fmt("%s/accuracy/mlperf_log_accuracy.json", abs);
                                endpoints = y1 && y2 && al && (ms_path_exists(y1) || ms_path_exists(y2)) &&
                                            !ms_path_exists(al);
                                free(y1);
                                free(y2);
                                free(al);
                            }
                            const char *subdirs_split_res[] = {"accuracy", NULL};
                            const char *subdirs_split_comp[] = {"TEST01/accuracy", NULL};
                            const char *subdirs_uni[] = {"accuracy", "TEST01/accuracy", "TEST07/accuracy",
                                                         "TEST09/accuracy", NULL};
                            const char *const *subdirs = c->unified ? subdirs_uni
                                                                    : tree ? subdirs_split_comp : subdirs_split_res;
                            for (size_t q = 0; subdirs[q] && !rc && !endpoints; q++) {
                                char *rel = rp_fmt("%s/%s", base, subdirs[q]);
                                char *ap = rp_fmt("%s/%s", o->root, rel ? rel : "");
                                if (!rel || !ap)
                                    rc = ms_err_oom(e);
                                else if (q == 0 && !tree)
                                    rc = fn(c, rel, 1, 0, e); /* results: always */
                                else if (rp_is_dir_nofollow(ap))
                                    rc = fn(c, rel, 0, c->unified && (q == 2 || q == 3), e);
                                free(rel);
                                free(ap);
                            }
                            free(abs);
                            free(base);
                        }
                        rp_list_free(scen, nscen);
                        free(mp);
                    }
                    rp_list_free(mod, nmod);
                    free(yp);
                }
                rp_list_free(sys, nsys);
                free(tp);
            }
        }
        rp_list_free(subs, nsub);
    }
    return rc;
}

/* ------------------------------------------------------------ manifest ---- */

static int manifest_load(tctx *c, const char *path, ms_err *e)
{
    if (!ms_path_exists(path))
        return 0;
    json_t *j = rp_json_load(path, e);
    if (!j)
        return MS_EINPUT;
    const char *fmt = json_string_value(json_object_get(j, "format"));
    json_t *recs = json_object_get(j, "records");
    if (!fmt || strcmp(fmt, "mlsubmit-truncation") || !json_is_array(recs)) {
        json_decref(j);
        return ms_err_set(e, MS_EINPUT, "%s: expected {\"format\": \"mlsubmit-truncation\", \"records\": [...]}", path);
    }
    size_t i;
    json_t *r;
    json_array_foreach(recs, i, r) {
        const char *p = json_string_value(json_object_get(r, "path"));
        const char *fs = json_string_value(json_object_get(r, "full_sha256"));
        const char *ts = json_string_value(json_object_get(r, "truncated_sha256"));
        json_t *fz = json_object_get(r, "full_size"), *tz = json_object_get(r, "truncated_size");
        if (!p || !fs || !ts || strlen(fs) != 64 || strlen(ts) != 64 || !json_is_integer(fz) ||
            !json_is_integer(tz)) {
            json_decref(j);
            return ms_err_set(e, MS_EINPUT, "%s: records[%zu]: expected path, full_sha256, full_size, "
                                            "truncated_sha256, truncated_size", path, i);
        }
        trec *t = rec_put(c, p, e);
        if (!t) {
            json_decref(j);
            return MS_ERUNTIME;
        }
        memcpy(t->full_sha, fs, 65);
        memcpy(t->trunc_sha, ts, 65);
        t->full_size = (uint64_t)json_integer_value(fz);
        t->trunc_size = (uint64_t)json_integer_value(tz);
    }
    json_decref(j);
    return 0;
}

static int cmp_rec(const void *a, const void *b)
{
    return strcmp(((const trec *)a)->path, ((const trec *)b)->path);
}

static int manifest_save(tctx *c, const char *path, ms_err *e)
{
    qsort(c->recs, c->nrec, sizeof *c->recs, cmp_rec);
    ms_buf b = MS_BUF_INIT;
    int bad = ms_buf_puts(&b, "{\n  \"format\": \"mlsubmit-truncation\",\n  \"version\": 1,\n  \"records\": [");
    for (size_t i = 0; i < c->nrec && !bad; i++) {
        trec *r = &c->recs[i];
        bad |= ms_buf_puts(&b, i ? ",\n    {\"path\": " : "\n    {\"path\": ");
        bad |= rp_json_str(&b, r->path);
        bad |= ms_buf_printf(&b, ", \"full_sha256\": \"%s\", \"full_size\": %llu, \"truncated_sha256\": \"%s\", "
                                 "\"truncated_size\": %llu}",
                             r->full_sha, (unsigned long long)r->full_size, r->trunc_sha,
                             (unsigned long long)r->trunc_size);
    }
    bad |= ms_buf_puts(&b, c->nrec ? "\n  ]\n}\n" : "]\n}\n");
    int rc = bad ? ms_err_oom(e) : write_copy(path, b.data, b.len, e);
    ms_buf_free(&b);
    return rc;
}

static void tctx_free(tctx *c)
{
    for (size_t i = 0; i < c->nrec; i++)
        free(c->recs[i].path);
    free(c->recs);
    ms_pyre_free(&c->hash_re);
    ms_buf_free(&c->line);
}

static int tctx_init(tctx *c, const rp_truncate_opts *o, rp_truncate_stats *st, ms_err *e)
{
    memset(c, 0, sizeof *c);
    memset(st, 0, sizeof *st);
    c->o = o;
    c->st = st;
    if (!o->backup)
        return ms_err_set(e, MS_EUSAGE, "a backup directory is required");
    if (!rp_is_dir_nofollow(o->root))
        return ms_err_root(e, o->root, 0, 1);
    return ms_pyre_compile(&c->hash_re, "^hash=([\\w\\d]+)$", e);
}

static int detect_unified(const rp_truncate_opts *o, const char *version, ms_err *e, int *unified)
{
    ru_round r;
    int rc = ru_round_load(&r, NULL, version, e);
    if (rc)
        return rc;
    *unified = r.unified;
    ru_round_free(&r);
    return 0;
}

int rp_truncate(const rp_truncate_opts *o, rp_truncate_stats *st, ms_err *e)
{
    tctx c;
    int rc = tctx_init(&c, o, st, e);
    if (!rc)
        rc = detect_unified(o, o->version, e, &c.unified);
    char *man = rc ? NULL : rp_fmt("%s/%s", o->backup, RP_TRUNCATE_MANIFEST);
    if (!rc && !man)
        rc = ms_err_oom(e);
    if (!rc)
        rc = manifest_load(&c, man, e);
    size_t before = c.nrec;
    int vrc = rc ? rc : visit(&c, truncate_dir, e);
    /* the records made so far are kept even when a later step failed */
    if (!rc && !o->dry_run && (c.nrec != before || st->truncated)) {
        ms_err e2;
        int mrc = manifest_save(&c, man, vrc ? &e2 : e);
        if (!vrc)
            vrc = mrc;
    }
    if (!rc && !o->dry_run && st->truncated)
        tnote(&c, "records: %s", man);
    free(man);
    tctx_free(&c);
    return rc ? rc : vrc;
}

/* ------------------------------------------------------------- verify ---- */

static int db_records(tctx *c, const char *db, ms_err *e)
{
    sqlite3 *h = NULL;
    if (ms_lazy_sqlite_load("mlsubmit truncate --db", e))
        return MS_ERUNTIME;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = ms_err_set(e, MS_EINPUT, "%s: cannot open the index: %s", db, h ? sqlite3_errmsg(h) : "?");
        sqlite3_close(h);
        return rc;
    }
    sqlite3_stmt *st = NULL;
    /* an index of several rounds: the records of this tree's round (--version, else the round
     * detected from the tree, as index does); one round, or schema 1 (no round column): all */
    char *round = NULL;
    if (c->o->version)
        round = strdup(c->o->version);
    else {
        ms_err de;
        ms_err_clear(&de);
        char *data = ru_data_dir(NULL, NULL, &de), *why = NULL;
        if (data && ck_detect_round(c->o->root, data, &round, &why, &de)) {
            free(round);
            round = NULL;
        }
        free(why);
        free(data);
    }
    if (sqlite3_prepare_v2(h, "SELECT path, full_sha256, full_size, truncated_sha256, truncated_size FROM truncations "
                              "WHERE (SELECT count(*) FROM rounds) <= 1 OR round IS ?1",
                           -1, &st, NULL) == SQLITE_OK)
        sqlite3_bind_text(st, 1, round, -1, SQLITE_TRANSIENT);
    else if (sqlite3_prepare_v2(h, "SELECT path, full_sha256, full_size, truncated_sha256, truncated_size "
                                   "FROM truncations", -1, &st, NULL) != SQLITE_OK) {
        free(round);
        int rc = ms_err_set(e, MS_EINPUT, "%s: not an mlsubmit index with a truncations table: %s", db,
                            sqlite3_errmsg(h));
        sqlite3_close(h);
        return rc;
    }
    free(round);
    int rc = 0;
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        const char *p = (const char *)sqlite3_column_text(st, 0);
        const char *fs = (const char *)sqlite3_column_text(st, 1);
        const char *ts = (const char *)sqlite3_column_text(st, 3);
        if (!p || !fs || !ts || strlen(fs) != 64 || strlen(ts) != 64) {
            rc = ms_err_set(e, MS_EINPUT, "%s: truncations: malformed row", db);
            break;
        }
        trec *r = rec_put(c, p, e);
        if (!r) {
            rc = MS_ERUNTIME;
            break;
        }
        memcpy(r->full_sha, fs, 65);
        memcpy(r->trunc_sha, ts, 65);
        r->full_size = (uint64_t)sqlite3_column_int64(st, 2);
        r->trunc_size = (uint64_t)sqlite3_column_int64(st, 4);
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rc;
}

static int verify_one(tctx *c, const trec *r, ms_err *e)
{
    const rp_truncate_opts *o = c->o;
    char *bak = rp_fmt("%s/%s", o->backup, r->path), *cur = rp_fmt("%s/%s", o->root, r->path);
    char *txtp = cur ? strdup(cur) : NULL;
    char *bdata = NULL, *cdata = NULL, *txt = NULL, *hash = NULL;
    size_t blen = 0, clen = 0, tlen = 0;
    ms_buf tr = MS_BUF_INIT;
    ms_err le;
    int rc = 0;
    char problem[2048] = "";
    if (!bak || !cur || !txtp) {
        rc = ms_err_oom(e);
        goto out;
    }
    char *slash = strrchr(txtp, '/');
    strcpy(slash + 1, "accuracy.txt");
    if (ms_read_file(bak, 0, &bdata, &blen, &le)) {
        snprintf(problem, sizeof problem, "the full log is missing from the backup (%s)", le.msg);
        goto done;
    }
    char sha[MS_HASH_HEX_MAX];
    if ((rc = ms_hash_mem("sha256", bdata, blen, sha, e)))
        goto out;
    if (blen != r->full_size || strcmp(sha, r->full_sha)) {
        snprintf(problem, sizeof problem, "the backup is %zu bytes, sha256 %s; the record says %llu bytes, %s",
                 blen, sha, (unsigned long long)r->full_size, r->full_sha);
        goto done;
    }
    if (ms_read_file(cur, 0, &cdata, &clen, &le)) {
        snprintf(problem, sizeof problem, "the truncated log is missing (%s)", le.msg);
        goto done;
    }
    const char *expect = bdata;
    size_t elen = blen;
    if (blen >= KEEP) {
        if (truncated_form(bdata, blen, &tr)) {
            rc = ms_err_oom(e);
            goto out;
        }
        expect = tr.data;
        elen = tr.len;
    }
    if (clen != elen || memcmp(cdata, expect, clen)) {
        snprintf(problem, sizeof problem, "the log in the tree (%zu bytes) is not the truncation of the backup "
                                          "(%zu bytes expected)", clen, elen);
        goto done;
    }
    if ((rc = ms_hash_mem("sha256", cdata, clen, sha, e)))
        goto out;
    if (strcmp(sha, r->trunc_sha) || clen != r->trunc_size) {
        snprintf(problem, sizeof problem, "the truncated log's sha256 %s differs from the record's %s", sha,
                 r->trunc_sha);
        goto done;
    }
    if (ms_read_file(txtp, 64u << 20, &txt, &tlen, &le)) {
        snprintf(problem, sizeof problem, "%s", le.msg);
        goto done;
    }
    int named = 0;
    if ((rc = find_hash(c, txt, tlen, r->full_sha, &hash, &named, e)))
        goto out;
    if (!named)
        snprintf(problem, sizeof problem, "accuracy.txt has %s%s; expected hash=%s", hash ? "hash=" : "no hash line",
                 hash ? hash : "", r->full_sha);
done:
    if (problem[0]) {
        c->st->mismatches++;
        tnote(c, "MISMATCH %s: %s", r->path, problem);
    } else {
        c->st->verified++;
        tnote(c, "OK       %s (%llu bytes, sha256 %s)", r->path, (unsigned long long)r->full_size, r->full_sha);
    }
out:
    free(bak);
    free(cur);
    free(txtp);
    free(bdata);
    free(cdata);
    free(txt);
    free(hash);
    ms_buf_free(&tr);
    return rc;
}

/* Accuracy logs of the tree still too large to be truncated, without a record. */
static int untruncated(tctx *c, const char *rel, int is_results, int fresh, ms_err *e)
{
    char *lrel = rp_fmt("%s/mlperf_log_accuracy.json", rel);
    char *p = lrel ? rp_fmt("%s/%s", c->o->root, lrel) : NULL;
    if (!lrel || !p) {
        free(lrel);
        return ms_err_oom(e);
    }
    struct stat sb;
    if (!rec_find(c, lrel) && lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= DONE_LIMIT) {
        c->st->mismatches++;
        tnote(c, "MISMATCH %s: %lld bytes and no truncation record (not truncated)", lrel, (long long)sb.st_size);
    }
    free(lrel);
    free(p);
    return 0;
}

int rp_truncate_verify(const rp_truncate_opts *o, const char *records_db, rp_truncate_stats *st,
                       ms_err *e)
{
    tctx c;
    int rc = tctx_init(&c, o, st, e);
    if (!rc)
        rc = detect_unified(o, o->version, e, &c.unified);
    if (!rc) {
        if (records_db) {
            rc = db_records(&c, records_db, e);
        } else {
            char *man = rp_fmt("%s/%s", o->backup, RP_TRUNCATE_MANIFEST);
            if (!man)
                rc = ms_err_oom(e);
            else if (!ms_is_regular_file(man))
                rc = ms_err_set(e, MS_EINPUT, "%s: no truncation records (was the tree truncated with this backup?)",
                                man);
            else
                rc = manifest_load(&c, man, e);
            free(man);
        }
    }
    if (!rc) {
        qsort(c.recs, c.nrec, sizeof *c.recs, cmp_rec);
        for (size_t i = 0; i < c.nrec && !rc; i++)
            rc = verify_one(&c, &c.recs[i], e);
    }
    if (!rc)
        rc = visit(&c, untruncated, e);
    tctx_free(&c);
    return rc;
}
