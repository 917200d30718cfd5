/* Dataset checksums: the tree walk and the parallel hashing pool.
 *
 * The walk descends with openat(O_NOFOLLOW | O_DIRECTORY) from the parent's descriptor, so it
 * never follows a symbolic link and cannot leave the root; a directory already on the current
 * path (a bind-mount loop) is skipped. Each regular file is recorded with its size, device and
 * inode; workers later open it by its path relative to the root (O_NOFOLLOW) and check that the
 * descriptor is still that regular file before hashing it. The manifest's walk (no progress
 * line) takes a regular file's type from its directory entry instead and the worker's fstat
 * gives its size and identity (ms_ds_walk_hash).
 *
 * The pool is a fixed set of threads that take whole files from a shared atomic cursor, largest
 * first (so one big file does not finish alone at the end), each with its own read buffer and
 * digest context; the calling thread only waits and updates the progress line. */
#include "common/treehash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include "common/lazy_crypto.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/treehash_int.h"
#include "common/buf.h"
#include "common/strutil.h"

/* ---- tree walk ---------------------------------------------------------------------------- */

struct dir_id {
    uint64_t dev, ino;
};

/* Called with the index in t->files of each regular file as the walk finds it; stated = 0 when
 * the file was not stat'ed (size, dev and ino are 0). Non-zero stops the walk (allocation). */
typedef int (*walk_file_cb)(void *ctx, size_t idx, int stated);

struct walk {
    ms_ds_tree *t;
    walk_file_cb cb;      /* called for each regular file as it is found (may be NULL) */
    void *cb_ctx;
    int lazy;             /* regular files by the directory entry's type, without a stat */
    ms_buf path;          /* relative path of the current entry */
    struct dir_id *stack; /* directories on the current path (loop detection) */
    size_t depth, cap;
    ms_err *e;
};

/* st NULL: not stat'ed (the lazy walk); size, dev and ino stay 0 until the hashing fills them. */
static int add_file(ms_ds_tree *t, const char *path, const struct stat *st)
{
    if (MS_GROW(t->files, t->capfiles, t->nfiles + 1, 32))
        return -1;
    char *p = strdup(path);
    if (!p)
        return -1;
    ms_ds_file *f = &t->files[t->nfiles++];
    f->path = p;
    f->size = st ? (uint64_t)st->st_size : 0;
    f->dev = st ? (uint64_t)st->st_dev : 0;
    f->ino = st ? (uint64_t)st->st_ino : 0;
    t->total_bytes += f->size;
    return 0;
}

static int add_skipped(ms_ds_tree *t, const char *path, ms_ds_skip_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int add_skipped(ms_ds_tree *t, const char *path, ms_ds_skip_kind kind, const char *fmt, ...)
{
    if (MS_GROW(t->skipped, t->capskipped, t->nskipped + 1, 32))
        return -1;
    ms_buf r = MS_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    int bad = ms_buf_vprintf(&r, fmt, ap);
    va_end(ap);
    char *p = strdup(path);
    if (bad || !p) {
        ms_buf_free(&r);
        free(p);
        return -1;
    }
    ms_ds_skipped *s = &t->skipped[t->nskipped++];
    s->path = p;
    s->kind = kind;
    s->reason = ms_buf_steal(&r);
    return 0;
}

static const char *special_kind(mode_t m)
{
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m))
        return "a character device";
    if (S_ISBLK(m))
        return "a block device";
    return "not a regular file";
}

/* Walks the directory open at dfd (taken over and closed) whose relative path is w->path. */
static int walk_dir(struct walk *w, int dfd)
{
    ms_ds_tree *t = w->t;
    const char *shown = w->path.len ? w->path.data : ".";
    DIR *d = fdopendir(dfd);
    if (!d) {
        int er = errno;
        close(dfd);
        return add_skipped(t, shown, MS_DS_SKIP_UNREADABLE, "cannot list directory: %s", strerror(er))
                   ? ms_err_oom(w->e)
                   : MS_OK;
    }
    size_t base = w->path.len;
    int rc = MS_OK;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (!de) {
            if (errno) {
                int er = errno;
                w->path.len = base;
                if (w->path.data)
                    w->path.data[base] = '\0';
                if (add_skipped(t, w->path.len ? w->path.data : ".", MS_DS_SKIP_UNREADABLE,
                                "error while listing directory: %s", strerror(er)))
                    rc = ms_err_oom(w->e);
            }
            break;
        }
        const char *nm = de->d_name;
        if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
            continue;
        w->path.len = base;
        if ((base && ms_buf_putc(&w->path, '/')) || ms_buf_puts(&w->path, nm)) {
            rc = ms_err_oom(w->e);
            break;
        }
        /* The lazy walk (a manifest) takes a regular file's type from its directory entry and
         * leaves the stat to the worker that opens it: one path lookup and system call less
         * per file, in the serial part. Other types, and file systems that do not fill d_type
         * (DT_UNKNOWN), are stat'ed here. */
        if (w->lazy && de->d_type == DT_REG) {
            int bad = add_file(t, w->path.data, NULL);
            if (!bad && w->cb)
                bad = w->cb(w->cb_ctx, t->nfiles - 1, 0);
            if (bad) {
                rc = ms_err_oom(w->e);
                break;
            }
            continue;
        }
        struct stat st;
        if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) /* vanished since readdir */
                continue;
            if (add_skipped(t, w->path.data, MS_DS_SKIP_UNREADABLE, "cannot stat: %s", strerror(errno))) {
                rc = ms_err_oom(w->e);
                break;
            }
            continue;
        }
        int bad = 0;
        if (S_ISREG(st.st_mode)) {
            bad = add_file(t, w->path.data, &st);
            if (!bad && w->cb)
                bad = w->cb(w->cb_ctx, t->nfiles - 1, 1);
        } else if (S_ISLNK(st.st_mode)) {
            bad = add_skipped(t, w->path.data, MS_DS_SKIP_SYMLINK, "symbolic link (not followed)");
        } else if (!S_ISDIR(st.st_mode)) {
            bad = add_skipped(t, w->path.data, MS_DS_SKIP_SPECIAL, "%s (only regular files are checked)",
                              special_kind(st.st_mode));
        } else {
            int sfd = openat(dirfd(d), nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sfd < 0) {
                bad = add_skipped(t, w->path.data, MS_DS_SKIP_UNREADABLE, "cannot open directory: %s",
                                  strerror(errno));
            } else {
                struct stat ds;
                int loop = 0;
                if (fstat(sfd, &ds) == 0)
                    for (size_t k = 0; k < w->depth; k++)
                        if (w->stack[k].dev == (uint64_t)ds.st_dev && w->stack[k].ino == (uint64_t)ds.st_ino)
                            loop = 1;
                if (loop) {
                    close(sfd);
                    bad = add_skipped(t, w->path.data, MS_DS_SKIP_SPECIAL,
                                      "directory already on the path (bind-mount loop), not entered");
                } else {
                    if (MS_GROW(w->stack, w->cap, w->depth + 1, 32)) {
                        close(sfd);
                        rc = ms_err_oom(w->e);
                        break;
                    }
                    w->stack[w->depth++] = (struct dir_id){(uint64_t)ds.st_dev, (uint64_t)ds.st_ino};
                    rc = walk_dir(w, sfd);
                    w->depth--;
                    if (rc)
                        break;
                }
            }
        }
        if (bad) {
            rc = ms_err_oom(w->e);
            break;
        }
    }
    closedir(d);
    return rc;
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const ms_ds_file *)a)->path, ((const ms_ds_file *)b)->path);
}

static int cmp_skipped(const void *a, const void *b)
{
    return strcmp(((const ms_ds_skipped *)a)->path, ((const ms_ds_skipped *)b)->path);
}

int ms_ds_walk(const char *root, ms_ds_tree *t, ms_err *e)
{
    return ms_ds_walk_cb(root, t, NULL, NULL, e);
}

/* The walk without its end (walk_end): t is left as it is on failure, unsorted. */
static int walk_core(const char *root, ms_ds_tree *t, walk_file_cb cb, void *ctx, int lazy, ms_err *e)
{
    memset(t, 0, sizeof *t);
    /* the root itself may be a symlink to a directory: the user named it */
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open the dataset directory", root);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int er = errno;
        close(fd);
        return ms_err_errno(e, MS_EINPUT, er, "%s: cannot stat", root);
    }
    struct walk w = {.t = t, .cb = cb, .cb_ctx = ctx, .lazy = lazy, .path = MS_BUF_INIT, .e = e};
    if (MS_GROW(w.stack, w.cap, 1, 32) || ms_buf_reserve(&w.path, 256)) {
        free(w.stack);
        close(fd);
        return ms_err_oom(e);
    }
    w.stack[w.depth++] = (struct dir_id){(uint64_t)st.st_dev, (uint64_t)st.st_ino};
    w.path.data[0] = '\0';
    int rc = walk_dir(&w, fd);
    free(w.stack);
    ms_buf_free(&w.path);
    if (rc == MS_OK && t->nskipped == 1 && !strcmp(t->skipped[0].path, ".") && t->nfiles == 0 &&
        t->skipped[0].kind == MS_DS_SKIP_UNREADABLE) {
        rc = ms_err_set(e, MS_EINPUT, "%s: %s", root, t->skipped[0].reason);
    }
    return rc;
}

/* Frees t after a failed walk (returning rc), or sorts it. */
static int walk_end(ms_ds_tree *t, int rc)
{
    if (rc != MS_OK) {
        ms_ds_tree_free(t);
        return rc;
    }
    if (t->nfiles > 1)
        qsort(t->files, t->nfiles, sizeof *t->files, cmp_file);
    if (t->nskipped > 1)
        qsort(t->skipped, t->nskipped, sizeof *t->skipped, cmp_skipped);
    return MS_OK;
}

struct public_cb {
    ms_ds_tree *t;
    ms_ds_file_cb cb;
    void *ctx;
};

static int call_public_cb(void *ctx, size_t idx, int stated)
{
    (void)stated; /* always 1: the public walk stats every file */
    struct public_cb *pc = ctx;
    return pc->cb(pc->ctx, &pc->t->files[idx]);
}

int ms_ds_walk_cb(const char *root, ms_ds_tree *t, ms_ds_file_cb cb, void *ctx, ms_err *e)
{
    struct public_cb pc = {t, cb, ctx};
    return walk_end(t, walk_core(root, t, cb ? call_public_cb : NULL, &pc, 0, e));
}

void ms_ds_tree_free(ms_ds_tree *t)
{
    for (size_t i = 0; i < t->nfiles; i++)
        free(t->files[i].path);
    for (size_t i = 0; i < t->nskipped; i++) {
        free(t->skipped[i].path);
        free(t->skipped[i].reason);
    }
    free(t->files);
    free(t->skipped);
    memset(t, 0, sizeof *t);
}

int ms_ds_tree_exclude(ms_ds_tree *t, uint64_t dev, uint64_t ino)
{
    for (size_t i = 0; i < t->nfiles; i++) {
        if (t->files[i].dev != dev || t->files[i].ino != ino)
            continue;
        t->total_bytes -= t->files[i].size;
        free(t->files[i].path);
        memmove(&t->files[i], &t->files[i + 1], (t->nfiles - i - 1) * sizeof *t->files);
        t->nfiles--;
        return 1;
    }
    return 0;
}

/* ---- parallel hashing --------------------------------------------------------------------- */

int ms_ds_cpu_count(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Read block: large enough to amortise the system calls, small enough to stay in the L2
 * cache between the copy from the page cache and the digest. */
#define DS_BLOCK (256u * 1024u)

/* Files up to this size are queued as the walk finds them; larger ones wait for the end of the
 * walk and go largest first, so that one big file does not finish alone at the end. A file the
 * lazy walk did not stat is queued at once; the worker that finds it larger puts it back
 * (pool.defer) for the caller to queue after the others (pool_drain). */
#define DS_STREAM_MAX (4u * DS_BLOCK)

struct pool {
    int rootfd;
    EVP_MD *md;
    pthread_mutex_t mu;
    pthread_cond_t work;  /* a job was queued, or the queue was closed */
    pthread_cond_t done;  /* a worker exited, or the queue drained while the caller waits */
    ms_ds_job **q;        /* the queue: jobs in the order they are taken (under mu) */
    size_t qn, qcap, qnext;
    int closed;           /* no more jobs will be queued (under mu) */
    uint64_t total;       /* bytes queued, for the progress line (under mu) */
    atomic_uint_fast64_t bytes_done;
    atomic_int stop;
    int waiting;          /* workers waiting for a job (under mu) */
    int active;           /* jobs taken and not yet done (under mu) */
    int draining;         /* the caller waits in pool_drain (under mu) */
    ms_ds_job **defer;    /* files found over DS_STREAM_MAX by their worker (under mu) */
    size_t ndefer, capdefer;
    int defer_oom;        /* the defer list could not grow (under mu) */
    int finished;         /* workers that have exited (under mu) */
    int fatal;            /* a worker could not allocate its buffers (under mu) */
    int started;
    pthread_t *tids;
};

static void job_fail(ms_ds_job *j, int er, const char *what)
{
    char eb[128];
    const char *s = strerror_r(er, eb, sizeof eb);
    j->failed = 1;
    snprintf(j->err, sizeof j->err, "%s: %s", what, s);
}

/* Returns 1 when the job was put back: a file the walk did not stat turned out larger than
 * DS_STREAM_MAX (its size and identity are now set, the caller defers it), 0 otherwise. */
static int hash_one(struct pool *p, ms_ds_job *j, unsigned char *buf, EVP_MD_CTX *ctx)
{
    j->failed = 0;
    j->bytes = 0;
    j->digest[0] = '\0';
    int fd = openat(p->rootfd, j->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ELOOP) {
            j->failed = 1;
            snprintf(j->err, sizeof j->err, "symbolic link (not followed)");
        } else {
            job_fail(j, errno, "cannot open");
        }
        return 0;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        job_fail(j, errno, "cannot stat");
        close(fd);
        return 0;
    }
    if (!S_ISREG(st.st_mode) || (!j->identify && (j->dev || j->ino) &&
                                 ((uint64_t)st.st_dev != j->dev || (uint64_t)st.st_ino != j->ino))) {
        j->failed = 1;
        snprintf(j->err, sizeof j->err, "replaced while being checked (no longer the file listed)");
        close(fd);
        return 0;
    }
    if (j->identify) {
        j->size = (uint64_t)st.st_size;
        j->dev = (uint64_t)st.st_dev;
        j->ino = (uint64_t)st.st_ino;
        if (j->size > DS_STREAM_MAX) {
            j->identify = 0; /* hashed later, checked against this identity */
            close(fd);
            return 1;
        }
    }
    if ((uint64_t)st.st_size > DS_BLOCK)
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (!EVP_DigestInit_ex2(ctx, p->md, NULL)) {
        j->failed = 1;
        snprintf(j->err, sizeof j->err, "digest initialisation failed");
        close(fd);
        return 0;
    }
    uint64_t total = 0, size = (uint64_t)st.st_size;
    for (;;) {
        /* Ask for one byte more than the rest of the size fstat saw: a regular file returns
         * fewer bytes than asked only at its end, so a file read in full needs no extra read
         * that returns 0 (one system call less per file: most files of a dataset are small).
         * A file that grew meanwhile gives a full block, and the loop reads on to the end. */
        size_t want = DS_BLOCK;
        if (total <= size && size - total < DS_BLOCK)
            want = (size_t)(size - total) + 1;
        ssize_t r = read(fd, buf, want);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            job_fail(j, errno, "read error");
            close(fd);
            return 0;
        }
        if (r == 0)
            break;
        total += (uint64_t)r;
        atomic_fetch_add_explicit(&p->bytes_done, (uint64_t)r, memory_order_relaxed);
        if (!EVP_DigestUpdate(ctx, buf, (size_t)r)) {
            j->failed = 1;
            snprintf(j->err, sizeof j->err, "digest update failed");
            close(fd);
            return 0;
        }
        if ((size_t)r < want && total >= size)
            break; /* the end of the file */
    }
    close(fd);
    unsigned char dig[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    if (!EVP_DigestFinal_ex(ctx, dig, &dlen) || 2 * dlen >= MS_DS_HEX_MAX) {
        j->failed = 1;
        snprintf(j->err, sizeof j->err, "digest finalisation failed");
        return 0;
    }
    ms_hex_lower(dig, dlen, j->digest);
    j->bytes = total;
    return 0;
}

static void *worker(void *arg)
{
    struct pool *p = arg;
    unsigned char *buf = malloc(DS_BLOCK);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int fatal = !buf || !ctx;
    if (fatal)
        atomic_store(&p->stop, 1);
    ms_ds_job *deferred = NULL;
    int had = 0;
    while (!fatal) {
        pthread_mutex_lock(&p->mu);
        /* the end of the previous job, under the lock taken for the next one */
        if (had)
            p->active--;
        if (deferred) {
            if (MS_GROW(p->defer, p->capdefer, p->ndefer + 1, 32)) {
                p->defer_oom = 1;
                atomic_store(&p->stop, 1);
                pthread_cond_broadcast(&p->work);
            } else {
                p->defer[p->ndefer++] = deferred;
            }
            deferred = NULL;
        }
        if (p->draining && p->active == 0 && p->qnext == p->qn)
            pthread_cond_signal(&p->done);
        while (p->qnext == p->qn && !p->closed && !atomic_load(&p->stop)) {
            p->waiting++;
            pthread_cond_wait(&p->work, &p->mu);
            p->waiting--;
        }
        ms_ds_job *j = NULL;
        if (!atomic_load(&p->stop) && p->qnext < p->qn)
            j = p->q[p->qnext++];
        had = j != NULL;
        p->active += had;
        pthread_mutex_unlock(&p->mu);
        if (!j)
            break;
        if (hash_one(p, j, buf, ctx))
            deferred = j;
    }
    free(buf);
    EVP_MD_CTX_free(ctx);
    pthread_mutex_lock(&p->mu);
    p->finished++;
    if (fatal)
        p->fatal = 1;
    pthread_cond_broadcast(&p->work); /* a failed start stops the others */
    pthread_cond_signal(&p->done);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

struct order_key {
    uint64_t size;
    size_t idx;
};

static int cmp_order(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static const char *ossl_name(const char *algo)
{
    if (!strcmp(algo, "sha256"))
        return "SHA256";
    if (!strcmp(algo, "sha1"))
        return "SHA1";
    if (!strcmp(algo, "md5"))
        return "MD5";
    return NULL;
}

/* Frees what pool_start made, once no worker runs (none started, or all joined). */
static void pool_release(struct pool *p)
{
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    EVP_MD_free(p->md);
    free(p->q);
    free(p->defer);
    free(p->tids);
    close(p->rootfd);
}

/* Starts nthreads workers waiting for jobs (pool_push), hashing with algo. */
static int pool_start(struct pool *p, const char *root, const char *algo, int nthreads, ms_err *e)
{
    memset(p, 0, sizeof *p);
    const char *oname = ossl_name(algo);
    if (!oname)
        return ms_err_set(e, MS_EUSAGE, "unknown hash algorithm '%s' (expected sha256, sha1 or md5)", algo);
    int lrc = ms_lazy_crypto_load("hashing the files", e);
    if (lrc != MS_OK)
        return lrc;
    p->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (p->rootfd < 0)
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open the dataset directory", root);
    /* fetched once: an implicit fetch on every EVP_DigestInit would take the provider lock */
    p->md = EVP_MD_fetch(NULL, oname, NULL);
    p->tids = malloc((size_t)nthreads * sizeof *p->tids);
    if (!p->md || !p->tids) {
        int rc = p->md ? ms_err_oom(e) : ms_err_set(e, MS_ERUNTIME, "OpenSSL has no %s digest", oname);
        EVP_MD_free(p->md);
        free(p->tids);
        close(p->rootfd);
        return rc;
    }
    atomic_init(&p->bytes_done, 0);
    atomic_init(&p->stop, 0);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    int create_err = 0;
    for (; p->started < nthreads; p->started++) {
        create_err = pthread_create(&p->tids[p->started], NULL, worker, p);
        if (create_err)
            break; /* run with the workers we have */
    }
    if (p->started == 0) {
        pool_release(p);
        return ms_err_errno(e, MS_ERUNTIME, create_err, "cannot start hashing threads");
    }
    return MS_OK;
}

/* Queues n jobs (taken in this order). -1 on allocation failure. */
static int pool_push(struct pool *p, ms_ds_job *const *jobs, size_t n)
{
    pthread_mutex_lock(&p->mu);
    if (p->qn + n > p->qcap) {
        size_t cap = p->qcap ? p->qcap : 1024;
        while (cap < p->qn + n)
            cap *= 2;
        ms_ds_job **nq = realloc(p->q, cap * sizeof *nq);
        if (!nq) {
            pthread_mutex_unlock(&p->mu);
            return -1;
        }
        p->q = nq;
        p->qcap = cap;
    }
    for (size_t i = 0; i < n; i++) {
        p->q[p->qn++] = jobs[i];
        p->total += jobs[i]->size;
    }
    if (p->waiting == 1 || (p->waiting && n == 1))
        pthread_cond_signal(&p->work);
    else if (p->waiting)
        pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    return 0;
}

/* Waits until every queued job is done (or the pool stopped), then hands over the jobs the
 * workers put back (*out, *n: the caller frees *out). -1 if that list could not grow. */
static int pool_drain(struct pool *p, ms_ds_job ***out, size_t *n)
{
    pthread_mutex_lock(&p->mu);
    p->draining = 1;
    while ((p->qnext < p->qn || p->active > 0) && !atomic_load(&p->stop) && p->finished < p->started)
        pthread_cond_wait(&p->done, &p->mu);
    p->draining = 0;
    *out = p->defer;
    *n = p->ndefer;
    p->defer = NULL;
    p->ndefer = p->capdefer = 0;
    int oom = p->defer_oom;
    pthread_mutex_unlock(&p->mu);
    return oom ? -1 : 0;
}

/* Closes the queue (abort: drops what is not started), waits for the workers with the progress
 * line, frees the pool. Returns MS_OK or an allocation failure of a worker. */
static int pool_finish(struct pool *p, int abort, ms_progress *prog, ms_err *e)
{
    pthread_mutex_lock(&p->mu);
    p->closed = 1;
    if (abort)
        atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->work);
    while (p->finished < p->started) {
        if (prog && prog->enabled && !abort) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 200000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p->done, &p->mu, &ts);
            uint64_t done = atomic_load_explicit(&p->bytes_done, memory_order_relaxed);
            uint64_t total = p->total;
            pthread_mutex_unlock(&p->mu);
            ms_progress_update(prog, done >> 20, total >> 20, "MiB");
            pthread_mutex_lock(&p->mu);
        } else {
            pthread_cond_wait(&p->done, &p->mu);
        }
    }
    int fatal = p->fatal || p->defer_oom;
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->started; i++)
        pthread_join(p->tids[i], NULL);
    if (prog)
        ms_progress_end(prog);
    pool_release(p);
    return fatal ? ms_err_oom(e) : MS_OK;
}

int ms_ds_hash_jobs(const char *root, const char *algo, ms_ds_job *jobs, size_t n,
                    const ms_ds_hash_opts *o, ms_err *e)
{
    if (!ossl_name(algo))
        return ms_err_set(e, MS_EUSAGE, "unknown hash algorithm '%s' (expected sha256, sha1 or md5)", algo);
    if (n == 0)
        return MS_OK;
    int nthreads = o && o->jobs > 0 ? o->jobs : ms_ds_cpu_count();
    if ((size_t)nthreads > n)
        nthreads = (int)n;
    struct order_key *keys = malloc(n * sizeof *keys);
    ms_ds_job **order = malloc(n * sizeof *order);
    if (!keys || !order) {
        free(keys);
        free(order);
        return ms_err_oom(e);
    }
    for (size_t i = 0; i < n; i++)
        keys[i] = (struct order_key){jobs[i].size, i};
    qsort(keys, n, sizeof *keys, cmp_order);
    for (size_t i = 0; i < n; i++)
        order[i] = &jobs[keys[i].idx];
    free(keys);
    struct pool p;
    int rc = pool_start(&p, root, algo, nthreads, e);
    if (rc) {
        free(order);
        return rc;
    }
    int oom = pool_push(&p, order, n);
    free(order);
    rc = pool_finish(&p, oom, o ? o->progress : NULL, e);
    return oom ? ms_err_oom(e) : rc;
}

/* ---- walking and hashing at once ---------------------------------------------------------- */

#define JOBS_PER_BLOCK 1024

struct job_block {
    struct job_block *next;
    size_t n;
    ms_ds_job v[JOBS_PER_BLOCK];
};

/* Small files are queued in batches: one lock and one wake-up per batch, not per file. */
#define STREAM_BATCH 64

struct stream {
    struct pool *p;
    ms_ds_tree *t;
    ms_ds_job *batch[STREAM_BATCH];
    size_t nbatch;
    struct job_block *blocks; /* newest first */
    ms_ds_job **big;          /* deferred jobs */
    size_t nbig, capbig;
    size_t njobs;
};

static ms_ds_job *stream_new_job(struct stream *s, const ms_ds_file *f, size_t idx, int stated)
{
    if (!s->blocks || s->blocks->n == JOBS_PER_BLOCK) {
        struct job_block *b = malloc(sizeof *b);
        if (!b)
            return NULL;
        b->next = s->blocks;
        b->n = 0;
        s->blocks = b;
    }
    ms_ds_job *j = &s->blocks->v[s->blocks->n++];
    j->path = f->path;
    j->size = f->size;
    j->dev = f->dev;
    j->ino = f->ino;
    j->identify = !stated;
    j->file_idx = idx;
    j->digest[0] = '\0';
    j->bytes = 0;
    j->failed = 0;
    j->err[0] = '\0';
    s->njobs++;
    return j;
}

static int stream_file(void *ctx, size_t idx, int stated)
{
    struct stream *s = ctx;
    const ms_ds_file *f = &s->t->files[idx];
    ms_ds_job *j = stream_new_job(s, f, idx, stated);
    if (!j)
        return -1;
    if (!stated || f->size <= DS_STREAM_MAX) {
        s->batch[s->nbatch++] = j;
        if (s->nbatch < STREAM_BATCH)
            return 0;
        s->nbatch = 0;
        return pool_push(s->p, s->batch, STREAM_BATCH);
    }
    if (MS_GROW(s->big, s->capbig, s->nbig + 1, 32))
        return -1;
    s->big[s->nbig++] = j;
    return 0;
}

static int cmp_job_size(const void *a, const void *b)
{
    const ms_ds_job *x = *(ms_ds_job *const *)a, *y = *(ms_ds_job *const *)b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int cmp_job_path(const void *a, const void *b)
{
    return strcmp((*(ms_ds_job *const *)a)->path, (*(ms_ds_job *const *)b)->path);
}

void ms_ds_jobset_free(ms_ds_jobset *js)
{
    struct job_block *b = js->blocks;
    while (b) {
        struct job_block *next = b->next;
        free(b);
        b = next;
    }
    free(js->v);
    memset(js, 0, sizeof *js);
}

int ms_ds_walk_hash(const char *root, const char *algo, const ms_ds_hash_opts *o, ms_ds_tree *t,
                    ms_ds_jobset *js, ms_err *e)
{
    memset(js, 0, sizeof *js);
    memset(t, 0, sizeof *t);
    int nthreads = o && o->jobs > 0 ? o->jobs : ms_ds_cpu_count();
    struct pool p;
    int rc = pool_start(&p, root, algo, nthreads, e);
    if (rc)
        return rc;
    struct stream s = {.p = &p, .t = t};
    /* Without a progress line (whose total needs every size up front) the walk does not stat
     * regular files: the workers do (stream_file, hash_one). */
    int lazy = !(o && o->progress && o->progress->enabled);
    rc = walk_core(root, t, stream_file, &s, lazy, e);
    int unreadable = 0;
    for (size_t i = 0; rc == MS_OK && i < t->nskipped; i++)
        unreadable |= t->skipped[i].kind == MS_DS_SKIP_UNREADABLE;
    int oom = 0;
    if (rc == MS_OK && !unreadable && s.nbatch)
        oom = pool_push(&p, s.batch, s.nbatch);
    if (rc == MS_OK && !unreadable && !oom && lazy) {
        /* the files the workers found large join those the walk found (none when lazy) */
        ms_ds_job **d = NULL;
        size_t nd = 0;
        oom = pool_drain(&p, &d, &nd);
        for (size_t i = 0; !oom && i < nd; i++) {
            if (MS_GROW(s.big, s.capbig, s.nbig + 1, 32))
                oom = 1;
            else
                s.big[s.nbig++] = d[i];
        }
        free(d);
    }
    if (rc == MS_OK && !unreadable && !oom && s.nbig) {
        qsort(s.big, s.nbig, sizeof *s.big, cmp_job_size);
        oom = pool_push(&p, s.big, s.nbig);
    }
    free(s.big);
    /* a failed walk or an unreadable entry means no manifest: what is queued is dropped */
    int frc = pool_finish(&p, rc != MS_OK || unreadable || oom, o ? o->progress : NULL, e);
    js->blocks = s.blocks;
    if (rc == MS_OK && (oom || frc))
        rc = oom ? ms_err_oom(e) : frc;
    if (rc == MS_OK && lazy) { /* what the workers' fstat saw, for the files the walk did not stat */
        t->total_bytes = 0;
        for (struct job_block *b = s.blocks; b; b = b->next)
            for (size_t i = 0; i < b->n; i++) {
                ms_ds_file *f = &t->files[b->v[i].file_idx];
                f->size = b->v[i].size;
                f->dev = b->v[i].dev;
                f->ino = b->v[i].ino;
            }
        for (size_t i = 0; i < t->nfiles; i++)
            t->total_bytes += t->files[i].size;
    }
    if (rc == MS_OK && !unreadable) {
        js->v = malloc((s.njobs ? s.njobs : 1) * sizeof *js->v);
        if (!js->v) {
            rc = ms_err_oom(e);
        } else {
            for (struct job_block *b = s.blocks; b; b = b->next)
                for (size_t i = 0; i < b->n; i++)
                    js->v[js->n++] = &b->v[i];
            /* the order of t->files: the same strings, the same comparison */
            qsort(js->v, js->n, sizeof *js->v, cmp_job_path);
        }
    }
    /* the workers are done with the paths: the tree can be freed (failure) or sorted */
    rc = walk_end(t, rc);
    if (rc != MS_OK)
        ms_ds_jobset_free(js);
    return rc;
}
