/* audit replay over a whole submission tree: every mlperf_log_detail.txt under the results/ and
 * compliance/ directories (measurements/ holds no LoadGen logs, code/ is not walked, nor hidden
 * folders), replayed by a pool of threads,
 * with the verdict of each log and its submitter (<division>/<submitter>). */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/audit_int.h"
#include "common/buf.h"
#include "common/fsutil.h"

typedef struct plist {
    char **v;
    size_t n, cap;
} plist;

static int plist_add(plist *l, char *p)
{
    if (!p)
        return -1;
    if (MS_GROW(l->v, l->cap, l->n + 1, 64)) {
        free(p);
        return -1;
    }
    l->v[l->n++] = p;
    return 0;
}

/* in: the directory is under a results/ or compliance/ component */
static int walk(const char *dir, int in, plist *out, ms_err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return ms_err_set(e, MS_EINPUT, "%s: cannot open the directory", dir);
    struct dirent *de;
    int rc = MS_OK;
    while (rc == MS_OK && (de = readdir(d)) != NULL) {
        const char *nm = de->d_name;
        if (nm[0] == '.')
            continue;
        /* a submitter's code/ may ship example logs: they are no results */
        if (!in && !strcmp(nm, "code"))
            continue;
        char *p = ms_path_join(dir, nm);
        if (!p) {
            rc = ms_err_oom(e);
            break;
        }
        struct stat st;
        if (lstat(p, &st) != 0 || S_ISLNK(st.st_mode)) {
            free(p);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            rc = walk(p, in || !strcmp(nm, "results") || !strcmp(nm, "compliance"), out, e);
            free(p);
        } else if (S_ISREG(st.st_mode) && in && !strcmp(nm, "mlperf_log_detail.txt")) {
            if (plist_add(out, p) != 0)
                rc = ms_err_oom(e);
        } else {
            free(p);
        }
    }
    closedir(d);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* <division>/<submitter> of root-relative path rel: the two components before results/ or
 * compliance/ */
static char *submitter_of(const char *rel)
{
    const char *hit = NULL;
    for (const char *p = rel; *p; p++) {
        if ((p == rel || p[-1] == '/') && (!strncmp(p, "results/", 8) || !strncmp(p, "compliance/", 11))) {
            hit = p;
            break;
        }
    }
    if (!hit || hit == rel)
        return strdup("(outside a submitter)");
    const char *end = hit - 1; /* the '/' before results */
    const char *s = end;
    int slashes = 0;
    while (s > rel) {
        if (s[-1] == '/' && ++slashes == 2)
            break;
        s--;
    }
    return strndup(s, (size_t)(end - s));
}

typedef struct pool {
    au_replay_item *items;
    size_t n;
    atomic_size_t next;
    const au_replay_opts *o;
    const au_rules *r;
    int keep_report;
} pool;

static void *worker(void *arg)
{
    pool *pl = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&pl->next, 1);
        if (i >= pl->n)
            break;
        au_replay_item *it = &pl->items[i];
        ms_buf out = MS_BUF_INIT;
        ms_err e = {0};
        it->rc = au_replay(it->path, pl->o, pl->r, &out, &it->res, &e);
        if (it->rc != MS_OK) {
            it->error = strdup(e.msg);
            it->res.verdict = AU_REPLAY_CANNOT_TELL;
        }
        if (pl->keep_report) {
            it->report = out.data;
            out.data = NULL;
        }
        ms_buf_free(&out);
    }
    return NULL;
}

int au_replay_tree(const char *root, const au_replay_opts *o, const au_rules *r, int jobs, int keep_reports,
                   au_replay_tree_result *out, ms_err *e)
{
    memset(out, 0, sizeof *out);
    plist l = {0};
    if (!ms_is_dir(root))
        return ms_err_set(e, MS_EINPUT, "%s: not a directory", root);
    /* a root that is itself inside results/ or compliance/ */
    int in = strstr(root, "/results") != NULL || strstr(root, "/compliance") != NULL ||
             !strncmp(root, "results", 7) || !strncmp(root, "compliance", 10);
    int rc = walk(root, in, &l, e);
    if (rc != MS_OK) {
        for (size_t i = 0; i < l.n; i++)
            free(l.v[i]);
        free(l.v);
        return rc;
    }
    qsort(l.v, l.n, sizeof *l.v, cmp_str);
    out->items = calloc(l.n ? l.n : 1, sizeof *out->items);
    if (!out->items) {
        for (size_t i = 0; i < l.n; i++)
            free(l.v[i]);
        free(l.v);
        return ms_err_oom(e);
    }
    size_t rl = strlen(root);
    for (size_t i = 0; i < l.n; i++) {
        au_replay_item *it = &out->items[i];
        it->path = l.v[i];
        const char *rel = it->path + (strncmp(it->path, root, rl) == 0 ? rl : 0);
        while (*rel == '/')
            rel++;
        it->submitter = submitter_of(rel);
        out->n++;
        if (!it->submitter) {
            free(l.v);
            return ms_err_oom(e);
        }
    }
    free(l.v);
    pool pl = {.items = out->items, .n = out->n, .o = o, .r = r, .keep_report = keep_reports};
    atomic_init(&pl.next, 0);
    if (jobs < 1)
        jobs = 1;
    if ((size_t)jobs > out->n)
        jobs = out->n ? (int)out->n : 1;
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    if (!th)
        return ms_err_oom(e);
    int started = 0;
    for (int i = 1; i < jobs; i++) {
        if (pthread_create(&th[i], NULL, worker, &pl) != 0)
            break;
        started++;
    }
    worker(&pl); /* the calling thread works too */
    for (int i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    free(th);
    return MS_OK;
}

void au_replay_tree_free(au_replay_tree_result *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->items[i].path);
        free(t->items[i].submitter);
        free(t->items[i].error);
        free(t->items[i].report);
    }
    free(t->items);
    memset(t, 0, sizeof *t);
}
