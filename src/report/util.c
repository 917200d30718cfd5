/* Helpers shared by the report module: rules lookups, listings, recursive copies, JSON text. */
#include "report/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "checker/checker.h"
#include "common/fsutil.h"
#include "common/strutil.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

const char *const rp_csv_columns[RP_NCSV] = {
    "Organization", "Availability", "Division", "SystemType", "SystemName", "Platform", "Model",
    "MlperfModel", "Scenario", "Result", "Accuracy", "number_of_nodes", "host_processor_model_name",
    "host_processors_per_node", "host_processor_core_count", "accelerator_model_name",
    "accelerators_per_node", "total_accelerators", "Location", "framework", "operating_system",
    "notes", "compliance", "errors", "version", "inferred", "has_power", "Units",
    "weight_data_types", "design_power_watts", "PrivateID"};

void rp_notef(void (*note)(void *, const char *), void *ctx, ms_buf *line, const char *fmt, ...)
{
    if (!note)
        return;
    va_list ap;
    va_start(ap, fmt);
    ms_buf_reset(line);
    if (ms_buf_vprintf(line, fmt, ap) == 0)
        note(ctx, line->data);
    va_end(ap);
}


json_t *rp_json_load(const char *path, ms_err *e)
{
    json_error_t je;
    json_t *j = json_load_file(path, JSON_DECODE_INT_AS_REAL * 0, &je);
    if (!j)
        ms_err_set(e, MS_EINPUT, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    return j;
}

const json_t *rp_scenarios(const ru_round *r, const char *table, const char *system_type,
                           const char *model)
{
    const json_t *t = json_object_get(r->j, table);
    const json_t *c = json_object_get(t, system_type ? system_type : "");
    if (!c && system_type && !strcmp(system_type, "edge,datacenter"))
        c = json_object_get(t, "datacenter,edge");
    return json_object_get(c, model);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void rp_list_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int rp_list(const char *path, int dirs, char ***out, size_t *n, ms_err *e)
{
    *out = NULL;
    *n = 0;
    if (!path)
        return ms_err_oom(e);
    size_t cap = 8;
    char **v = calloc(cap + 1, sizeof *v);
    if (!v)
        return ms_err_oom(e);
    DIR *d = opendir(path);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR) {
            *out = v;
            return 0;
        }
        int er = errno;
        free(v);
        return ms_err_errno(e, MS_EINPUT, er, "%s: cannot list directory", path);
    }
    size_t k = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
            continue;
        if (dirs ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
            continue;
        if (k == cap) {
            char **nv = realloc(v, (cap * 2 + 1) * sizeof *v);
            if (!nv) {
                closedir(d);
                rp_list_free(v, k);
                return ms_err_oom(e);
            }
            v = nv;
            cap *= 2;
        }
        if (!(v[k] = strdup(de->d_name))) {
            closedir(d);
            rp_list_free(v, k);
            return ms_err_oom(e);
        }
        k++;
    }
    closedir(d);
    v[k] = NULL;
    qsort(v, k, sizeof *v, cmp_str);
    *out = v;
    *n = k;
    return 0;
}

int rp_is_dir_nofollow(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ------------------------------------------------------------------ copy ---- */

static int copy_file(int sfd_dir, int dfd_dir, const char *name, const struct stat *st,
                     const char *spath, uint64_t *bytes, ms_err *e)
{
    int in = openat(sfd_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", spath);
    int out = openat(dfd_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st->st_mode & 07777);
    if (out < 0) {
        int er = errno;
        close(in);
        return ms_err_errno(e, MS_ERUNTIME, er, "cannot create the copy of %s", spath);
    }
    static const size_t BUF = 256 * 1024;
    char *buf = malloc(BUF);
    int rc = 0;
    if (!buf)
        rc = ms_err_oom(e);
    while (!rc) {
        size_t r;
        if ((rc = ms_read_some(in, buf, BUF, &r, spath, e)) != MS_OK || r == 0)
            break;
        for (size_t off = 0; off < r;) {
            ssize_t w = write(out, buf + off, r - off);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                rc = ms_err_errno(e, MS_ERUNTIME, errno, "writing the copy of %s", spath);
                break;
            }
            off += (size_t)w;
        }
        *bytes += (uint64_t)r;
    }
    free(buf);
    struct timespec ts[2] = {st->st_atim, st->st_mtim};
    if (!rc && futimens(out, ts))
        rc = ms_err_errno(e, MS_ERUNTIME, errno, "setting the times of the copy of %s", spath);
    if (close(out) && !rc)
        rc = ms_err_errno(e, MS_ERUNTIME, errno, "writing the copy of %s", spath);
    close(in);
    return rc;
}

static int copy_dir_fd(int sfd, int dfd, const char *spath, uint64_t *files, uint64_t *bytes,
                       int depth, ms_err *e)
{
    if (depth > 256)
        return ms_err_set(e, MS_EINPUT, "%s: directories nested too deeply", spath);
    int dup_fd = dup(sfd);
    if (dup_fd < 0)
        return ms_err_errno(e, MS_ERUNTIME, errno, "%s", spath);
    DIR *d = fdopendir(dup_fd);
    if (!d) {
        close(dup_fd);
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot list directory", spath);
    }
    int rc = 0;
    for (struct dirent *de; !rc && (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *sp = rp_fmt("%s/%s", spath, de->d_name);
        if (!sp) {
            rc = ms_err_oom(e);
            break;
        }
        struct stat st;
        if (fstatat(sfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            rc = ms_err_errno(e, MS_EINPUT, errno, "%s: cannot stat", sp);
        } else if (S_ISREG(st.st_mode)) {
            rc = copy_file(sfd, dfd, de->d_name, &st, sp, bytes, e);
            (*files)++;
        } else if (S_ISDIR(st.st_mode)) {
            if (mkdirat(dfd, de->d_name, (st.st_mode & 07777) | 0700)) {
                rc = ms_err_errno(e, MS_ERUNTIME, errno, "cannot create the copy of %s", sp);
            } else {
                int s2 = openat(sfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                int d2 = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (s2 < 0 || d2 < 0)
                    rc = ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot open directory", sp);
                else
                    rc = copy_dir_fd(s2, d2, sp, files, bytes, depth + 1, e);
                if (s2 >= 0)
                    close(s2);
                if (d2 >= 0)
                    close(d2);
            }
        } else if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = readlinkat(sfd, de->d_name, target, sizeof target - 1);
            if (n < 0)
                rc = ms_err_errno(e, MS_EINPUT, errno, "%s: cannot read the link", sp);
            else {
                target[n] = 0;
                if (symlinkat(target, dfd, de->d_name))
                    rc = ms_err_errno(e, MS_ERUNTIME, errno, "cannot create the copy of %s", sp);
            }
        } else {
            rc = ms_err_set(e, MS_EINPUT, "%s: not a regular file, directory or link; not copied", sp);
        }
        free(sp);
    }
    closedir(d);
    return rc;
}

static int rm_tree_at(int dfd, const char *name, int depth)
{
    if (depth > 300)
        return -1;
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return unlinkat(dfd, name, 0);
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            rm_tree_at(dirfd(d), de->d_name, depth + 1);
        else
            unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
    return unlinkat(dfd, name, AT_REMOVEDIR);
}

int rp_copy_tree(const char *src, const char *dst, uint64_t *files, uint64_t *bytes, ms_err *e)
{
    uint64_t f0 = 0, b0 = 0;
    if (!files)
        files = &f0;
    if (!bytes)
        bytes = &b0;
    struct stat st;
    if (lstat(src, &st) || !S_ISDIR(st.st_mode))
        return ms_err_set(e, MS_EINPUT, "%s: not a directory", src);
    if (ms_path_exists(dst))
        return ms_err_set(e, MS_ERUNTIME, "%s already exists; not overwritten", dst);
    char *dcopy = strdup(dst);
    if (!dcopy)
        return ms_err_oom(e);
    char *slash = strrchr(dcopy, '/');
    const char *parent = ".", *base = dcopy;
    if (slash) {
        *slash = 0;
        parent = dcopy[0] ? dcopy : "/";
        base = slash + 1;
    }
    ms_sweep_stale_temps(dst); /* copies left by killed runs */
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) {
        int rc = ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot open directory", parent);
        free(dcopy);
        return rc;
    }
    char tmp[300];
    int rc = 0;
    for (int attempt = 0;; attempt++) {
        snprintf(tmp, sizeof tmp, ".%.200s.tmp.%ld.%d", base, (long)getpid(), attempt);
        if (mkdirat(pfd, tmp, (st.st_mode & 07777) | 0700) == 0)
            break;
        if (errno != EEXIST || attempt > 100) {
            rc = ms_err_errno(e, MS_ERUNTIME, errno, "cannot create a directory in %s", parent);
            close(pfd);
            free(dcopy);
            return rc;
        }
    }
    int sfd = open(src, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int tfd = openat(pfd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sfd < 0 || tfd < 0)
        rc = ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot open directory", src);
    else
        rc = copy_dir_fd(sfd, tfd, src, files, bytes, 0, e);
    if (!rc) {
        struct timespec ts[2] = {st.st_atim, st.st_mtim};
        futimens(tfd, ts); /* best effort: the directory's own times */
        fchmod(tfd, st.st_mode & 07777);
    }
    if (sfd >= 0)
        close(sfd);
    if (tfd >= 0)
        close(tfd);
    if (!rc && syscall(SYS_renameat2, pfd, tmp, pfd, base, RENAME_NOREPLACE)) {
        if (errno == EEXIST)
            rc = ms_err_set(e, MS_ERUNTIME, "%s appeared while copying; not overwritten", dst);
        else
            rc = ms_err_errno(e, MS_ERUNTIME, errno, "cannot rename the copy into %s", dst);
    }
    if (rc)
        rm_tree_at(pfd, tmp, 0);
    close(pfd);
    free(dcopy);
    return rc;
}

/* ------------------------------------------------------------- JSON text ---- */

static int utf8_next(const unsigned char *s, size_t n, size_t *i, uint32_t *cp)
{
    unsigned char c = s[*i];
    if (c < 0x80) {
        *cp = c;
        (*i)++;
        return 0;
    }
    int len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || *i + (size_t)len > n)
        goto bad;
    uint32_t v = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    for (int k = 1; k < len; k++) {
        unsigned char cc = s[*i + (size_t)k];
        if ((cc & 0xC0) != 0x80)
            goto bad;
        v = (v << 6) | (cc & 0x3F);
    }
    if ((len == 2 && v < 0x80) || (len == 3 && v < 0x800) || (len == 4 && v < 0x10000) ||
        v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        goto bad;
    *cp = v;
    *i += (size_t)len;
    return 0;
bad:
    *cp = 0xFFFD;
    (*i)++;
    return -1;
}

int rp_json_str(ms_buf *b, const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    if (ms_buf_putc(b, '"'))
        return -1;
    while (i < n) {
        uint32_t cp;
        utf8_next(u, n, &i, &cp);
        int rc;
        switch (cp) {
        case '"': rc = ms_buf_puts(b, "\\\""); break;
        case '\\': rc = ms_buf_puts(b, "\\\\"); break;
        case '\n': rc = ms_buf_puts(b, "\\n"); break;
        case '\r': rc = ms_buf_puts(b, "\\r"); break;
        case '\t': rc = ms_buf_puts(b, "\\t"); break;
        case '\b': rc = ms_buf_puts(b, "\\b"); break;
        case '\f': rc = ms_buf_puts(b, "\\f"); break;
        default:
            if (cp < 0x20 || (cp >= 0x7F && cp < 0x10000)) /* Python: outside ' '..'~' */
                rc = ms_buf_printf(b, "\\u%04x", cp);
            else if (cp >= 0x10000) {
                uint32_t v = cp - 0x10000;
                rc = ms_buf_printf(b, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
            } else
                rc = ms_buf_putc(b, (char)cp);
        }
        if (rc)
            return -1;
    }
    return ms_buf_putc(b, '"');
}
