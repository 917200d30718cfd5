/* File-system helpers with Python's semantics (os.path.exists/isdir/isfile follow links),
 * sorted directory listings, files_diff. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checker/internal.h"
#include "common/fsutil.h"


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

/* ---- listing store ----------------------------------------------------------------------
 * The walk of a submitter lists (and stats) every directory under it; the result tasks then
 * list some of the same directories again and ask about the files in them, often several
 * times (exists? a file? its size?). During the parallel phase every listing is kept in a
 * store shared by the worker threads: a directory is listed once per check, and a question
 * about <listed dir>/<name> is answered from the listing (whose entries carry what stat()
 * following links would say) instead of another path lookup; anything else still goes to
 * stat(). The tree does not change during a check. The store lives only as long as one
 * check (ck_run brackets its traversal, ck_parallel each worker thread, with
 * ck_fs_cache_begin/end): outside it nothing is cached, and nothing outlives it (a later check
 * of a changed tree in the same process sees the new tree). Listings are never changed or freed while the store lives, so a pointer found
 * under the lock stays valid after it; memory is capped (STORE_MAX_BYTES: beyond it listings
 * are no longer kept, which costs time, never correctness). */
#define STORE_MAX_BYTES ((size_t)256 << 20)

typedef struct cached_dir {
    char *path;
    size_t plen;
    uint64_t hash;
    int sized;             /* listed with the sizes of its files (ck_dir_read_sized) */
    ck_dir d;
} cached_dir;

/* The store is split in shards by path hash, each with its own lock: the worker threads look
 * listings up all the time (every exists / isfile / size question), and with one lock they
 * queued on it. A waiter that sleeps in the kernel is woken on the CPU of the thread that
 * released the lock, so the threads ended up taking turns on one CPU while the other idled
 * (perf sched: 62% of the check's context switches were waits on that lock). */
#define STORE_SHARDS 64

/* A slot of a shard: the listing and its path hash, kept beside it so that a probe compares
 * hashes without touching the listing (a cache miss each) */
typedef struct store_entry {
    uint64_t hash;
    cached_dir *cd;
} store_entry;

typedef struct {
    pthread_mutex_t mu;
    store_entry *slot;     /* open addressing, nslot a power of 2 */
    size_t nslot, n;
    cached_dir **retired;  /* replaced by a sized listing: freed with the store */
    size_t nretired;
} store_shard;

/* A pattern compiled once per check (ck_re_shared) */
typedef struct shared_re {
    char *pattern;
    uint32_t options;
    pcre2_code *code;
} shared_re;

struct ck_fs_store {
    store_shard sh[STORE_SHARDS];
    _Atomic size_t bytes;  /* of all shards, against STORE_MAX_BYTES */
    pthread_mutex_t re_mu;  /* the compiled patterns, few */
    shared_re *re;
    size_t nre, capre;
};

/* Justified thread state: the store of the parallel phase this thread works in (NULL outside
 * it: no caching). */
static _Thread_local ck_fs_store *tl_store;

/* paths are ~100 bytes and hashed at every exists / isfile / size question: the top bits pick
 * the shard, the low ones the slot */
static uint64_t path_hash(const char *p, size_t n)
{
    return ms_hash_bytes(p, n);
}

/* A stored listing is one block: the cached_dir, its path, its entries, their names (freeing
 * the store at the end of a check is one free() per directory, on the check's serial tail). */
static void cached_free(cached_dir *cd)
{
    free(cd);
}

/* A mutex that spins a little before it sleeps (glibc's adaptive kind) where there is one:
 * a shard's lock is held for a hash probe only */
static int shard_mutex_init(pthread_mutex_t *mu)
{
    pthread_mutexattr_t at;
    if (pthread_mutexattr_init(&at))
        return -1;
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
    (void)pthread_mutexattr_settype(&at, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
    int rc = pthread_mutex_init(mu, &at);
    pthread_mutexattr_destroy(&at);
    return rc ? -1 : 0;
}

ck_fs_store *ck_fs_store_new(void)
{
    ck_fs_store *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    atomic_init(&s->bytes, 0);
    if (pthread_mutex_init(&s->re_mu, NULL)) {
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < STORE_SHARDS; i++)
        if (shard_mutex_init(&s->sh[i].mu)) {
            while (i--)
                pthread_mutex_destroy(&s->sh[i].mu);
            pthread_mutex_destroy(&s->re_mu);
            free(s);
            return NULL;
        }
    return s;
}

void ck_fs_store_free(ck_fs_store *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < STORE_SHARDS; k++) {
        store_shard *sh = &s->sh[k];
        for (size_t i = 0; i < sh->nslot; i++)
            cached_free(sh->slot[i].cd);
        for (size_t i = 0; i < sh->nretired; i++)
            cached_free(sh->retired[i]);
        free(sh->slot);
        free(sh->retired);
        pthread_mutex_destroy(&sh->mu);
    }
    for (size_t i = 0; i < s->nre; i++) {
        free(s->re[i].pattern);
        pcre2_code_free(s->re[i].code);
    }
    free(s->re);
    pthread_mutex_destroy(&s->re_mu);
    free(s);
}

const pcre2_code *ck_re_shared(const char *pattern, uint32_t options)
{
    ck_fs_store *s = tl_store;
    if (!s)
        return NULL;
    const pcre2_code *code = NULL;
    pthread_mutex_lock(&s->re_mu);
    for (size_t i = 0; i < s->nre && !code; i++)
        if (s->re[i].options == options && !strcmp(s->re[i].pattern, pattern))
            code = s->re[i].code;
    if (!code && !MS_GROW(s->re, s->capre, s->nre + 1, 16)) {
        int err;
        PCRE2_SIZE off;
        shared_re r = {strdup(pattern), options, NULL};
        if (r.pattern)
            r.code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, options, &err, &off,
                                   NULL);
        if (r.code) {
            /* matched many times per check (every power result's logs): machine code when
             * PCRE2 can make it (else the interpreter, the same results) */
            if (ms_pcre2_jit_ok())
                (void)pcre2_jit_compile(r.code, PCRE2_JIT_COMPLETE);
            s->re[s->nre++] = r;
            code = r.code;
        } else {
            free(r.pattern);
        }
    }
    pthread_mutex_unlock(&s->re_mu);
    return code;
}

void ck_fs_cache_begin(ck_fs_store *s)
{
    tl_store = s;
}

void ck_fs_cache_end(void)
{
    tl_store = NULL;
}

ck_fs_store *ck_fs_cache_current(void)
{
    return tl_store;
}

/* the shard of a path hash (its top bits; the slots use the low ones) */
static store_shard *shard_of(ck_fs_store *s, uint64_t h)
{
    return &s->sh[h >> 58];
}

/* with sh->mu held */
static store_entry *store_slot(const store_shard *sh, const char *path, size_t plen, uint64_t h)
{
    size_t mask = sh->nslot - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        store_entry *sl = &sh->slot[i];
        if (!sl->cd || (sl->hash == h && sl->cd->plen == plen && !memcmp(sl->cd->path, path, plen)))
            return sl;
    }
}

static const cached_dir *cache_find(const char *path, size_t plen)
{
    ck_fs_store *s = tl_store;
    if (!s)
        return NULL;
    uint64_t h = path_hash(path, plen);
    store_shard *sh = shard_of(s, h);
    pthread_mutex_lock(&sh->mu);
    const cached_dir *cd = sh->nslot ? store_slot(sh, path, plen, h)->cd : NULL;
    pthread_mutex_unlock(&sh->mu);
    return cd;
}

/* A copy in one block: the entries, then their names (packed: ck_dir_free frees the block) */
static int dir_copy(ck_dir *to, const ck_dir *from)
{
    memset(to, 0, sizeof *to);
    if (!from->n)
        return 0;
    size_t bytes = from->n * sizeof *to->v;
    for (size_t i = 0; i < from->n; i++)
        bytes += strlen(from->v[i].name) + 1;
    to->v = malloc(bytes);
    if (!to->v)
        return -1;
    char *names = (char *)(to->v + from->n);
    for (size_t i = 0; i < from->n; i++) {
        size_t len = strlen(from->v[i].name) + 1;
        to->v[i] = from->v[i];
        to->v[i].name = memcpy(names, from->v[i].name, len);
        names += len;
    }
    to->n = from->n;
    to->packed = 1;
    return 0;
}

static void cache_store(const char *path, const ck_dir *d, int sized)
{
    ck_fs_store *s = tl_store;
    if (!s)
        return;
    size_t plen = strlen(path), names = 0;
    for (size_t i = 0; i < d->n; i++)
        names += strlen(d->v[i].name) + 1;
    /* the entries first (aligned after the header), then the names, then the path */
    size_t head = (sizeof(cached_dir) + _Alignof(ck_entry) - 1) / _Alignof(ck_entry) * _Alignof(ck_entry);
    size_t bytes = head + d->n * sizeof *d->v + names + plen + 1;
    cached_dir *cd = malloc(bytes);
    if (!cd)
        return;
    memset(cd, 0, sizeof *cd);
    char *at = (char *)cd + head;
    if (d->n) {
        cd->d.v = (ck_entry *)(void *)at;
        at += d->n * sizeof *d->v;
        for (size_t i = 0; i < d->n; i++) {
            size_t len = strlen(d->v[i].name) + 1;
            cd->d.v[i] = d->v[i];
            cd->d.v[i].name = memcpy(at, d->v[i].name, len);
            at += len;
        }
    }
    cd->d.n = d->n;
    cd->d.packed = 2; /* inside the block: never freed on its own */
    cd->path = memcpy(at, path, plen + 1);
    cd->plen = plen;
    cd->hash = path_hash(path, plen);
    cd->sized = sized;
    if (atomic_fetch_add(&s->bytes, bytes) + bytes > STORE_MAX_BYTES) {
        atomic_fetch_sub(&s->bytes, bytes);
        cached_free(cd);
        return;
    }
    store_shard *sh = shard_of(s, cd->hash);
    pthread_mutex_lock(&sh->mu);
    if ((sh->n + 1) * 2 > sh->nslot) {
        size_t ns = sh->nslot ? sh->nslot * 2 : 64;
        store_entry *nv = calloc(ns, sizeof *nv);
        if (!nv)
            goto drop;
        store_entry *oslot = sh->slot;
        size_t onslot = sh->nslot;
        sh->slot = nv;
        sh->nslot = ns;
        for (size_t i = 0; i < onslot; i++)
            if (oslot[i].cd)
                *store_slot(sh, oslot[i].cd->path, oslot[i].cd->plen, oslot[i].hash) = oslot[i];
        free(oslot);
    }
    store_entry *sl = store_slot(sh, path, plen, cd->hash);
    if (sl->cd) {
        /* listed meanwhile by another thread: keep that one unless this one has sizes */
        if (sl->cd->sized || !sized)
            goto drop;
        cached_dir **nr = realloc(sh->retired, (sh->nretired + 1) * sizeof *nr);
        if (!nr)
            goto drop;
        sh->retired = nr;
        sh->retired[sh->nretired++] = sl->cd;
    } else {
        sh->n++;
    }
    *sl = (store_entry){cd->hash, cd};
    pthread_mutex_unlock(&sh->mu);
    return;
drop:
    pthread_mutex_unlock(&sh->mu);
    atomic_fetch_sub(&s->bytes, bytes);
    cached_free(cd);
}

static int cmp_name(const void *key, const void *en)
{
    return strcmp(key, ((const ck_entry *)en)->name);
}

/* 1 with *en the entry of path (NULL: not in its directory) when path is <listed dir>/<name>,
 * or <listed dir>/<name>/ (then, as for stat(), only a directory, or a link to one, is there);
 * 0 when the store cannot tell (then stat() decides). */
static int cache_lookup(const char *path, const ck_entry **en)
{
    if (!tl_store || !path)
        return 0;
    size_t n = strlen(path);
    int trailing = 0;
    while (n > 1 && path[n - 1] == '/') {
        n--;
        trailing = 1;
    }
    const char *slash = memrchr(path, '/', n);
    if (!slash || slash == path)
        return 0;
    const char *name = slash + 1;
    size_t nl = (size_t)(path + n - name);
    if (!nl || nl >= 256 || (name[0] == '.' && (nl == 1 || (nl == 2 && name[1] == '.'))))
        return 0;
    const cached_dir *cd = cache_find(path, (size_t)(slash - path));
    if (!cd)
        return 0;
    char nm[256];
    memcpy(nm, name, nl);
    nm[nl] = '\0';
    *en = cd->d.n ? bsearch(nm, cd->d.v, cd->d.n, sizeof *cd->d.v, cmp_name) : NULL;
    if (*en && trailing && !(*en)->is_dir)
        *en = NULL;
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
    if (cache_lookup(path, &en)) {
        if (!en || !en->stat_ok)
            return -1;
        if (en->size_known)
            return en->size;
        /* listed without sizes: ask the file system below */
    }
    struct stat st;
    return path && stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const ck_entry *)a)->name, ((const ck_entry *)b)->name);
}

static int dir_read(ck_dir *d, int at, const char *name, int sized, int *keep);

static int dir_read_cached(ck_dir *d, int at, const char *name, const char *path, int sized,
                           int *keep)
{
    if (keep)
        *keep = -1;
    const cached_dir *cd = tl_store ? cache_find(path, strlen(path)) : NULL;
    if (cd && (cd->sized || !sized) && dir_copy(d, &cd->d) == 0)
        return 0;
    if (cd && sized && dir_copy(d, &cd->d) == 0) {
        /* listed without sizes: the same entries, with the sizes of the files added */
        for (size_t i = 0; i < d->n; i++) {
            ck_entry *en = &d->v[i];
            if (en->is_dir || en->size_known || !en->stat_ok)
                continue;
            char *fp = ck_join(path, en->name);
            struct stat st;
            if (fp && stat(fp, &st) == 0) {
                en->size = (long long)st.st_size;
                en->size_known = 1;
            }
            free(fp);
        }
        cache_store(path, d, 1);
        return 0;
    }
    int rc = dir_read(d, at, name, sized, keep);
    if (rc == 0)
        cache_store(path, d, sized);
    return rc;
}

int ck_dir_read(ck_dir *d, const char *path)
{
    return dir_read_cached(d, AT_FDCWD, path, path, 0, NULL);
}

int ck_dir_read_sized(ck_dir *d, const char *path)
{
    return dir_read_cached(d, AT_FDCWD, path, path, 1, NULL);
}

int ck_dir_read_sized_at(ck_dir *d, int at, const char *name, const char *path, int *keep)
{
    return dir_read_cached(d, at, name, path, 1, keep);
}

/* One listing: getdents64 on a descriptor opened here (opendir would add an fstat per
 * directory), and the type of an entry from the listing itself when the file system gives it:
 * a regular file or a directory that is not a link needs no stat() to answer exists / isdir /
 * isfile (os.path's questions); links and unknown types are stat'ed (following the link) as
 * before. sized: also stat every non-directory for its size (the walk's size limit); otherwise
 * a regular file's size is left unknown (size_known 0) and ck_fsize asks for it. */
static int dir_read(ck_dir *d, int at, const char *name, int sized, int *keep)
{
    memset(d, 0, sizeof *d);
    int dfd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        d->err = errno;
        return -1;
    }
    size_t cap = 0;
    /* aligned for struct dirent64 */
    _Alignas(struct dirent64) char buf[32 * 1024];
    for (;;) {
        ssize_t got = getdents64(dfd, buf, sizeof buf);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            d->err = errno;
            close(dfd);
            ck_dir_free(d);
            return -1;
        }
        if (got == 0)
            break;
        for (ssize_t off = 0; off < got;) {
            const struct dirent64 *de = (const struct dirent64 *)(const void *)(buf + off);
            off += de->d_reclen;
            const char *nm = de->d_name;
            if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
                continue;
            if (MS_GROW(d->v, cap, d->n + 1, 16))
                goto oom;
            ck_entry *en = &d->v[d->n];
            memset(en, 0, sizeof *en);
            en->name = strdup(nm);
            if (!en->name)
                goto oom;
            en->size = -1;
            en->listing_pos = d->n;
            d->n++;
            struct stat st;
            if (de->d_type == DT_DIR) {
                en->stat_ok = en->is_dir = 1;
                continue;
            }
            if (de->d_type == DT_REG && !sized) {
                en->stat_ok = en->is_file = 1;
                continue;
            }
            int is_link = de->d_type == DT_LNK;
            if (de->d_type == DT_UNKNOWN || is_link) {
                if (fstatat(dfd, nm, &st, AT_SYMLINK_NOFOLLOW) == 0)
                    is_link = S_ISLNK(st.st_mode);
            }
            en->is_link = (unsigned char)is_link;
            if (fstatat(dfd, nm, &st, 0) == 0) {
                en->stat_ok = 1;
                en->is_dir = S_ISDIR(st.st_mode);
                en->is_file = S_ISREG(st.st_mode);
                en->size = (long long)st.st_size;
                en->size_known = 1;
            }
        }
    }
    if (keep)
        *keep = dfd;
    else
        close(dfd);
    if (d->n > 1)
        qsort(d->v, d->n, sizeof *d->v, cmp_entry);
    return 0;
oom:
    close(dfd);
    ck_dir_free(d);
    d->err = ENOMEM;
    return -1;
}

void ck_dir_free(ck_dir *d)
{
    for (size_t i = 0; i < d->n && !d->packed; i++)
        free(d->v[i].name);
    free(d->v);
    d->v = NULL;
    d->n = 0;
    d->packed = 0;
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
