#include "common/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ms_err_root(ms_err *e, const char *root, int err, int nofollow)
{
    struct stat st;
    if (!err) {
        if ((nofollow ? lstat(root, &st) : stat(root, &st)) != 0)
            err = errno;
        else if (S_ISLNK(st.st_mode))
            return ms_err_set(e, MS_EINPUT, "%s: a symbolic link, not a submission root: give the folder it "
                              "points to (this command changes the tree in place)", root);
        else
            err = ENOTDIR;
    }
    static const char *const archives[] = {".tar.gz", ".tgz", ".tar", ".tar.xz", ".tar.bz2", ".zip"};
    size_t rl = strlen(root);
    if (err == ENOTDIR)
        for (size_t i = 0; i < sizeof archives / sizeof *archives; i++) {
            size_t al = strlen(archives[i]);
            if (rl > al && !strcasecmp(root + rl - al, archives[i]))
                return ms_err_set(e, MS_EINPUT, "%s: an archive, not a submission root: extract it "
                                  "(tar -xf) and give the folder holding closed/, open/ or network/ "
                                  "('mlsubmit package --verify' re-hashes a package)", root);
        }
    return ms_err_errno(e, MS_EINPUT, err, "%s: cannot list the submission root", root);
}

int ms_read_file(const char *path, size_t max_bytes, char **out, size_t *len, ms_err *e)
{
    *out = NULL;
    if (len)
        *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int er = errno;
        close(fd);
        return ms_err_errno(e, MS_EINPUT, er, "%s: cannot stat", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return ms_err_set(e, MS_EINPUT, "%s: not a regular file", path);
    }
    if (max_bytes && (unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return ms_err_set(e, MS_EINPUT, "%s: file is %lld bytes, more than the %zu allowed", path,
                          (long long)st.st_size, max_bytes);
    }
    /* the size, the read that finds the end (a spare byte: no realloc, which would copy the
     * whole file only to learn that nothing follows) and the terminating NUL */
    size_t cap = (size_t)st.st_size + 2, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return ms_err_oom(e);
    }
    for (;;) {
        if (n + 1 >= cap) {
            if (max_bytes && n >= max_bytes) {
                free(buf);
                close(fd);
                return ms_err_set(e, MS_EINPUT, "%s: file grew beyond %zu bytes while reading", path,
                                  max_bytes);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                close(fd);
                return ms_err_oom(e);
            }
            buf = nb;
            cap *= 2;
        }
        size_t want = cap - 1 - n;
        ssize_t r = read(fd, buf + n, want);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int er = errno;
            free(buf);
            close(fd);
            return ms_err_errno(e, MS_EINPUT, er, "%s: read error", path);
        }
        if (r == 0)
            break;
        n += (size_t)r;
        /* all of the size fstat gave, in a read that returned less than asked for: the end (no
         * read only to get 0 back, a third of the reads of a check). A file that grew fills the
         * spare byte and is read on; files that give no size (/proc) are read until 0. */
        if ((size_t)r < want && st.st_size > 0 && n >= (size_t)st.st_size)
            break;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return MS_OK;
}

int ms_read_some(int fd, void *buf, size_t n, size_t *got, const char *path, ms_err *e)
{
    for (;;) {
        ssize_t r = read(fd, buf, n);
        if (r >= 0) {
            *got = (size_t)r;
            return MS_OK;
        }
        if (errno != EINTR) {
            *got = 0;
            return ms_err_errno(e, MS_EINPUT, errno, "%s: read error", path);
        }
    }
}

int ms_parse_file(const char *path, ms_text_parser parse, void *out, ms_err *e)
{
    char *text;
    size_t len;
    int rc = ms_read_file(path, 0, &text, &len, e);
    if (rc)
        return rc;
    rc = parse(text, len, path, out, e);
    free(text);
    return rc;
}

static void afile_reset(ms_afile *af)
{
    free(af->tmp);
    free(af->path);
    free(af->dir);
    memset(af, 0, sizeof *af);
}

/* dirname/basename of path into malloc'd strings. */
static int split_path(const char *path, char **dir, char **base)
{
    char *dcopy = strdup(path), *bcopy = strdup(path);
    *dir = *base = NULL;
    if (dcopy && bcopy) {
        *dir = strdup(dirname(dcopy));
        *base = strdup(basename(bcopy));
    }
    free(dcopy);
    free(bcopy);
    if (!*dir || !*base) {
        free(*dir);
        free(*base);
        return -1;
    }
    return 0;
}

/* "<dir>/.<base>.tmp.<pid>.XXXXXX": the writer's pid lets a later writer recognise the
 * leftovers of a dead one (ms_sweep_stale_temps). */
static char *tmp_name(const char *dir, const char *base)
{
    size_t n = strlen(dir) + strlen(base) + 48;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%s/.%s.tmp.%ld.XXXXXX", dir, base, (long)getpid());
    return t;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path) != 0 && errno != ENOENT ? -1 : 0;
}

/* Whether the process pid may still write: it exists (kill 0), and /proc, where it can tell,
 * does not show it a zombie (Z, X) or exiting (PF_EXITING, 0x4, in the flags field of
 * /proc/<pid>/stat). A killed LoadGen child whose supervisor was killed too is reparented to
 * PID 1, which in a container may never reap it: its zombie would keep its temporaries
 * "alive" for good. */
static int pid_may_write(long pid)
{
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* after the command name, which may hold anything */
    if (!p || p[1] != ' ' || !p[2])
        return 1;
    char state = p[2];
    if (state == 'Z' || state == 'X' || state == 'x')
        return 0;
    /* then ppid pgrp session tty_nr tpgid flags */
    p += 3;
    for (int f = 0; f < 5 && p; f++) {
        p = strchr(p + 1, ' ');
    }
    if (!p)
        return 1;
    unsigned long flags = strtoul(p + 1, NULL, 10);
    return (flags & 0x4UL) == 0;
}

void ms_sweep_stale_temps(const char *path)
{
    char *dir, *base;
    if (split_path(path, &dir, &base) != 0)
        return;
    DIR *d = opendir(dir);
    size_t bl = strlen(base);
    for (struct dirent *de; d && (de = readdir(d));) {
        const char *n = de->d_name;
        if (n[0] == '.' && !strncmp(n + 1, base, bl))
            n += 1 + bl;
        else if (!strncmp(n, base, bl))
            n += bl;
        else
            continue;
        if (strncmp(n, ".tmp.", 5) != 0)
            continue;
        n += 5;
        char *endp;
        errno = 0;
        long pid = strtol(n, &endp, 10);
        if (endp == n || errno || pid <= 0 || (*endp && *endp != '.' && *endp != '-'))
            continue;
        if (pid == (long)getpid() || pid_may_write(pid))
            continue; /* ours, or a live writer's */
        char *full = ms_path_join(dir, de->d_name);
        if (!full)
            break;
        struct stat st;
        if (lstat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                nftw(full, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
            else
                unlink(full);
        }
        free(full);
    }
    if (d)
        closedir(d);
    free(dir);
    free(base);
}

static mode_t output_mode(void)
{
    mode_t um = umask(0);
    umask(um);
    return 0666 & ~um;
}

int ms_afile_open_named(ms_afile *af, const char *path, ms_err *e)
{
    memset(af, 0, sizeof *af);
    ms_sweep_stale_temps(path);
    char *dir, *base;
    if (split_path(path, &dir, &base) != 0)
        return ms_err_oom(e);
    af->tmp = tmp_name(dir, base);
    af->path = strdup(path);
    free(dir);
    free(base);
    if (!af->tmp || !af->path) {
        afile_reset(af);
        return ms_err_oom(e);
    }
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int er = errno;
        afile_reset(af);
        return ms_err_errno(e, MS_ERUNTIME, er, "%s: cannot create a temporary file beside it", path);
    }
    fchmod(fd, output_mode()); /* mkstemp creates 0600; outputs are ordinary files */
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int er = errno;
        close(fd);
        unlink(af->tmp);
        afile_reset(af);
        return ms_err_errno(e, MS_ERUNTIME, er, "%s: cannot open", path);
    }
    return MS_OK;
}

int ms_afile_open(ms_afile *af, const char *path, ms_err *e)
{
#ifdef O_TMPFILE
    memset(af, 0, sizeof *af);
    ms_sweep_stale_temps(path);
    char *base;
    if (split_path(path, &af->dir, &base) != 0)
        return ms_err_oom(e);
    free(base);
    af->path = strdup(path);
    if (!af->path) {
        afile_reset(af);
        return ms_err_oom(e);
    }
    int fd = open(af->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, output_mode());
    if (fd >= 0) {
        af->fp = fdopen(fd, "w");
        if (af->fp)
            return MS_OK;
        close(fd);
    } else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
        int er = errno;
        char *p = af->path;
        af->path = NULL;
        afile_reset(af);
        int rc = ms_err_errno(e, MS_ERUNTIME, er, "%s: cannot create it", p);
        free(p);
        return rc;
    }
    afile_reset(af);
#endif
    return ms_afile_open_named(af, path, e);
}

/* Links fd at a fresh temporary name in dir (for base); *out gets the malloc'd name. */
static int link_temp(int fd, const char *dir, const char *base, char **out)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    for (int attempt = 0; attempt < 100; attempt++) {
        char *t = tmp_name(dir, base);
        if (!t)
            return ENOMEM;
        /* a random suffix (after the pid), as mkstemp would pick */
        char *x = t + strlen(t) - 6;
        unsigned r = 0;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
            r = (unsigned)getpid() * 2654435761u ^ (unsigned)attempt * 40503u ^ (unsigned)time(NULL);
        for (int i = 0; i < 6; i++, r /= 36)
            x[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[r % 36];
        if (linkat(AT_FDCWD, proc, AT_FDCWD, t, AT_SYMLINK_FOLLOW) == 0) {
            *out = t;
            return 0;
        }
        int er = errno;
        free(t);
        if (er != EEXIST)
            return er;
    }
    return EEXIST;
}

/* Gives an unnamed file a temporary name in its directory (to rename it into place). */
static int name_unnamed(ms_afile *af, int fd)
{
    const char *base = strrchr(af->path, '/');
    base = base ? base + 1 : af->path;
    return link_temp(fd, af->dir, base, &af->tmp);
}

int ms_link_fd_atomic(int fd, const char *path, ms_err *e)
{
    char *dir, *base, *t = NULL;
    if (split_path(path, &dir, &base) != 0)
        return ms_err_oom(e);
    int r = link_temp(fd, dir, base, &t);
    free(dir);
    free(base);
    if (r)
        return ms_err_errno(e, MS_ERUNTIME, r, "%s: cannot link the file into its directory", path);
    if (rename(t, path) != 0) {
        int er = errno;
        unlink(t);
        free(t);
        return ms_err_errno(e, MS_ERUNTIME, er, "%s: cannot rename into place", path);
    }
    free(t);
    return MS_OK;
}

int ms_afile_commit(ms_afile *af, ms_err *e)
{
    if (!af->fp)
        return ms_err_set(e, MS_ERUNTIME, "internal: commit of a closed file");
    int bad = ferror(af->fp);
    if (fflush(af->fp) != 0)
        bad = 1;
    int er = errno;
    int fd = fileno(af->fp);
    if (!bad && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        er = errno;
    }
    if (!bad && !af->tmp) {
        int r = name_unnamed(af, fd);
        if (r) {
            bad = 1;
            er = r;
        }
    }
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        er = errno;
    }
    af->fp = NULL;
    if (!bad && rename(af->tmp, af->path) != 0) {
        bad = 1;
        er = errno;
    }
    int rc = MS_OK;
    if (bad) {
        if (af->tmp)
            unlink(af->tmp);
        rc = ms_err_errno(e, MS_ERUNTIME, er ? er : EIO, "%s: write failed", af->path);
    }
    afile_reset(af);
    return rc;
}

void ms_afile_abort(ms_afile *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp)
        unlink(af->tmp);
    afile_reset(af);
}

int ms_write_file_atomic(const char *path, const void *data, size_t len, ms_err *e)
{
    ms_afile af;
    int rc = ms_afile_open(&af, path, e);
    if (rc)
        return rc;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        int er = errno;
        ms_afile_abort(&af);
        return ms_err_errno(e, MS_ERUNTIME, er, "%s: write failed", path);
    }
    return ms_afile_commit(&af, e);
}

int ms_mkdir_p(const char *path, ms_err *e)
{
    char *p = strdup(path);
    if (!p)
        return ms_err_oom(e);
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            int er = errno;
            int rc = ms_err_errno(e, MS_ERUNTIME, er, "%s: cannot create directory", p);
            free(p);
            return rc;
        }
        *s = '/';
    }
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        int rc = ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot create directory", p);
        free(p);
        return rc;
    }
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int rc = ms_err_set(e, MS_ERUNTIME, "%s: exists and is not a directory", p);
        free(p);
        return rc;
    }
    free(p);
    return MS_OK;
}

char *ms_path_join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (lb && b[0] == '/') {
        b++;
        lb--;
    }
    char *r = malloc(la + lb + 2);
    if (!r)
        return NULL;
    memcpy(r, a, la);
    size_t n = la;
    if (la && lb && a[la - 1] != '/')
        r[n++] = '/';
    memcpy(r + n, b, lb);
    r[n + lb] = '\0';
    return r;
}

int ms_path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int ms_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ms_is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}
