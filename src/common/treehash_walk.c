/* Dataset checksums: the tree walk and the parallel hashing pool.
 *
 * The walk descends with openat(O_NOFOLLOW | O_DIRECTORY) from the parent's descriptor, so it
 * never follows a symbolic link and cannot leave the root; a directory already on the current
 * path (a bind-mount loop) is skipped. Each regular file is recorded with its size, device and
 * inode; workers later open it by its path relative to the root (O_NOFOLLOW) and check that the
 * descriptor is still that regular file before hashing it.
 *
 * The pool is a fixed set of threads that take whole files from a shared atomic cursor, largest
 * first (so one big file does not finish alone at the end), each with its own read buffer and
 * digest context; the calling thread only waits and updates the progress line. */
#include "common/treehash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
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

struct walk {
    ms_ds_tree *t;
    ms_buf path;          /* relative path of the current entry */
    struct dir_id *stack; /* directories on the current path (loop detection) */
    size_t depth, cap;
    ms_err *e;
};

static int add_file(ms_ds_tree *t, const char *path, const struct stat *st)
{
    ms_ds_file *nf = ms_ds_grow(t->files, &t->capfiles, t->nfiles, sizeof *nf);
    if (!nf)
        return -1;
    t->files = nf;
    char *p = strdup(path);
    if (!p)
        return -1;
    ms_ds_file *f = &t->files[t->nfiles++];
    f->path = p;
    f->size = (uint64_t)st->st_size;
    f->dev = (uint64_t)st->st_dev;
    f->ino = (uint64_t)st->st_ino;
    t->total_bytes += f->size;
    return 0;
}

static int add_skipped(ms_ds_tree *t, const char *path, ms_ds_skip_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int add_skipped(ms_ds_tree *t, const char *path, ms_ds_skip_kind kind, const char *fmt, ...)
{
    ms_ds_skipped *ns = ms_ds_grow(t->skipped, &t->capskipped, t->nskipped, sizeof *ns);
    if (!ns)
        return -1;
    t->skipped = ns;
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
                    struct dir_id *ns = ms_ds_grow(w->stack, &w->cap, w->depth, sizeof *ns);
                    if (!ns) {
                        close(sfd);
                        rc = ms_err_oom(w->e);
                        break;
                    }
                    w->stack = ns;
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
    struct walk w = {.t = t, .path = MS_BUF_INIT, .e = e};
    w.stack = ms_ds_grow(NULL, &w.cap, 0, sizeof *w.stack);
    if (!w.stack || ms_buf_reserve(&w.path, 256)) {
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

struct pool {
    int rootfd;
    const EVP_MD *md;
    ms_ds_job *jobs;
    size_t *order; /* job indexes, largest first */
    size_t n;
    atomic_size_t next;
    atomic_uint_fast64_t bytes_done;
    atomic_int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int finished; /* workers that have exited (under mu) */
    int fatal;    /* a worker could not allocate its buffers (under mu) */
};

static void job_fail(ms_ds_job *j, int er, const char *what)
{
    char eb[128];
    const char *s = strerror_r(er, eb, sizeof eb);
    j->failed = 1;
    snprintf(j->err, sizeof j->err, "%s: %s", what, s);
}

static void hash_one(struct pool *p, ms_ds_job *j, unsigned char *buf, EVP_MD_CTX *ctx)
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
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        job_fail(j, errno, "cannot stat");
        close(fd);
        return;
    }
    if (!S_ISREG(st.st_mode) || ((j->dev || j->ino) && ((uint64_t)st.st_dev != j->dev ||
                                                          (uint64_t)st.st_ino != j->ino))) {
        j->failed = 1;
        snprintf(j->err, sizeof j->err, "replaced while being checked (no longer the file listed)");
        close(fd);
        return;
    }
    if ((uint64_t)st.st_size > DS_BLOCK)
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    if (!EVP_DigestInit_ex2(ctx, p->md, NULL)) {
        j->failed = 1;
        snprintf(j->err, sizeof j->err, "digest initialisation failed");
        close(fd);
        return;
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
            return;
        }
        if (r == 0)
            break;
        total += (uint64_t)r;
        atomic_fetch_add_explicit(&p->bytes_done, (uint64_t)r, memory_order_relaxed);
        if (!EVP_DigestUpdate(ctx, buf, (size_t)r)) {
            j->failed = 1;
            snprintf(j->err, sizeof j->err, "digest update failed");
            close(fd);
            return;
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
        return;
    }
    ms_hex_lower(dig, dlen, j->digest);
    j->bytes = total;
}

static void *worker(void *arg)
{
    struct pool *p = arg;
    unsigned char *buf = malloc(DS_BLOCK);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int fatal = !buf || !ctx;
    if (fatal)
        atomic_store(&p->stop, 1);
    while (!fatal && !atomic_load_explicit(&p->stop, memory_order_relaxed)) {
        size_t k = atomic_fetch_add(&p->next, 1);
        if (k >= p->n)
            break;
        hash_one(p, &p->jobs[p->order[k]], buf, ctx);
    }
    free(buf);
    EVP_MD_CTX_free(ctx);
    pthread_mutex_lock(&p->mu);
    p->finished++;
    if (fatal)
        p->fatal = 1;
    pthread_cond_signal(&p->cv);
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

int ms_ds_hash_jobs(const char *root, const char *algo, ms_ds_job *jobs, size_t n,
                    const ms_ds_hash_opts *o, ms_err *e)
{
    const char *oname = ossl_name(algo);
    if (!oname)
        return ms_err_set(e, MS_EUSAGE, "unknown hash algorithm '%s' (expected sha256, sha1 or md5)", algo);
    if (n == 0)
        return MS_OK;
    int nthreads = o && o->jobs > 0 ? o->jobs : ms_ds_cpu_count();
    if ((size_t)nthreads > n)
        nthreads = (int)n;
    ms_progress *prog = o ? o->progress : NULL;

    struct pool p;
    memset(&p, 0, sizeof p);
    p.rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (p.rootfd < 0)
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open the dataset directory", root);
    /* fetched once: an implicit fetch on every EVP_DigestInit would take the provider lock */
    EVP_MD *md = EVP_MD_fetch(NULL, oname, NULL);
    struct order_key *keys = malloc(n * sizeof *keys);
    p.order = malloc(n * sizeof *p.order);
    pthread_t *tids = malloc((size_t)nthreads * sizeof *tids);
    if (!md || !keys || !p.order || !tids) {
        int rc = md ? ms_err_oom(e) : ms_err_set(e, MS_ERUNTIME, "OpenSSL has no %s digest", oname);
        EVP_MD_free(md);
        free(keys);
        free(p.order);
        free(tids);
        close(p.rootfd);
        return rc;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        keys[i] = (struct order_key){jobs[i].size, i};
        total += jobs[i].size;
    }
    qsort(keys, n, sizeof *keys, cmp_order);
    for (size_t i = 0; i < n; i++)
        p.order[i] = keys[i].idx;
    free(keys);
    p.md = md;
    p.jobs = jobs;
    p.n = n;
    atomic_init(&p.next, 0);
    atomic_init(&p.bytes_done, 0);
    atomic_init(&p.stop, 0);
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);

    int started = 0, create_err = 0;
    for (; started < nthreads; started++) {
        create_err = pthread_create(&tids[started], NULL, worker, &p);
        if (create_err)
            break; /* run with the workers we have */
    }
    int rc = MS_OK;
    if (started > 0) {
        pthread_mutex_lock(&p.mu);
        while (p.finished < started) {
            if (prog && prog->enabled) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 200000000L;
                if (ts.tv_nsec >= 1000000000L) {
                    ts.tv_sec++;
                    ts.tv_nsec -= 1000000000L;
                }
                pthread_cond_timedwait(&p.cv, &p.mu, &ts);
                uint64_t done = atomic_load_explicit(&p.bytes_done, memory_order_relaxed);
                pthread_mutex_unlock(&p.mu);
                ms_progress_update(prog, done >> 20, total >> 20, "MiB");
                pthread_mutex_lock(&p.mu);
            } else {
                pthread_cond_wait(&p.cv, &p.mu);
            }
        }
        int fatal = p.fatal;
        pthread_mutex_unlock(&p.mu);
        for (int i = 0; i < started; i++)
            pthread_join(tids[i], NULL);
        if (fatal)
            rc = ms_err_oom(e);
    } else {
        rc = ms_err_errno(e, MS_ERUNTIME, create_err, "cannot start hashing threads");
    }
    if (prog)
        ms_progress_end(prog);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    EVP_MD_free(md);
    free(p.order);
    free(tids);
    close(p.rootfd);
    return rc;
}
