#include "common/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    size_t cap = (size_t)st.st_size + 1, n = 0;
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
        ssize_t r = read(fd, buf + n, cap - 1 - n);
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
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    if (len)
        *len = n;
    return MS_OK;
}

int ms_afile_open(ms_afile *af, const char *path, ms_err *e)
{
    memset(af, 0, sizeof *af);
    char *dcopy = strdup(path), *bcopy = strdup(path);
    if (!dcopy || !bcopy) {
        free(dcopy);
        free(bcopy);
        return ms_err_oom(e);
    }
    const char *dir = dirname(dcopy), *base = basename(bcopy);
    size_t n = strlen(dir) + strlen(base) + 32;
    af->tmp = malloc(n);
    af->path = strdup(path);
    if (!af->tmp || !af->path) {
        free(dcopy);
        free(bcopy);
        free(af->tmp);
        free(af->path);
        memset(af, 0, sizeof *af);
        return ms_err_oom(e);
    }
    snprintf(af->tmp, n, "%s/.%s.tmp.XXXXXX", dir, base);
    free(dcopy);
    free(bcopy);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int er = errno;
        free(af->tmp);
        free(af->path);
        memset(af, 0, sizeof *af);
        return ms_err_errno(e, MS_ERUNTIME, er, "%s: cannot create a temporary file beside it", path);
    }
    /* mkstemp creates 0600; outputs are ordinary files. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int er = errno;
        close(fd);
        unlink(af->tmp);
        free(af->tmp);
        free(af->path);
        memset(af, 0, sizeof *af);
        return ms_err_errno(e, MS_ERUNTIME, er, "%s: cannot open", path);
    }
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
    if (!bad && fsync(fileno(af->fp)) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        er = errno;
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
        unlink(af->tmp);
        rc = ms_err_errno(e, MS_ERUNTIME, er ? er : EIO, "%s: write failed", af->path);
    }
    free(af->tmp);
    free(af->path);
    af->tmp = af->path = NULL;
    return rc;
}

void ms_afile_abort(ms_afile *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp)
        unlink(af->tmp);
    free(af->tmp);
    free(af->path);
    memset(af, 0, sizeof *af);
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
