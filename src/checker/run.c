/* Entry point of a checker run: options, rules, schemas, waivers, the worker pool, result keys
 * (the official verdict bookkeeping), summary.csv rows and the per-division counters. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checker/internal.h"
#include "common/fsutil.h"
#include "common/pytext.h"

struct ck_report {
    ck_state st;
};

/* ------------------------------------------------------------------ keys ---- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int khash_grow(ck_state *run)
{
    size_t nc = run->khash_cap ? run->khash_cap * 2 : 256;
    long *nh = calloc(nc, sizeof *nh);
    if (!nh)
        return -1;
    for (size_t i = 0; i < run->nkeys; i++) {
        size_t j = hash_str(run->keys[i].key) & (nc - 1);
        while (nh[j])
            j = (j + 1) & (nc - 1);
        nh[j] = (long)i + 1;
    }
    free(run->khash);
    run->khash = nh;
    run->khash_cap = nc;
    return 0;
}

long ck_key_find(const ck_state *run, const char *key)
{
    if (!run->khash_cap)
        return -1;
    size_t j = hash_str(key) & (run->khash_cap - 1);
    while (run->khash[j]) {
        long i = run->khash[j] - 1;
        if (!strcmp(run->keys[i].key, key))
            return i;
        j = (j + 1) & (run->khash_cap - 1);
    }
    return -1;
}

long ck_key_set(ck_state *run, const char *key, const char *value, int truthy)
{
    long i = ck_key_find(run, key);
    if (i < 0) {
        if ((run->nkeys + 1) * 2 > run->khash_cap && khash_grow(run))
            goto oom;
        if (MS_GROW(run->keys, run->capkeys, run->nkeys + 1, 64))
            goto oom;
        i = (long)run->nkeys;
        memset(&run->keys[i], 0, sizeof run->keys[i]);
        run->keys[i].key = strdup(key);
        if (!run->keys[i].key)
            goto oom;
        run->nkeys++;
        size_t j = hash_str(key) & (run->khash_cap - 1);
        while (run->khash[j])
            j = (j + 1) & (run->khash_cap - 1);
        run->khash[j] = i + 1;
    }
    ck_key *k = &run->keys[i];
    free(k->value);
    k->value = value ? strdup(value) : NULL;
    k->has_value = value != NULL;
    k->truthy = value != NULL && truthy;
    return i;
oom:
    run->oom = 1;
    return -1;
}

void ck_key_null(ck_state *run, long idx)
{
    if (idx < 0 || (size_t)idx >= run->nkeys)
        return;
    ck_key *k = &run->keys[idx];
    free(k->value);
    k->value = NULL;
    k->has_value = 0;
    k->truthy = 0;
}

int ck_row_add(ck_state *run, char *text, long key)
{
    return ck_row_add_reader(run, text, NULL, key);
}

int ck_row_add_reader(ck_state *run, char *text, char *reader, long key)
{
    if (!text) {
        free(reader);
        run->oom = 1;
        return -1;
    }
    if (MS_GROW(run->rows, run->caprows, run->nrows + 1, 64)) {
        free(text);
        free(reader);
        run->oom = 1;
        return -1;
    }
    run->rows[run->nrows].text = text;
    run->rows[run->nrows].reader = reader;
    run->rows[run->nrows].key = key;
    run->nrows++;
    return 0;
}

int ck_count_add(ck_state *run, const char *division, const char *identity, int power)
{
    int d = CK_DIV_INDEX(division), p = power ? 1 : 0;
    ck_counts *c = &run->counts;
    for (size_t i = 0; i < c->n[d][p]; i++)
        if (!strcmp(c->ids[d][p][i], identity)) {
            c->cnt[d][p][i]++;
            return 0;
        }
    if (c->n[d][p] == c->cap[d][p]) {
        size_t nc = c->cap[d][p] ? c->cap[d][p] * 2 : 16;
        char **ni = realloc(c->ids[d][p], nc * sizeof *ni);
        if (!ni)
            goto oom;
        c->ids[d][p] = ni;
        size_t *nn = realloc(c->cnt[d][p], nc * sizeof *nn);
        if (!nn)
            goto oom;
        c->cnt[d][p] = nn;
        c->cap[d][p] = nc;
    }
    c->ids[d][p][c->n[d][p]] = strdup(identity);
    if (!c->ids[d][p][c->n[d][p]])
        goto oom;
    c->cnt[d][p][c->n[d][p]++] = 1;
    return 0;
oom:
    run->oom = 1;
    return -1;
}

int ck_add_note(ck_state *run, const char *fmt, ...)
{
    char **nn = realloc(run->notes, (run->nnotes + 1) * sizeof *nn);
    if (!nn) {
        run->oom = 1;
        return -1;
    }
    run->notes = nn;
    va_list ap;
    va_start(ap, fmt);
    char *s = ms_vfmt(fmt, ap);
    va_end(ap);
    if (!s) {
        run->oom = 1;
        return -1;
    }
    run->notes[run->nnotes++] = s;
    return 0;
}

/* ------------------------------------------------------------ worker pool ---- */

typedef struct pool {
    atomic_size_t next;
    size_t n;
    ck_task_fn fn;
    void *ctx;
    ck_fs_store *fs;   /* directory listings shared by the workers (NULL: none) */
} pool;

static void *worker(void *arg)
{
    pool *p = arg;
    ck_fs_cache_begin(p->fs);
    ck_dlog_memo_begin();
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            break;
        p->fn(p->ctx, i);
    }
    ck_dlog_memo_end();
    ck_fs_cache_end();
    return NULL;
}

void ck_parallel(int jobs, size_t n, ck_task_fn fn, void *ctx)
{
    pool p;
    atomic_init(&p.next, 0);
    p.n = n;
    p.fn = fn;
    p.ctx = ctx;
    /* the run's store when the caller has one (ck_run), else one for this phase */
    ck_fs_store *outer = ck_fs_cache_current(), *own = outer ? NULL : ck_fs_store_new();
    p.fs = outer ? outer : own;
    if (jobs < 1)
        jobs = 1;
    if ((size_t)jobs > n)
        jobs = n ? (int)n : 1;
    pthread_t th[256];
    int started = 0;
    for (int i = 1; i < jobs && i < 256; i++)
        if (pthread_create(&th[started], NULL, worker, &p) == 0)
            started++;
    worker(&p);  /* the calling thread works too (and alone if threads cannot start) */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    ck_fs_cache_begin(outer); /* worker() ended the calling thread's */
    ck_fs_store_free(own);
}

/* ---------------------------------------------------------------- waivers ---- */

/* Waivers file: one waiver per line, "<CHECK-ID> <path> <justification...>", '#' comments.
 * The path is relative to ROOT: an exact file, a directory prefix, or an fnmatch pattern;
 * "*" matches any ID or any path. The justification is required. */
static int load_waivers(ck_state *run, const char *path, ms_err *e)
{
    char *text;
    size_t len;
    if (ms_read_file(path, 16u << 20, &text, &len, e))
        return MS_EINPUT;
    ms_lines it;
    ms_lines_init(&it, text, len);
    const char *line;
    size_t ll;
    int nl;
    while (ms_lines_next(&it, &line, &ll, &nl)) {
        char *l = strndup(line, ll);
        if (!l) {
            free(text);
            return ms_err_oom(e);
        }
        char *p = l;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#') {
            free(l);
            continue;
        }
        char *id = strtok(p, " \t");
        char *wp = strtok(NULL, " \t");
        char *why = strtok(NULL, "");
        while (why && (*why == ' ' || *why == '\t'))
            why++;
        if (!id || !wp || !why || !*why) {
            ms_err_set(e, MS_EINPUT,
                       "%s:%zu: expected '<CHECK-ID> <path> <justification>' (the justification "
                       "is required)", path, it.line_no);
            free(l);
            free(text);
            return MS_EINPUT;
        }
        if (strcmp(id, "*") && !ck_check_find(id)) {
            ms_err_set(e, MS_EINPUT, "%s:%zu: unknown check ID '%s' (see mlsubmit check "
                       "--list-checks)", path, it.line_no, id);
            free(l);
            free(text);
            return MS_EINPUT;
        }
        ck_waiver *nw = realloc(run->waivers, (run->nwaivers + 1) * sizeof *nw);
        if (!nw) {
            free(l);
            free(text);
            return ms_err_oom(e);
        }
        run->waivers = nw;
        ck_waiver *w = &run->waivers[run->nwaivers];
        w->id = strdup(id);
        w->path = strdup(wp);
        w->why = strdup(why);
        w->line = (long)it.line_no;
        w->used = 0;
        free(l);
        if (!w->id || !w->path || !w->why) {
            free(w->id);
            free(w->path);
            free(w->why);
            free(text);
            return ms_err_oom(e);
        }
        run->nwaivers++;
    }
    free(text);
    return MS_OK;
}

/* ------------------------------------------------------------------- run ---- */

static int load_schema(ck_state *run, const char *data_dir, const char *name, ms_jschema **out,
                       ms_err *e)
{
    char *p = ck_join3(data_dir, "schemas", name);
    if (!p)
        return ms_err_oom(e);
    int rc = ms_jschema_load(out, p, e);
    free(p);
    return rc;
}

/* ------------------------------------------------------------ late frees ---- */

static void store_free(void *s)
{
    ck_fs_store_free(s);
}

static void late_run(ck_state *run)
{
    for (size_t i = 0; i < run->nlate; i++)
        run->late[i].fn(run->late[i].arg);
    run->nlate = 0;
}

static void *late_main(void *arg)
{
    late_run(arg);
    return NULL;
}

void ck_defer_free(ck_state *run, void (*fn)(void *), void *arg)
{
    if (run->late_running || run->nlate == sizeof run->late / sizeof *run->late) {
        fn(arg);
        return;
    }
    run->late[run->nlate++] = (struct ck_late){fn, arg};
}

/* The frees ck_defer_free collected, on a helper thread: on a check's serial tail they took a
 * millisecond or two that the caller's outputs (the report, summary.csv and its fsync) now
 * overlap. Without a second core (--jobs 1) or a thread they run here. The frees touch only
 * what they were given (the store, the plan), never what the outputs read. */
static void late_start(ck_state *run)
{
    double t0 = ck_now_ms();
    if (run->nlate && run->jobs > 1 && pthread_create(&run->late_thread, NULL, late_main, run) == 0)
        run->late_running = 1;
    else
        late_run(run);
    run->timings.free_ms += ck_now_ms() - t0;
}

static void late_join(ck_state *run)
{
    if (run->late_running) {
        pthread_join(run->late_thread, NULL);
        run->late_running = 0;
    }
    late_run(run);
}

static void state_free(ck_state *run)
{
    late_join(run);
    ck_rules_free(&run->rules);
    ms_jschema_free(run->sys_schema);
    ms_jschema_free(run->meas_schema);
    ms_jschema_free(run->map_schema);
    free(run->root);
    for (size_t i = 0; i < run->nwaivers; i++) {
        free(run->waivers[i].id);
        free(run->waivers[i].path);
        free(run->waivers[i].why);
    }
    free(run->waivers);
    ck_flist_free(&run->findings);
    for (size_t i = 0; i < run->nkeys; i++) {
        free(run->keys[i].key);
        free(run->keys[i].value);
    }
    free(run->keys);
    free(run->khash);
    for (size_t i = 0; i < run->nrows; i++) {
        free(run->rows[i].text);
        free(run->rows[i].reader);
    }
    free(run->rows);
    for (int d = 0; d < 3; d++)
        for (int p = 0; p < 2; p++) {
            for (size_t i = 0; i < run->counts.n[d][p]; i++)
                free(run->counts.ids[d][p][i]);
            free(run->counts.ids[d][p]);
            free(run->counts.cnt[d][p]);
        }
    for (size_t i = 0; i < run->nnotes; i++)
        free(run->notes[i]);
    free(run->notes);
}

int ck_run(const ck_options *o, ck_report **out, ms_err *e)
{
    *out = NULL;
    if (!o->root || !*o->root)
        return ms_err_set(e, MS_EUSAGE, "the submission root is required");
    if (!o->data_dir)
        return ms_err_set(e, MS_EUSAGE, "no data directory (rules/ and schemas/)");
    for (size_t i = 0; i < o->nskip; i++)
        if (!ck_check_find(o->skip_ids[i]))
            return ms_err_set(e, MS_EUSAGE, "--skip %s: unknown check ID (see --list-checks)",
                              o->skip_ids[i]);
    ck_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return ms_err_oom(e);
    ck_state *run = &rep->st;
    run->o = o;
    double t_start = ck_now_ms();
    int rc;
    char *version = o->version ? strdup(o->version) : ru_newest_round(o->data_dir, e);
    if (!version) {
        free(rep);
        return o->version ? ms_err_oom(e) : MS_EINPUT;
    }
    char *rfile = ck_fmt("%s/rules/%s.json", o->data_dir, version);
    if (!rfile) {
        free(version);
        free(rep);
        return ms_err_oom(e);
    }
    if (!ck_isfile(rfile)) {
        rc = ru_unknown_round(o->data_dir, version, rfile, e);
        free(rfile);
        free(version);
        free(rep);
        return rc;
    }
    free(version);
    rc = ck_rules_load(&run->rules, rfile, o->profile, e);
    free(rfile);
    if (rc) {
        free(rep);
        return rc;
    }
    if ((rc = load_schema(run, o->data_dir, "system_desc.schema.json", &run->sys_schema, e)) ||
        (rc = load_schema(run, o->data_dir, "measurements.schema.json", &run->meas_schema, e)) ||
        (rc = load_schema(run, o->data_dir, "model_mapping.schema.json", &run->map_schema, e)))
        goto fail;
    if (!ck_isdir(o->root)) {
        rc = ms_err_root(e, o->root, 0, 0);
        goto fail;
    }
    run->root = strdup(o->root);
    if (!run->root) {
        rc = ms_err_oom(e);
        goto fail;
    }
    if (o->waivers_path && (rc = load_waivers(run, o->waivers_path, e)))
        goto fail;
    run->jobs = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (run->jobs < 1)
        run->jobs = 1;
    if (run->jobs > 64)
        run->jobs = 64;
    run->timings.jobs = run->jobs;
    run->timings.setup_ms = ck_now_ms() - t_start;
    json_object_seed(0);  /* before threads create Jansson objects (Jansson's advice) */
    /* one listing store for the whole traversal (plan, tasks, bookkeeping): each directory of
     * the tree is listed once per check (fsx.c) */
    ck_fs_store *fs = ck_fs_store_new(), *prev = ck_fs_cache_current();
    ck_fs_cache_begin(fs);
    rc = run->rules.unified ? ck_run_unified(run, e) : ck_run_legacy(run, e);
    ck_fs_cache_begin(prev); /* a check run inside another's task gives that one back */
    if (fs)
        ck_defer_free(run, store_free, fs);
    if (rc)
        goto fail;
    if (run->oom) {
        rc = ms_err_oom(e);
        goto fail;
    }
    late_start(run);
    *out = rep;
    return MS_OK;
fail:
    state_free(run);
    free(rep);
    return rc;
}

void ck_report_free(ck_report *r)
{
    if (!r)
        return;
    state_free(&r->st);
    free(r);
}

double ck_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

const ck_timings *ck_report_timings(const ck_report *r)
{
    return &r->st.timings;
}

const ck_state *ck_report_state(const ck_report *r);
const ck_state *ck_report_state(const ck_report *r)
{
    return &r->st;
}

static int finding_counts(const ck_state *run, const ck_finding *f)
{
    return !f->waived && (f->sev == CK_SEV_ERROR || (f->sev == CK_SEV_WARNING && run->o->strict));
}

int ck_report_exit_code(const ck_report *r)
{
    const ck_state *run = &r->st;
    for (size_t i = 0; i < run->nkeys; i++)
        if (!run->keys[i].truthy)
            return MS_FAIL;
    for (size_t i = 0; i < run->findings.n; i++)
        if (finding_counts(run, &run->findings.v[i]))
            return MS_FAIL;
    return MS_OK;
}
