/* File-system helpers with Python's semantics (os.path.exists/isdir/isfile follow links),
 * sorted directory listings, files_diff. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checker/internal.h"
#include "common/fsutil.h"

char *ck_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

char *ck_join(const char *a, const char *b)
{
    return ms_path_join(a, b);
}

char *ck_join3(const char *a, const char *b, const char *c)
{
    char *ab = ms_path_join(a, b);
    if (!ab)
        return NULL;
    char *r = ms_path_join(ab, c);
    free(ab);
    return r;
}

/* ---- listing cache ----------------------------------------------------------------------
 * A task (one result directory, one submitter's walk) lists a few directories and then asks
 * about the files in them, often several times (exists? a file? its size?). Inside a task the
 * last CACHE_DIRS listings are kept, and a question about <listed dir>/<name> is answered from
 * the listing (whose entries were stat'ed following links, as stat() would) instead of another
 * path lookup; anything else still goes to stat(). The tree does not change during a check.
 * The cache is per thread and lives only between ck_fs_cache_begin and ck_fs_cache_end, which
 * the worker pool calls around each task: outside tasks nothing is cached, and nothing
 * outlives a task (a later check of a changed tree in the same process sees the new tree). */
#define CACHE_DIRS 16

typedef struct cached_dir {
    char *path;
    size_t plen;
    ck_dir d;
} cached_dir;

typedef struct fs_cache {
    cached_dir v[CACHE_DIRS];
    size_t next;
} fs_cache;

/* Justified thread state: the cache of the task running on this thread (NULL outside tasks). */
static _Thread_local fs_cache *tl_cache;

void ck_fs_cache_begin(void)
{
    ck_fs_cache_end();
    tl_cache = calloc(1, sizeof *tl_cache); /* NULL (no memory): no caching */
}

void ck_fs_cache_end(void)
{
    fs_cache *c = tl_cache;
    if (!c)
        return;
    for (size_t i = 0; i < CACHE_DIRS; i++) {
        free(c->v[i].path);
        ck_dir_free(&c->v[i].d);
    }
    free(c);
    tl_cache = NULL;
}

static const cached_dir *cache_find(const char *path, size_t plen)
{
    for (size_t i = 0; tl_cache && i < CACHE_DIRS; i++) {
        const cached_dir *cd = &tl_cache->v[i];
        if (cd->path && cd->plen == plen && !memcmp(cd->path, path, plen))
            return cd;
    }
    return NULL;
}

static int dir_copy(ck_dir *to, const ck_dir *from)
{
    memset(to, 0, sizeof *to);
    if (!from->n)
        return 0;
    to->v = calloc(from->n, sizeof *to->v);
    if (!to->v)
        return -1;
    for (size_t i = 0; i < from->n; i++) {
        to->v[i] = from->v[i];
        to->v[i].name = strdup(from->v[i].name);
        if (!to->v[i].name) {
            to->n = i;
            ck_dir_free(to);
            return -1;
        }
    }
    to->n = from->n;
    return 0;
}

static void cache_store(const char *path, const ck_dir *d)
{
    fs_cache *c = tl_cache;
    if (!c)
        return;
    cached_dir *cd = &c->v[c->next];
    free(cd->path);
    ck_dir_free(&cd->d);
    cd->path = strdup(path);
    if (!cd->path || dir_copy(&cd->d, d)) {
        free(cd->path);
        cd->path = NULL;
        return;
    }
    cd->plen = strlen(path);
    c->next = (c->next + 1) % CACHE_DIRS;
}

static int cmp_name(const void *key, const void *en)
{
    return strcmp(key, ((const ck_entry *)en)->name);
}

/* 1 with *en the entry of path (NULL: not in its directory) when path is <cached dir>/<name>;
 * 0 when the cache cannot tell (then stat() decides). */
static int cache_lookup(const char *path, const ck_entry **en)
{
    if (!tl_cache || !path)
        return 0;
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return 0;
    const char *name = slash + 1;
    if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
        return 0;
    const cached_dir *cd = cache_find(path, (size_t)(slash - path));
    if (!cd)
        return 0;
    *en = cd->d.n ? bsearch(name, cd->d.v, cd->d.n, sizeof *cd->d.v, cmp_name) : NULL;
    return 1;
}

int ck_pexists(const char *path)
{
    const ck_entry *en;
    if (cache_lookup(path, &en))
        return en && en->stat_ok;
    struct stat st;
    return path && stat(path, &st) == 0;
}

int ck_isdir(const char *path)
{
    const ck_entry *en;
    if (cache_lookup(path, &en))
        return en && en->is_dir;
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ck_isfile(const char *path)
{
    const ck_entry *en;
    if (cache_lookup(path, &en))
        return en && en->is_file;
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

long long ck_fsize(const char *path)
{
    const ck_entry *en;
    if (cache_lookup(path, &en))
        return en && en->stat_ok ? en->size : -1;
    struct stat st;
    return path && stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const ck_entry *)a)->name, ((const ck_entry *)b)->name);
}

static int dir_read(ck_dir *d, const char *path);

int ck_dir_read(ck_dir *d, const char *path)
{
    const cached_dir *cd = tl_cache ? cache_find(path, strlen(path)) : NULL;
    if (cd && dir_copy(d, &cd->d) == 0)
        return 0;
    int rc = dir_read(d, path);
    if (rc == 0)
        cache_store(path, d);
    return rc;
}

static int dir_read(ck_dir *d, const char *path)
{
    memset(d, 0, sizeof *d);
    /* opendir, not open + fdopendir: fdopendir checks the descriptor with fcntl, one system
     * call more per directory (the checker lists every directory of the round, some twice) */
    DIR *dir = opendir(path);
    if (!dir) {
        d->err = errno;
        return -1;
    }
    int dfd = dirfd(dir);
    size_t cap = 0;
    for (struct dirent *de; (de = readdir(dir));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (d->n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            ck_entry *nv = realloc(d->v, nc * sizeof *nv);
            if (!nv)
                goto oom;
            d->v = nv;
            cap = nc;
        }
        ck_entry *en = &d->v[d->n];
        memset(en, 0, sizeof *en);
        en->name = strdup(de->d_name);
        if (!en->name)
            goto oom;
        en->size = -1;
        en->listing_pos = d->n;
        struct stat st;
        int is_link = de->d_type == DT_LNK;
        if (de->d_type == DT_UNKNOWN || is_link) {
            if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                is_link = S_ISLNK(st.st_mode);
        }
        en->is_link = (unsigned char)is_link;
        if (fstatat(dfd, de->d_name, &st, 0) == 0) {
            en->stat_ok = 1;
            en->is_dir = S_ISDIR(st.st_mode);
            en->is_file = S_ISREG(st.st_mode);
            en->size = (long long)st.st_size;
        }
        d->n++;
    }
    closedir(dir);
    if (d->n > 1)
        qsort(d->v, d->n, sizeof *d->v, cmp_entry);
    return 0;
oom:
    closedir(dir);
    ck_dir_free(d);
    d->err = ENOMEM;
    return -1;
}

void ck_dir_free(ck_dir *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].name);
    free(d->v);
    d->v = NULL;
    d->n = 0;
}

static int in_list(const json_t *l, const char *const *extra, const char *s)
{
    if (ck_jlist_has(l, s))
        return 1;
    for (size_t i = 0; extra && extra[i]; i++)
        if (!strcmp(extra[i], s))
            return 1;
    return 0;
}

static int diff_add(ms_buf *b, int *count, const char *name)
{
    return ms_buf_puts(b, (*count)++ ? ", '" : "{'") || ms_buf_puts(b, name) || ms_buf_putc(b, '\'');
}

int ck_files_diff(const ck_rules *r, const char *dir, const json_t *required,
                  const json_t *optional, const char *const *extra_required, char **diff)
{
    *diff = NULL;
    ck_dir d;
    ck_dir_read(&d, dir);
    const json_t *ignored = ck_rget(r, "always_ignored_in_file_set_comparison");
    ms_buf b = MS_BUF_INIT;
    int count = 0, rc = 0;
    /* names present but not required (sorted), then required but absent (in rules order) */
    for (size_t i = 0; i < d.n; i++) {
        const ck_entry *en = &d.v[i];
        if (!en->is_file || in_list(required, extra_required, en->name) ||
            ck_jlist_has(optional, en->name) || ck_jlist_has(ignored, en->name))
            continue;
        if (diff_add(&b, &count, en->name))
            goto oom;
    }
    const char *req_all[64];
    size_t nreq = 0;
    for (size_t i = 0; i < json_array_size(required) && nreq < 60; i++)
        req_all[nreq++] = json_string_value(json_array_get(required, i));
    for (size_t i = 0; extra_required && extra_required[i] && nreq < 64; i++)
        req_all[nreq++] = extra_required[i];
    for (size_t i = 0; i < nreq; i++) {
        const char *want = req_all[i];
        int present = 0;
        for (size_t k = 0; k < d.n && !present; k++)
            present = d.v[k].is_file && !strcmp(d.v[k].name, want);
        if (present || ck_jlist_has(optional, want) || ck_jlist_has(ignored, want))
            continue;
        if (diff_add(&b, &count, want))
            goto oom;
    }
    if (count) {
        if (ms_buf_putc(&b, '}'))
            goto oom;
        *diff = ms_buf_steal(&b);
    }
    goto done;
oom:
    rc = -1;
    ms_buf_free(&b);
done:
    ck_dir_free(&d);
    return rc;
}

int ck_read_text(const char *path, size_t max, char **out, size_t *len, ms_err *e)
{
    return ms_read_file(path, max, out, len, e);
}
