/* mlsubmit index: every file and every result of a submission tree in one SQLite database
 * (docs/index-schema.md).
 *
 * 1. The tree is listed with the dataset walk (ms_ds_walk: never follows a symbolic link, so
 *    nothing outside ROOT is read; links are recorded as links) and every entry lstat'ed.
 * 2. Incremental: an existing database is read; files whose size and mtime are unchanged keep
 *    their SHA-256; if nothing changed at all (same files, sizes, mtimes and options) the
 *    database is left as it is: an unchanged tree is only re-stat'ed.
 * 3. The other files are hashed in parallel (ms_ds_hash_jobs: a pthread pool, OpenSSL).
 * 4. The checker runs (its summary.csv rows become `results`, its findings `findings`), the
 *    system descriptions and the detail logs are parsed (`systems`, `runs`; unchanged logs keep
 *    their rows).
 * 5. A new database is written in one transaction into a temporary file in the same directory,
 *    then renamed over the old one: readers see the old or the new index, never a mix, and an
 *    interrupted run leaves the old index intact. */
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/treehash.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "common/mllog.h"
#include "common/progress.h"
#include "report/internal.h"

#define SCHEMA_VERSION 2
#ifndef MLSUBMIT_VERSION
#define MLSUBMIT_VERSION "0.0.0"
#endif

#define CSV_COLUMNS rp_csv_columns
#define NCSV RP_NCSV

static const char SCHEMA[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;\n"
    "CREATE TABLE files(path TEXT NOT NULL, type TEXT NOT NULL, size INTEGER NOT NULL,\n"
    "  mtime_ns INTEGER, mode INTEGER NOT NULL, sha256 TEXT, link_target TEXT,\n"
    "  division TEXT, submitter TEXT, round TEXT NOT NULL, PRIMARY KEY(round, path)) WITHOUT ROWID;\n"
    "CREATE TABLE systems(division TEXT NOT NULL, submitter TEXT NOT NULL, system TEXT NOT NULL,\n"
    "  path TEXT NOT NULL, system_name TEXT, status TEXT, system_type TEXT, number_of_nodes TEXT,\n"
    "  host_processor_model_name TEXT, host_processors_per_node TEXT, host_processor_core_count TEXT,\n"
    "  accelerator_model_name TEXT, accelerators_per_node TEXT, framework TEXT, operating_system TEXT,\n"
    "  json TEXT, error TEXT, round TEXT NOT NULL, PRIMARY KEY(round, division, submitter, system));\n"
    "CREATE TABLE findings(id INTEGER PRIMARY KEY, check_id TEXT NOT NULL, severity TEXT NOT NULL,\n"
    "  counts INTEGER NOT NULL, waived INTEGER NOT NULL, title TEXT, file TEXT, line INTEGER,\n"
    "  pointer TEXT, expected TEXT, found TEXT, message TEXT, hint TEXT, division TEXT,\n"
    "  submitter TEXT, system TEXT, benchmark TEXT, scenario TEXT, round TEXT NOT NULL);\n"
    "CREATE TABLE runs(path TEXT NOT NULL, division TEXT, submitter TEXT, system TEXT, model TEXT,\n"
    "  scenario TEXT, kind TEXT, loadgen_version TEXT, test_datetime TEXT, sut_name TEXT,\n"
    "  scenario_logged TEXT, test_mode TEXT, result_validity TEXT, qps REAL, latency_min_ns INTEGER,\n"
    "  latency_mean_ns INTEGER, latency_max_ns INTEGER, p50_ns INTEGER, p90_ns INTEGER, p95_ns INTEGER,\n"
    "  p97_ns INTEGER, p99_ns INTEGER, p999_ns INTEGER, early_stopping_ns INTEGER, samples INTEGER,\n"
    "  errors INTEGER, warnings INTEGER, parse_error TEXT, result_json TEXT, round TEXT NOT NULL,\n"
    "  PRIMARY KEY(round, path)) WITHOUT ROWID;\n"
    "CREATE TABLE truncations(path TEXT NOT NULL, full_sha256 TEXT NOT NULL, full_size INTEGER NOT NULL,\n"
    "  truncated_sha256 TEXT NOT NULL, truncated_size INTEGER NOT NULL, round TEXT NOT NULL,\n"
    "  PRIMARY KEY(round, path)) WITHOUT ROWID;\n"
    "CREATE TABLE rounds(round TEXT PRIMARY KEY, root TEXT, options TEXT, rules_name TEXT, rules_version TEXT,\n"
    "  profile TEXT, verdict TEXT, check_exit_code INTEGER, check_errors INTEGER, check_warnings INTEGER,\n"
    "  indexed_at TEXT) WITHOUT ROWID;\n"
    "CREATE INDEX files_sub ON files(division, submitter);\n"
    "CREATE INDEX findings_id ON findings(check_id);\n";

int rp_db_exec(sqlite3 *db, const char *sql, const char *what, ms_err *e)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = ms_err_set(e, MS_ERUNTIME, "%s: %s", what, msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return rc;
    }
    return 0;
}

int rp_db_schema(sqlite3 *db, ms_err *e)
{
    ms_buf b = MS_BUF_INIT;
    int bad = ms_buf_puts(&b, SCHEMA);
    bad |= ms_buf_puts(&b, "CREATE TABLE results(id INTEGER PRIMARY KEY, row_type TEXT NOT NULL, result_num REAL");
    for (size_t i = 0; i < NCSV; i++)
        bad |= ms_buf_printf(&b, ", \"%s\" TEXT", CSV_COLUMNS[i]);
    bad |= ms_buf_printf(&b, ", round TEXT NOT NULL);\nCREATE INDEX results_round ON results(round);\n"
                             "PRAGMA user_version = %d;\n", SCHEMA_VERSION);
    int rc = bad ? ms_err_oom(e) : rp_db_exec(db, b.data, "creating the index schema", e);
    ms_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------ the tree ---- */

typedef struct ent {
    char *path;
    int is_link;
    uint64_t size, dev, ino;
    int64_t mtime_ns;
    unsigned mode;
    char sha[65];      /* "" until known */
    char *target;      /* symlink */
    int changed;       /* not reusable from the old index */
} ent;

typedef struct ictx {
    const rp_index_opts *o;
    rp_index_stats *st;
    ent *ents;
    size_t n;
    ms_buf line;
    const char *round;  /* this tree's round: the rows it writes and replaces */
} ictx;

#define inote(c, ...) rp_notef((c)->o->note, (c)->o->ctx, &(c)->line, __VA_ARGS__)


static int cmp_ent(const void *a, const void *b)
{
    return strcmp(((const ent *)a)->path, ((const ent *)b)->path);
}

static void ents_free(ictx *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->ents[i].path);
        free(c->ents[i].target);
    }
    free(c->ents);
    c->ents = NULL;
    c->n = 0;
}

/* Lists the tree; exclude: the database being written (dev/ino), 0 for none. */
static int scan(ictx *c, uint64_t xdev, uint64_t xino, ms_err *e)
{
    ms_ds_tree t;
    int rc = ms_ds_walk(c->o->root, &t, e);
    if (rc)
        return rc;
    if (xdev || xino)
        ms_ds_tree_exclude(&t, xdev, xino);
    c->ents = calloc(t.nfiles + t.nskipped + 1, sizeof *c->ents);
    if (!c->ents) {
        ms_ds_tree_free(&t);
        return ms_err_oom(e);
    }
    int rfd = open(c->o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0) {
        ms_ds_tree_free(&t);
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", c->o->root);
    }
    for (size_t i = 0; i < t.nfiles && !rc; i++) {
        struct stat st;
        ent *x = &c->ents[c->n];
        if (fstatat(rfd, t.files[i].path, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
            continue; /* vanished since the walk */
        if (!(x->path = strdup(t.files[i].path))) {
            rc = ms_err_oom(e);
            break;
        }
        x->size = (uint64_t)st.st_size;
        x->dev = t.files[i].dev;
        x->ino = t.files[i].ino;
        x->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        x->mode = st.st_mode & 07777;
        c->n++;
    }
    for (size_t i = 0; i < t.nskipped && !rc; i++) {
        if (t.skipped[i].kind == MS_DS_SKIP_UNREADABLE) {
            rc = ms_err_set(e, MS_EINPUT, "%s/%s: %s", c->o->root, t.skipped[i].path, t.skipped[i].reason);
            break;
        }
        if (t.skipped[i].kind != MS_DS_SKIP_SYMLINK) {
            inote(c, "note: %s: not a regular file, directory or link; not indexed", t.skipped[i].path);
            continue;
        }
        struct stat st;
        char target[4096];
        ssize_t tl = readlinkat(rfd, t.skipped[i].path, target, sizeof target - 1);
        if (tl < 0 || fstatat(rfd, t.skipped[i].path, &st, AT_SYMLINK_NOFOLLOW))
            continue;
        target[tl] = 0;
        ent *x = &c->ents[c->n];
        x->path = strdup(t.skipped[i].path);
        x->target = strdup(target);
        if (!x->path || !x->target) {
            free(x->path);
            free(x->target);
            x->path = x->target = NULL;
            rc = ms_err_oom(e);
            break;
        }
        x->is_link = 1;
        x->size = (uint64_t)tl;
        x->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        x->mode = 0777;
        c->n++;
        c->st->symlinks++;
    }
    close(rfd);
    ms_ds_tree_free(&t);
    qsort(c->ents, c->n, sizeof *c->ents, cmp_ent);
    return rc;
}

/* Reuses the hashes of unchanged files from the old index (sorted merge by path). Returns the
 * number of differences (added, changed or removed entries). */
static size_t reuse_old(ictx *c, sqlite3 *old, int old_schema, int old_same_round)
{
    size_t diff = 0, i = 0;
    sqlite3_stmt *st = NULL;
    /* schema 1 (one tree, no round column): its files are this round's only if it was indexed
     * as this round */
    if (!old || (old_schema < 2 && !old_same_round) ||
        sqlite3_prepare_v2(old, old_schema < 2 ? "SELECT path, type, size, mtime_ns, sha256, link_target FROM files "
                                                 "WHERE ?1 IS NOT NULL ORDER BY path"
                                               : "SELECT path, type, size, mtime_ns, sha256, link_target FROM files "
                                                 "WHERE round = ?1 ORDER BY path",
                           -1, &st, NULL) != SQLITE_OK ||
        sqlite3_bind_text(st, 1, c->round, -1, SQLITE_TRANSIENT) != SQLITE_OK) {
        sqlite3_finalize(st);
        for (size_t k = 0; k < c->n; k++)
            c->ents[k].changed = 1;
        return c->n + 1;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *p = (const char *)sqlite3_column_text(st, 0);
        if (!p)
            continue;
        while (i < c->n && strcmp(c->ents[i].path, p) < 0) {
            c->ents[i++].changed = 1;
            diff++;
        }
        if (i < c->n && !strcmp(c->ents[i].path, p)) {
            ent *x = &c->ents[i++];
            const char *type = (const char *)sqlite3_column_text(st, 1);
            const char *sha = (const char *)sqlite3_column_text(st, 4);
            const char *tg = (const char *)sqlite3_column_text(st, 5);
            int same = type && !strcmp(type, x->is_link ? "symlink" : "file") &&
                       (uint64_t)sqlite3_column_int64(st, 2) == x->size &&
                       sqlite3_column_type(st, 3) != SQLITE_NULL && sqlite3_column_int64(st, 3) == x->mtime_ns;
            if (same && x->is_link)
                same = tg && !strcmp(tg, x->target);
            if (same && !x->is_link)
                same = sha && strlen(sha) == 64;
            if (same) {
                if (!x->is_link)
                    memcpy(x->sha, sha, 65);
            } else {
                x->changed = 1;
                diff++;
            }
        } else {
            diff++; /* removed */
            c->st->removed++;
        }
    }
    while (i < c->n) {
        c->ents[i++].changed = 1;
        diff++;
    }
    sqlite3_finalize(st);
    return diff;
}

static int hash_changed(ictx *c, ms_err *e)
{
    size_t nj = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!c->ents[i].is_link && !c->ents[i].sha[0])
            nj++;
    c->st->reused = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!c->ents[i].is_link && c->ents[i].sha[0])
            c->st->reused++;
    if (!nj)
        return 0;
    ms_ds_job *jobs = calloc(nj, sizeof *jobs);
    size_t *map = calloc(nj, sizeof *map);
    if (!jobs || !map) {
        free(jobs);
        free(map);
        return ms_err_oom(e);
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        ent *x = &c->ents[i];
        if (x->is_link || x->sha[0])
            continue;
        jobs[k].path = x->path;
        jobs[k].size = x->size;
        jobs[k].dev = x->dev;
        jobs[k].ino = x->ino;
        map[k++] = i;
    }
    ms_progress pr;
    ms_progress_init(&pr, "index: hashing");
    ms_ds_hash_opts ho = {.jobs = c->o->jobs, .progress = &pr};
    int rc = ms_ds_hash_jobs(c->o->root, "sha256", jobs, nj, &ho, e);
    ms_progress_end(&pr);
    for (size_t j = 0; j < nj && !rc; j++) {
        if (jobs[j].failed) {
            rc = ms_err_set(e, MS_EINPUT, "%s/%s: %s", c->o->root, jobs[j].path, jobs[j].err);
            break;
        }
        memcpy(c->ents[map[j]].sha, jobs[j].digest, 65);
        c->st->bytes_hashed += jobs[j].bytes;
        c->st->hashed++;
    }
    free(jobs);
    free(map);
    return rc;
}

/* ------------------------------------------------------------ writing ---- */

static int bind_text(sqlite3_stmt *s, int i, const char *v)
{
    return v ? sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, ms_err *e)
{
    if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
        return ms_err_set(e, MS_ERUNTIME, "index: %s: %s", sqlite3_errmsg(db), sql);
    return 0;
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, ms_err *e)
{
    int r = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (r != SQLITE_DONE)
        return ms_err_set(e, MS_ERUNTIME, "index: writing: %s", sqlite3_errmsg(db));
    return 0;
}

static void split2(const char *path, char *div, char *sub, size_t n)
{
    div[0] = sub[0] = 0;
    const char *s = strchr(path, '/');
    if (!s)
        return;
    snprintf(div, n, "%.*s", (int)(s - path), path);
    const char *s2 = strchr(s + 1, '/');
    if (s2)
        snprintf(sub, n, "%.*s", (int)(s2 - s - 1), s + 1);
    if (strcmp(div, "closed") && strcmp(div, "open") && strcmp(div, "network"))
        div[0] = sub[0] = 0;
}

static int write_files(ictx *c, sqlite3 *db, ms_err *e)
{
    sqlite3_stmt *st;
    int rc = prep(db, "INSERT INTO files VALUES(?,?,?,?,?,?,?,?,?,?)", &st, e);
    for (size_t i = 0; i < c->n && !rc; i++) {
        ent *x = &c->ents[i];
        char div[256], sub[256];
        split2(x->path, div, sub, sizeof div);
        bind_text(st, 1, x->path);
        bind_text(st, 2, x->is_link ? "symlink" : "file");
        sqlite3_bind_int64(st, 3, (sqlite3_int64)x->size);
        if (c->o->portable)
            sqlite3_bind_null(st, 4);
        else
            sqlite3_bind_int64(st, 4, x->mtime_ns);
        sqlite3_bind_int(st, 5, (int)(x->is_link ? 0777 : ((x->mode & 0111) ? 0755 : 0644)));
        bind_text(st, 6, x->is_link ? NULL : x->sha);
        bind_text(st, 7, x->target);
        bind_text(st, 8, div[0] ? div : NULL);
        bind_text(st, 9, sub[0] ? sub : NULL);
        bind_text(st, 10, c->round);
        rc = step_done(db, st, e);
    }
    sqlite3_finalize(st);
    c->st->files = c->n;
    return rc;
}

static const char *jtext(json_t *v, char **tmp)
{
    *tmp = NULL;
    if (!v || json_is_null(v))
        return NULL;
    if (json_is_string(v))
        return json_string_value(v);
    *tmp = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
    return *tmp;
}

static int write_systems(ictx *c, sqlite3 *db, ms_err *e)
{
    sqlite3_stmt *st;
    int rc = prep(db, "INSERT OR REPLACE INTO systems VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st, e);
    static const char *const divs[] = {"closed", "network", "open"};
    static const char *const fields[] = {"system_name", "status", "system_type", "number_of_nodes",
                                         "host_processor_model_name", "host_processors_per_node",
                                         "host_processor_core_count", "accelerator_model_name",
                                         "accelerators_per_node", "framework", "operating_system"};
    for (size_t d = 0; d < 3 && !rc; d++) {
        char *dp = rp_fmt("%s/%s", c->o->root, divs[d]);
        char **subs;
        size_t nsub;
        if ((rc = rp_list(dp, 1, &subs, &nsub, e))) {
            free(dp);
            return rc;
        }
        for (size_t s = 0; s < nsub && !rc; s++) {
            char *sp = rp_fmt("%s/%s/systems", dp, subs[s]);
            char **files;
            size_t nf;
            if ((rc = rp_list(sp, 0, &files, &nf, e))) {
                free(sp);
                break;
            }
            for (size_t f = 0; f < nf && !rc; f++) {
                size_t L = strlen(files[f]);
                if (L < 6 || strcmp(files[f] + L - 5, ".json"))
                    continue;
                char *fp = rp_fmt("%s/%s", sp, files[f]);
                char *rel = rp_fmt("%s/%s/systems/%s", divs[d], subs[s], files[f]);
                char *sys = strndup(files[f], L - 5);
                if (!fp || !rel || !sys) {
                    rc = ms_err_oom(e);
                } else {
                    ms_err le;
                    json_t *j = rp_json_load(fp, &le);
                    bind_text(st, 1, divs[d]);
                    bind_text(st, 2, subs[s]);
                    bind_text(st, 3, sys);
                    bind_text(st, 4, rel);
                    char *tmps[12] = {0};
                    for (size_t k = 0; k < sizeof fields / sizeof *fields; k++)
                        bind_text(st, 5 + (int)k, j ? jtext(json_object_get(j, fields[k]), &tmps[k]) : NULL);
                    char *dump = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
                    bind_text(st, 16, dump);
                    bind_text(st, 18, c->round);
                    bind_text(st, 17, j ? NULL : le.msg + (strncmp(le.msg, c->o->root, strlen(c->o->root)) ? 0 : strlen(c->o->root) + 1));
                    rc = step_done(db, st, e);
                    for (size_t k = 0; k < 12; k++)
                        free(tmps[k]);
                    free(dump);
                    json_decref(j);
                    c->st->systems++;
                }
                free(fp);
                free(rel);
                free(sys);
            }
            rp_list_free(files, nf);
            free(sp);
        }
        rp_list_free(subs, nsub);
        free(dp);
    }
    sqlite3_finalize(st);
    return rc;
}

static int write_check(ictx *c, sqlite3 *db, const rp_check_out *ck, ms_err *e)
{
    /* results: one row per summary.csv row, every column */
    const ms_csv *csv = &ck->csv;
    int colmap[NCSV];
    for (size_t k = 0; k < NCSV; k++)
        colmap[k] = ms_csv_col(csv, CSV_COLUMNS[k]);
    ms_buf sql = MS_BUF_INIT;
    int bad = ms_buf_puts(&sql, "INSERT INTO results(round, row_type, result_num");
    for (size_t k = 0; k < NCSV; k++)
        bad |= ms_buf_printf(&sql, ", \"%s\"", CSV_COLUMNS[k]);
    bad |= ms_buf_puts(&sql, ") VALUES(?,?,?");
    for (size_t k = 0; k < NCSV; k++)
        bad |= ms_buf_puts(&sql, ",?");
    bad |= ms_buf_puts(&sql, ")");
    if (bad) {
        ms_buf_free(&sql);
        return ms_err_oom(e);
    }
    sqlite3_stmt *st;
    int rc = prep(db, sql.data, &st, e);
    ms_buf_free(&sql);
    int ci_units = ms_csv_col(csv, "Units"), ci_res = ms_csv_col(csv, "Result"),
        ci_loc = ms_csv_col(csv, "Location");
    size_t rootlen = strlen(c->o->root);
    for (size_t r = 1; r < csv->nrows && !rc; r++) {
        const ms_csv_row *row = &csv->rows[r];
        const char *units = ci_units >= 0 && (size_t)ci_units < row->n ? row->fields[ci_units] : "";
        int power = !strcmp(units, "Watts") || !strcmp(units, "millijoules") || strstr(units, "joules");
        bind_text(st, 1, c->round);
        bind_text(st, 2, power ? "power" : "performance");
        if (ci_res >= 0 && (size_t)ci_res < row->n && row->fields[ci_res][0])
            sqlite3_bind_double(st, 3, strtod(row->fields[ci_res], NULL));
        else
            sqlite3_bind_null(st, 3);
        for (size_t k = 0; k < NCSV; k++) {
            const char *v = colmap[k] >= 0 && (size_t)colmap[k] < row->n ? row->fields[colmap[k]] : NULL;
            if (v && (int)colmap[k] == ci_loc && c->o->portable && !strncmp(v, c->o->root, rootlen) &&
                v[rootlen] == '/')
                v += rootlen + 1; /* unified: <input>/... -> relative */
            bind_text(st, 4 + (int)k, v);
        }
        rc = step_done(db, st, e);
        c->st->results++;
    }
    sqlite3_finalize(st);
    if (rc)
        return rc;
    /* findings */
    rc = prep(db, "INSERT INTO findings(check_id, severity, counts, waived, title, file, line, pointer, expected, "
                  "found, message, hint, division, submitter, system, benchmark, scenario, round) "
                  "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st, e);
    size_t i;
    json_t *f;
    static const char *const tk[] = {"id", "severity", NULL, NULL, "title", "file", NULL, "pointer",
                                     "expected", "found", "message", "hint", "division", "submitter",
                                     "system", "benchmark", "scenario"};
    json_array_foreach(json_object_get(ck->report, "findings"), i, f) {
        if (rc)
            break;
        char *tmps[17] = {0};
        for (int k = 0; k < 17; k++)
            if (tk[k])
                bind_text(st, k + 1, jtext(json_object_get(f, tk[k]), &tmps[k]));
        sqlite3_bind_int(st, 3, json_is_true(json_object_get(f, "counts")));
        sqlite3_bind_int(st, 4, json_is_true(json_object_get(f, "waived")));
        json_t *ln = json_object_get(f, "line");
        if (json_is_integer(ln))
            sqlite3_bind_int64(st, 7, json_integer_value(ln));
        else
            sqlite3_bind_null(st, 7);
        bind_text(st, 18, c->round);
        rc = step_done(db, st, e);
        for (int k = 0; k < 17; k++)
            free(tmps[k]);
        c->st->findings++;
    }
    sqlite3_finalize(st);
    return rc;
}

/* ---- runs: one row per detail log ---- */

static int is_detail_log(const char *path)
{
    const char *b = strrchr(path, '/');
    return b && !strcmp(b + 1, "mlperf_log_detail.txt");
}

static int write_run(ictx *c, sqlite3_stmt *st, sqlite3 *db, const char *rel, ms_err *e)
{
    char *comp[32];
    size_t nc = 0;
    char *copy = strdup(rel);
    if (!copy)
        return ms_err_oom(e);
    char *save = NULL;
    for (char *t = strtok_r(copy, "/", &save); t && nc < 32; t = strtok_r(NULL, "/", &save))
        comp[nc++] = t;
    const char *div = NULL, *sub = NULL, *sys = NULL, *model = NULL, *scen = NULL;
    ms_buf kind = MS_BUF_INIT;
    if (nc >= 7 && (!strcmp(comp[2], "results") || !strcmp(comp[2], "compliance"))) {
        div = comp[0];
        sub = comp[1];
        sys = comp[3];
        model = comp[4];
        scen = comp[5];
        for (size_t k = 6; k + 1 < nc; k++) {
            if (!strcmp(comp[k], "run_1"))
                continue;
            if (kind.len)
                ms_buf_putc(&kind, '/');
            ms_buf_puts(&kind, comp[k]);
        }
    }
    char *abs = rp_fmt("%s/%s", c->o->root, rel);
    ms_mllog log;
    ms_err le;
    int rc = 0;
    if (!abs) {
        free(copy);
        ms_buf_free(&kind);
        return ms_err_oom(e);
    }
    int loaded = ms_mllog_load(&log, abs, 256u << 20, &le) == 0;
    bind_text(st, 1, rel);
    bind_text(st, 30, c->round);
    bind_text(st, 2, div);
    bind_text(st, 3, sub);
    bind_text(st, 4, sys);
    bind_text(st, 5, model);
    bind_text(st, 6, scen);
    bind_text(st, 7, kind.data);
    if (loaded) {
        static const char *const skeys[] = {"loadgen_version", "test_datetime", "sut_name",
                                            "effective_scenario", "effective_test_mode", "result_validity"};
        char *sv[6];
        for (int k = 0; k < 6; k++) {
            sv[k] = ms_mllog_get_str(&log, skeys[k]);
            bind_text(st, 8 + k, sv[k]);
        }
        double q;
        static const char *const qkeys[] = {"result_samples_per_second", "result_completed_samples_per_sec",
                                            "result_qps_with_loadgen_overhead", NULL};
        sqlite3_bind_null(st, 14);
        for (int k = 0; qkeys[k]; k++)
            if (ms_mllog_get_double(&log, qkeys[k], &q) == 0) {
                sqlite3_bind_double(st, 14, q);
                break;
            }
        int ms = ru_scenario_parse(sv[3]) == RU_MULTI_STREAM;
        static const char *const lk[] = {"min", "mean", "max"};
        for (int k = 0; k < 3; k++) {
            char key[96];
            int64_t v;
            snprintf(key, sizeof key, ms ? "result_%s_query_latency_ns" : "result_%s_latency_ns", lk[k]);
            if (ms_mllog_get_i64(&log, key, &v) == 0 ||
                (snprintf(key, sizeof key, "result_%s_latency_ns", lk[k]) && ms_mllog_get_i64(&log, key, &v) == 0))
                sqlite3_bind_int64(st, 15 + k, v);
            else
                sqlite3_bind_null(st, 15 + k);
        }
        static const char *const pk[] = {"50.00", "90.00", "95.00", "97.00", "99.00", "99.90"};
        for (int k = 0; k < 6; k++) {
            char key[96];
            int64_t v;
            snprintf(key, sizeof key, ms ? "result_%s_percentile_per_query_latency_ns" : "result_%s_percentile_latency_ns",
                     pk[k]);
            if (ms_mllog_get_i64(&log, key, &v) == 0 ||
                (snprintf(key, sizeof key, "result_%s_percentile_latency_ns", pk[k]) &&
                 ms_mllog_get_i64(&log, key, &v) == 0))
                sqlite3_bind_int64(st, 18 + k, v);
            else
                sqlite3_bind_null(st, 18 + k);
        }
        int64_t es;
        const char *esk = ru_scenario_parse(sv[3]) == RU_SINGLE_STREAM ? "early_stopping_latency_ss"
                          : ms                                      ? "early_stopping_latency_ms"
                                                                    : "early_stopping_latency_ns";
        if (ms_mllog_get_i64(&log, esk, &es) == 0)
            sqlite3_bind_int64(st, 24, es);
        else
            sqlite3_bind_null(st, 24);
        int64_t ns;
        if (ms_mllog_get_i64(&log, "generated_samples_per_query", &ns) == 0 ||
            ms_mllog_get_i64(&log, "result_query_count", &ns) == 0)
            sqlite3_bind_int64(st, 25, ns);
        else
            sqlite3_bind_null(st, 25);
        sqlite3_bind_int64(st, 26, (sqlite3_int64)log.n_errors);
        sqlite3_bind_int64(st, 27, (sqlite3_int64)log.n_warnings);
        if (log.nbad) {
            char msg[300];
            snprintf(msg, sizeof msg, "line %zu: %s", log.first_bad_line, log.first_bad_msg);
            bind_text(st, 28, msg);
        } else
            sqlite3_bind_null(st, 28);
        /* every result_* entry, lexically */
        ms_buf rj = MS_BUF_INIT;
        ms_buf_putc(&rj, '{');
        int first = 1;
        for (size_t k = 0; k < log.nrecs; k++) {
            const ms_mllog_rec *r = &log.recs[k];
            if (strncmp(r->key, "result_", 7) && strncmp(r->key, "early_stopping", 14))
                continue;
            if (ms_mllog_find(&log, r->key) != r)
                continue;
            if (!first)
                ms_buf_puts(&rj, ", ");
            first = 0;
            rp_json_str(&rj, r->key);
            ms_buf_puts(&rj, ": ");
            ms_buf_append(&rj, r->raw, r->raw_len);
        }
        ms_buf_putc(&rj, '}');
        bind_text(st, 29, rj.data);
        ms_buf_free(&rj);
        for (int k = 0; k < 6; k++)
            free(sv[k]);
        ms_mllog_free(&log);
    } else {
        bind_text(st, 28, le.msg);
    }
    rc = step_done(db, st, e);
    c->st->runs++;
    free(abs);
    free(copy);
    ms_buf_free(&kind);
    return rc;
}

static int write_runs(ictx *c, sqlite3 *db, int have_old, ms_err *e)
{
    sqlite3_stmt *st, *cp = NULL;
    int rc = prep(db, "INSERT INTO runs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &st, e);
    if (!rc && have_old)
        rc = prep(db, "INSERT INTO runs SELECT * FROM temp.old_runs WHERE path = ? AND round = ?", &cp, e);
    for (size_t i = 0; i < c->n && !rc; i++) {
        ent *x = &c->ents[i];
        if (x->is_link || !is_detail_log(x->path))
            continue;
        if (cp && !x->changed) {
            bind_text(cp, 1, x->path);
            bind_text(cp, 2, c->round);
            rc = step_done(db, cp, e);
            if (!rc && sqlite3_changes(db) == 1) {
                c->st->runs++;
                continue;
            }
        }
        if (!rc)
            rc = write_run(c, st, db, x->path, e);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(cp);
    return rc;
}

static int write_truncations(ictx *c, sqlite3 *db, int have_old, ms_err *e)
{
    if (!c->o->backup) {
        if (!have_old)
            return 0;
        sqlite3_stmt *k;
        int rc = prep(db, "INSERT INTO truncations SELECT * FROM temp.old_truncations WHERE round = ?", &k, e);
        if (!rc) {
            bind_text(k, 1, c->round);
            rc = step_done(db, k, e);
        }
        sqlite3_finalize(k);
        return rc;
    }
    char *man = rp_fmt("%s/%s", c->o->backup, RP_TRUNCATE_MANIFEST);
    if (!man)
        return ms_err_oom(e);
    json_t *j = rp_json_load(man, e);
    free(man);
    if (!j)
        return MS_EINPUT;
    sqlite3_stmt *st;
    int rc = prep(db, "INSERT OR REPLACE INTO truncations VALUES(?,?,?,?,?,?)", &st, e);
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(j, "records"), i, r) {
        if (rc)
            break;
        bind_text(st, 1, json_string_value(json_object_get(r, "path")));
        bind_text(st, 2, json_string_value(json_object_get(r, "full_sha256")));
        sqlite3_bind_int64(st, 3, json_integer_value(json_object_get(r, "full_size")));
        bind_text(st, 4, json_string_value(json_object_get(r, "truncated_sha256")));
        sqlite3_bind_int64(st, 5, json_integer_value(json_object_get(r, "truncated_size")));
        bind_text(st, 6, c->round);
        rc = step_done(db, st, e);
    }
    sqlite3_finalize(st);
    json_decref(j);
    return rc;
}

/* ------------------------------------------------------------ rounds ---- */

/* This tree's round: --version, else the one its logs and layout show (ck_detect_round), else
 * (nothing to detect from) the newest round, as the checker's default. malloc'd. */
static char *index_round(ictx *c, ms_err *e)
{
    if (c->o->version) {
        char *v = strdup(c->o->version);
        if (!v)
            ms_err_oom(e);
        return v;
    }
    char *data = ru_data_dir(NULL, NULL, e);
    if (!data)
        return NULL;
    char *v = NULL, *why = NULL;
    ms_err de;
    ms_err_clear(&de);
    if (ck_detect_round(c->o->root, data, &v, &why, &de) == 0 && v) {
        inote(c, "round %s (detected: %s)", v, why ? why : "");
    } else {
        free(v);
        v = ru_newest_round(data, e);
        if (v)
            inote(c, "note: round not detected (%s); indexed as the newest, %s (--version names it)",
                  de.msg[0] ? de.msg : "no evidence", v);
    }
    free(why);
    free(data);
    return v;
}

static const char *const ROUND_TABLES[] = {"files", "systems", "results", "findings", "runs", "truncations",
                                           "rounds"};

/* The previous index (attached as "old") as views temp.old_<table> with this schema's columns
 * (round last). A schema-1 index (one tree, no round column, written before several rounds
 * shared a database) reads as the round it was indexed as (meta.rules_name), or as this round
 * when it records none (--no-check). */
static int old_views(sqlite3 *db, int old_schema, const char *old_round, ms_err *e)
{
    int rc = 0;
    for (size_t t = 0; t < sizeof ROUND_TABLES / sizeof *ROUND_TABLES && !rc; t++) {
        char *sql;
        if (old_schema >= 2)
            sql = sqlite3_mprintf("CREATE TEMP VIEW old_%s AS SELECT * FROM old.%s", ROUND_TABLES[t], ROUND_TABLES[t]);
        else if (strcmp(ROUND_TABLES[t], "rounds"))
            sql = sqlite3_mprintf("CREATE TEMP VIEW old_%s AS SELECT *, %Q AS round FROM old.%s", ROUND_TABLES[t],
                                  old_round, ROUND_TABLES[t]);
        else
#define M_(k) "(SELECT value FROM old.meta WHERE key = '" k "')"
            sql = sqlite3_mprintf("CREATE TEMP VIEW old_rounds AS SELECT %Q AS round, " M_("root") " AS root, "
                                  M_("options") " AS options, " M_("rules_name") " AS rules_name, "
                                  M_("rules_version") " AS rules_version, " M_("profile") " AS profile, "
                                  M_("verdict") " AS verdict, CAST(" M_("check_exit_code") " AS INTEGER) AS check_exit_code, "
                                  "CAST(" M_("check_errors") " AS INTEGER) AS check_errors, CAST("
                                  M_("check_warnings") " AS INTEGER) AS check_warnings, " M_("indexed_at")
                                  " AS indexed_at",
                                  old_round);
#undef M_
        if (!sql)
            return ms_err_oom(e);
        rc = rp_db_exec(db, sql, "index: reading the previous index", e);
        sqlite3_free(sql);
    }
    return rc;
}

/* Copies the other rounds' rows of the previous index (temp.old_<table>) unchanged. */
static int keep_other_rounds(ictx *c, sqlite3 *db, ms_err *e)
{
    int rc = 0;
    for (size_t t = 0; t < sizeof ROUND_TABLES / sizeof *ROUND_TABLES && !rc; t++) {
        char *info = sqlite3_mprintf("PRAGMA main.table_info(%s)", ROUND_TABLES[t]);
        sqlite3_stmt *q = NULL;
        ms_buf cols = MS_BUF_INIT;
        if (!info)
            return ms_err_oom(e);
        rc = prep(db, info, &q, e);
        sqlite3_free(info);
        while (!rc && sqlite3_step(q) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(q, 1);
            if (!name || !strcmp(name, "id")) /* results and findings renumber */
                continue;
            ms_buf_printf(&cols, "%s\"%s\"", cols.len ? ", " : "", name);
        }
        sqlite3_finalize(q);
        if (!rc && !cols.data)
            rc = ms_err_oom(e);
        char *sql = rc ? NULL
                       : sqlite3_mprintf("INSERT INTO main.%s(%s) SELECT %s FROM temp.old_%s WHERE round IS NOT ?",
                                         ROUND_TABLES[t], cols.data, cols.data, ROUND_TABLES[t]);
        ms_buf_free(&cols);
        if (!rc && !sql)
            rc = ms_err_oom(e);
        sqlite3_stmt *ins = NULL;
        if (!rc)
            rc = prep(db, sql, &ins, e);
        sqlite3_free(sql);
        if (!rc) {
            bind_text(ins, 1, c->round);
            rc = step_done(db, ins, e);
        }
        sqlite3_finalize(ins);
    }
    return rc;
}

static int put_meta(sqlite3 *db, const char *k, const char *v, ms_err *e)
{
    sqlite3_stmt *st;
    int rc = prep(db, "INSERT OR REPLACE INTO meta VALUES(?,?)", &st, e);
    if (rc)
        return rc;
    bind_text(st, 1, k);
    bind_text(st, 2, v);
    rc = step_done(db, st, e);
    sqlite3_finalize(st);
    return rc;
}

static char *options_key(const rp_index_opts *o, const char *version)
{
    const ck_options *k = o->check;
    ms_buf b = MS_BUF_INIT;
    ms_buf_printf(&b, "version=%s;check=%d;profile=%s;strict=%d", version ? version : "", !o->no_check,
                  k && k->profile ? k->profile : "", k ? k->strict : 0);
    if (k) {
        for (size_t i = 0; i < k->nskip; i++)
            ms_buf_printf(&b, ";skip=%s", k->skip_ids[i]);
        ms_buf_printf(&b, ";flags=%d%d%d%d%d%d%d%d%d%d%d%d", k->skip_compliance, k->submission_exceptions,
                      k->skip_power_check, k->skip_meaningful_fields_emptiness_check,
                      k->skip_check_power_measure_files, k->skip_empty_files_check,
                      k->skip_extra_files_in_root_check, k->skip_extra_accuracy_files_check,
                      k->skip_all_systems_have_results_check, k->skip_calibration_check,
                      k->skip_dataset_size_check, k->private_ids);
    }
    ms_buf_printf(&b, ";backup=%s", o->backup ? o->backup : "");
    return ms_buf_steal(&b);
}

/* Fills a fresh database (schema created here). old: the previous index attached as "old". */
static int fill(ictx *c, sqlite3 *db, int have_old, const char *optkey, ms_err *e)
{
    int rc = rp_db_exec(db, "BEGIN", "index", e);
    if (!rc)
        rc = rp_db_schema(db, e);
    if (!rc && have_old)
        rc = keep_other_rounds(c, db, e);
    if (!rc)
        rc = write_files(c, db, e);
    rp_check_out ck;
    memset(&ck, 0, sizeof ck);
    int ran = 0;
    if (!rc && !c->o->no_check) {
        const char *croot = c->o->root;
        rc = rp_check_run(croot, c->round, c->o->data_dir, c->o->check, &ck, e);
        ran = !rc;
        if (ran) {
            c->st->check_exit = ck.exit_code;
            if (ck.exit_code) {
                rp_check_failure_text(json_object_get(ck.report, "findings"), rp_check_unified(&ck),
                                      c->st->check_failure, sizeof c->st->check_failure);
                if (c->o->refuse_failed_check)
                    rc = ms_err_set(e, MS_FAIL, "%s: the checker finds errors: %s ('mlsubmit check %s' lists the findings); "
                                                "not indexed (--force indexes it anyway)", c->o->root,
                                    c->st->check_failure, c->o->root);
            }
            if (!rc)
                rc = write_check(c, db, &ck, e);
        }
    }
    if (!rc)
        rc = write_systems(c, db, e);
    if (!rc)
        rc = write_runs(c, db, have_old, e);
    if (!rc)
        rc = write_truncations(c, db, have_old, e);
    if (!rc) {
        char buf[64];
        snprintf(buf, sizeof buf, "%d", SCHEMA_VERSION);
        rc = put_meta(db, "schema_version", buf, e);
        if (!rc)
            rc = put_meta(db, "tool_version", MLSUBMIT_VERSION, e);
        if (!rc)
            rc = put_meta(db, "root", c->o->portable ? "." : c->o->root, e);
        if (!rc)
            rc = put_meta(db, "options", optkey, e);
        if (!rc && ran) {
            /* the name the rules were loaded by (rules/<name>.json) and the round they declare */
            rc = put_meta(db, "rules_name", c->round, e);
            if (!rc)
                rc = put_meta(db, "rules_version", ck.version, e);
            if (!rc)
                rc = put_meta(db, "profile", json_string_value(json_object_get(ck.report, "profile")), e);
            if (!rc)
                rc = put_meta(db, "verdict", json_string_value(json_object_get(ck.report, "verdict")), e);
            snprintf(buf, sizeof buf, "%d", ck.exit_code);
            if (!rc)
                rc = put_meta(db, "check_exit_code", buf, e);
            json_t *cnt = json_object_get(ck.report, "counts");
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(json_object_get(cnt, "errors")));
            if (!rc)
                rc = put_meta(db, "check_errors", buf, e);
            snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(json_object_get(cnt, "warnings")));
            if (!rc)
                rc = put_meta(db, "check_warnings", buf, e);
        }
        if (!rc && !c->o->portable) {
            time_t now = time(NULL);
            struct tm tm;
            gmtime_r(&now, &tm);
            strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
            rc = put_meta(db, "indexed_at", buf, e);
        }
        /* this round's row: what meta says of the tree indexed last, per round */
        sqlite3_stmt *u = NULL;
        if (!rc)
            rc = prep(db, "INSERT INTO rounds SELECT ?, m.root, m.options, m.rules_name, m.rules_version, "
                                "m.profile, m.verdict, m.check_exit_code, m.check_errors, m.check_warnings, "
                                "m.indexed_at FROM (SELECT "
                                "max(CASE key WHEN 'root' THEN value END) AS root, "
                                "max(CASE key WHEN 'options' THEN value END) AS options, "
                                "max(CASE key WHEN 'rules_name' THEN value END) AS rules_name, "
                                "max(CASE key WHEN 'rules_version' THEN value END) AS rules_version, "
                                "max(CASE key WHEN 'profile' THEN value END) AS profile, "
                                "max(CASE key WHEN 'verdict' THEN value END) AS verdict, "
                                "CAST(max(CASE key WHEN 'check_exit_code' THEN value END) AS INTEGER) AS check_exit_code, "
                                "CAST(max(CASE key WHEN 'check_errors' THEN value END) AS INTEGER) AS check_errors, "
                                "CAST(max(CASE key WHEN 'check_warnings' THEN value END) AS INTEGER) AS check_warnings, "
                                "max(CASE key WHEN 'indexed_at' THEN value END) AS indexed_at FROM main.meta) m",
                      &u, e);
        if (!rc) {
            bind_text(u, 1, c->round);
            rc = step_done(db, u, e);
        }
        sqlite3_finalize(u);
    }
    rp_check_out_free(&ck);
    if (!rc)
        rc = rp_db_exec(db, "COMMIT", "index", e);
    return rc;
}

static int configure(sqlite3 *db, ms_err *e)
{
    return rp_db_exec(db, "PRAGMA page_size=4096;", "index: configuring", e);
}

int rp_index(const rp_index_opts *o, rp_index_stats *st, ms_err *e)
{
    memset(st, 0, sizeof *st);
    st->check_exit = -1;
    int64_t t0 = ms_now_ns();
    if (!rp_is_dir_nofollow(o->root) && !ms_is_dir(o->root))
        return ms_err_root(e, o->root, 0, 0);
    ictx c = {.o = o, .st = st, .line = MS_BUF_INIT};
    struct stat dbst;
    int have_db = stat(o->db, &dbst) == 0;
    if (have_db && !S_ISREG(dbst.st_mode))
        return ms_err_set(e, MS_EUSAGE, "%s: not a regular file", o->db);
    char *round = index_round(&c, e);
    if (!round) {
        ms_buf_free(&c.line);
        return e->code ? e->code : ms_err_oom(e);
    }
    c.round = round;
    int rc = scan(&c, have_db ? (uint64_t)dbst.st_dev : 0, have_db ? (uint64_t)dbst.st_ino : 0, e);
    sqlite3 *old = NULL;
    char *optkey = rc ? NULL : options_key(o, round);
    if (!rc && !optkey)
        rc = ms_err_oom(e);
    if (!rc)
        rc = ms_lazy_sqlite_load("mlsubmit index", e);
    /* the previous index: its hashes (unless --full) and the other rounds' rows */
    if (!rc && have_db) {
        if (sqlite3_open_v2(o->db, &old, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
            inote(&c, "note: %s is not readable as an index (%s); re-indexing everything", o->db, sqlite3_errmsg(old));
            sqlite3_close(old);
            old = NULL;
        }
    }
    size_t diff = 0;
    int same_opts = 0, old_check = -1, old_schema = 0;
    char *old_round = NULL; /* schema 1: the round its one tree was indexed as */
    if (!rc && old) {
        sqlite3_stmt *q = NULL;
        if (sqlite3_prepare_v2(old, "SELECT value FROM meta WHERE key='schema_version'", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
            old_schema = atoi((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
        q = NULL;
        if (old_schema < 2 &&
            sqlite3_prepare_v2(old, "SELECT value FROM meta WHERE key='rules_name'", -1, &q, NULL) == SQLITE_OK &&
            sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
            old_round = strdup((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
        if (old_schema < 2 && !old_round && !(old_round = strdup(round)))
            rc = ms_err_oom(e);
        if (old_schema < 2)
            inote(&c, "note: %s: an index of schema %d (one tree); upgraded to schema %d, its rows kept as round %s",
                  o->db, old_schema, SCHEMA_VERSION, old_round ? old_round : "?");
    }
    if (!rc) {
        diff = reuse_old(&c, o->full ? NULL : old, old_schema, old_round && !strcmp(old_round, round));
        /* this round's options and verdict, as recorded (schema 2: the rounds table) */
        sqlite3_stmt *q = NULL;
        if (old && old_schema >= 2 &&
            sqlite3_prepare_v2(old, "SELECT options, check_exit_code FROM rounds WHERE round = ?", -1, &q, NULL) ==
                SQLITE_OK &&
            sqlite3_bind_text(q, 1, round, -1, SQLITE_TRANSIENT) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) {
            const char *v = (const char *)sqlite3_column_text(q, 0);
            same_opts = v && !strcmp(v, optkey);
            /* an unchanged index keeps its verdict: say so when it records a failed check */
            if (sqlite3_column_type(q, 1) != SQLITE_NULL)
                old_check = sqlite3_column_int(q, 1);
        }
        sqlite3_finalize(q);
    }
    if (!rc && old && !o->full && diff == 0 && same_opts) {
        sqlite3_close(old);
        st->files = c.n;
        st->reused = c.n - st->symlinks;
        st->unchanged = 1;
        st->check_exit = old_check;
        ents_free(&c);
        free(optkey);
        free(round);
        free(old_round);
        ms_buf_free(&c.line);
        st->seconds = (double)(ms_now_ns() - t0) / 1e9;
        return 0;
    }
    if (old)
        sqlite3_close(old);
    if (!rc)
        rc = hash_changed(&c, e);
    /* The new database is built in memory, then serialized and written through ms_afile
     * (unnamed until complete): a run killed at any point leaves no partial database. */
    sqlite3 *db = NULL;
    if (!rc && sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        rc = ms_err_set(e, MS_ERUNTIME, "%s: cannot create the index in memory", o->db);
    if (!rc)
        rc = configure(db, e);
    int attached = 0;
    if (!rc && old_schema) {
        sqlite3_stmt *a = NULL;
        if (sqlite3_prepare_v2(db, "ATTACH DATABASE ? AS old", -1, &a, NULL) == SQLITE_OK) {
            sqlite3_bind_text(a, 1, o->db, -1, SQLITE_TRANSIENT);
            attached = sqlite3_step(a) == SQLITE_DONE;
        }
        sqlite3_finalize(a);
        if (attached) {
            sqlite3_stmt *q = NULL;
            attached = sqlite3_prepare_v2(db, "SELECT 1 FROM old.runs LIMIT 1", -1, &q, NULL) == SQLITE_OK;
            sqlite3_finalize(q);
            if (!attached)
                rp_db_exec(db, "DETACH DATABASE old", "index", e);
        }
        if (attached && (rc = old_views(db, old_schema, old_round ? old_round : round, e)))
            attached = 0;
    }
    if (!rc)
        rc = fill(&c, db, attached, optkey, e);
    if (attached && !rc) {
        for (size_t t = 0; t < sizeof ROUND_TABLES / sizeof *ROUND_TABLES && !rc; t++) {
            char *d = sqlite3_mprintf("DROP VIEW temp.old_%s", ROUND_TABLES[t]);
            rc = d ? rp_db_exec(db, d, "index", e) : ms_err_oom(e);
            sqlite3_free(d);
        }
        if (!rc)
            rc = rp_db_exec(db, "DETACH DATABASE old", "index", e);
    }
    if (!rc) {
        sqlite3_int64 n = 0;
        unsigned char *img = sqlite3_serialize(db, "main", &n, 0);
        if (!img)
            rc = ms_err_set(e, MS_ERUNTIME, "%s: cannot serialize the index: %s", o->db, sqlite3_errmsg(db));
        else
            rc = ms_write_file_atomic(o->db, img, (size_t)n, e);
        sqlite3_free(img);
    }
    if (db)
        sqlite3_close(db);
    free(optkey);
    free(round);
    free(old_round);
    ents_free(&c);
    ms_buf_free(&c.line);
    st->seconds = (double)(ms_now_ns() - t0) / 1e9;
    return rc;
}

int rp_index_mem(const rp_index_opts *o, rp_index_stats *st, unsigned char **data, size_t *len, ms_err *e)
{
    memset(st, 0, sizeof *st);
    st->check_exit = -1;
    *data = NULL;
    *len = 0;
    int64_t t0 = ms_now_ns();
    if (!ms_is_dir(o->root))
        return ms_err_root(e, o->root, 0, 0);
    ictx c = {.o = o, .st = st, .line = MS_BUF_INIT};
    char *round = index_round(&c, e);
    if (!round) {
        ms_buf_free(&c.line);
        return e->code ? e->code : ms_err_oom(e);
    }
    c.round = round;
    int rc = scan(&c, 0, 0, e);
    for (size_t i = 0; i < c.n; i++)
        c.ents[i].changed = 1;
    if (!rc)
        rc = hash_changed(&c, e);
    sqlite3 *db = NULL;
    if (!rc)
        rc = ms_lazy_sqlite_load("mlsubmit index", e);
    if (!rc && sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
        rc = ms_err_set(e, MS_ERUNTIME, "cannot create an in-memory database");
    char *optkey = rc ? NULL : options_key(o, round);
    if (!rc && !optkey)
        rc = ms_err_oom(e);
    if (!rc)
        rc = rp_db_exec(db, "PRAGMA page_size=4096;", "index", e);
    if (!rc)
        rc = fill(&c, db, 0, optkey, e);
    if (!rc)
        rc = rp_db_exec(db, "VACUUM", "index", e);
    if (!rc) {
        sqlite3_int64 n = 0;
        unsigned char *p = sqlite3_serialize(db, "main", &n, 0);
        if (!p)
            rc = ms_err_oom(e);
        else {
            *data = malloc((size_t)n);
            if (!*data)
                rc = ms_err_oom(e);
            else {
                memcpy(*data, p, (size_t)n);
                *len = (size_t)n;
            }
            sqlite3_free(p);
        }
    }
    sqlite3_close(db);
    free(optkey);
    free(round);
    ents_free(&c);
    ms_buf_free(&c.line);
    st->seconds = (double)(ms_now_ns() - t0) / 1e9;
    return rc;
}
