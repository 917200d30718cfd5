/* mlsubmit package: a reproducible tar.gz of a submission tree with its index inside, and the
 * verification of such a package.
 *
 * Reproducible: the index (portable: no mtimes, no absolute paths, no clock) is the first member
 * (.mlsubmit/index.sqlite), then every directory, file and link of the tree sorted bytewise by
 * path; owner root:root (0:0), mtime SOURCE_DATE_EPOCH or 0, permissions 0755 (directories,
 * executables) / 0644 (files) / 0777 (links), pax-restricted format (ustar unless a name needs
 * more), gzip without a timestamp or name: the same tree gives the same bytes wherever it lives.
 *
 * Safe: absolute names and '..' never occur (names are the walk's relative paths); a symbolic
 * link whose target is absolute, climbs above ROOT, or resolves outside ROOT refuses the package.
 *
 * Atomic: the tarball and the .sha256 are written to unnamed O_TMPFILE files in the output
 * directory and linked into place only when complete (a named temporary file when the file
 * system has no O_TMPFILE), so a run killed at any point leaves no partial output. */
#include "report/report.h"

#include "common/lazy_archive.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include "common/lazy_crypto.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/treehash.h"
#include "common/buf.h"
#include "common/fsutil.h"
#include "common/hash.h"
#include "report/internal.h"

#define CHUNK (256 * 1024)
#define pnote(o, line, ...) rp_notef((o)->note, (o)->ctx, (line), __VA_ARGS__)

/* ----------------------------------------------------------- archive IO ---- */

typedef struct wctx {
    int fd;
    EVP_MD_CTX *md;
    uint64_t bytes;
} wctx;

static la_ssize_t wcb(struct archive *a, void *cd, const void *buf, size_t n)
{
    wctx *w = cd;
    const char *p = buf;
    size_t left = n;
    while (left) {
        ssize_t r = write(w->fd, p, left);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            archive_set_error(a, errno, "write failed");
            return -1;
        }
        p += r;
        left -= (size_t)r;
    }
    EVP_DigestUpdate(w->md, buf, n);
    w->bytes += n;
    return (la_ssize_t)n;
}

typedef struct member {
    char *path;
    int kind; /* 0 dir, 1 file, 2 link */
    uint64_t size;
    unsigned mode;
    char *target;
} member;

static int cmp_member(const void *a, const void *b)
{
    return strcmp(((const member *)a)->path, ((const member *)b)->path);
}

/* Lexical resolution of a link target relative to the link's directory: 1 if it stays in ROOT. */
static int target_inside(const char *linkpath, const char *target)
{
    if (target[0] == '/')
        return 0;
    int depth = 0;
    for (const char *p = linkpath; *p; p++)
        if (*p == '/')
            depth++;
    const char *p = target;
    while (*p) {
        const char *s = strchr(p, '/');
        size_t l = s ? (size_t)(s - p) : strlen(p);
        if (l == 2 && !strncmp(p, "..", 2)) {
            if (--depth < 0)
                return 0;
        } else if (l && !(l == 1 && p[0] == '.'))
            depth++;
        p += l;
        while (*p == '/')
            p++;
    }
    return 1;
}


static int list_members(const rp_package_opts *o, member **out, size_t *nout, ms_err *e)
{
    ms_ds_tree t;
    int rc = ms_ds_walk(o->root, &t, e);
    if (rc)
        return rc;
    size_t cap = t.nfiles * 2 + t.nskipped + 16, n = 0;
    member *m = calloc(cap, sizeof *m);
    char *rroot = realpath(o->root, NULL);
    if (!m || !rroot) {
        free(m);
        free(rroot);
        ms_ds_tree_free(&t);
        return rroot ? ms_err_oom(e) : ms_err_errno(e, MS_EINPUT, errno, "%s", o->root);
    }
    int rfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0)
        rc = ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", o->root);
    for (size_t i = 0; i < t.nskipped && !rc; i++) {
        const ms_ds_skipped *s = &t.skipped[i];
        if (s->kind == MS_DS_SKIP_UNREADABLE) {
            rc = ms_err_set(e, MS_EINPUT, "%s/%s: %s", o->root, s->path, s->reason);
            break;
        }
        if (s->kind == MS_DS_SKIP_SPECIAL) {
            rc = ms_err_set(e, MS_EINPUT, "%s/%s: a device, FIFO or socket cannot be packaged", o->root, s->path);
            break;
        }
        char target[PATH_MAX];
        ssize_t tl = readlinkat(rfd, s->path, target, sizeof target - 1);
        if (tl < 0) {
            rc = ms_err_errno(e, MS_EINPUT, errno, "%s/%s: cannot read the link", o->root, s->path);
            break;
        }
        target[tl] = 0;
        char *abs = rp_fmt("%s/%s", o->root, s->path);
        char *res = abs ? realpath(abs, NULL) : NULL;
        size_t rl = strlen(rroot);
        int inside = target_inside(s->path, target) &&
                     (!res || (!strncmp(res, rroot, rl) && (res[rl] == '/' || res[rl] == 0)));
        free(abs);
        free(res);
        if (!inside) {
            rc = ms_err_set(e, MS_FAIL, "%s/%s: symbolic link to '%s' leaves the submission root; refused "
                                        "(replace it by the file, or by a link inside the tree)",
                            o->root, s->path, target);
            break;
        }
        m[n].path = strdup(s->path);
        m[n].target = strdup(target);
        m[n].kind = 2;
        m[n].mode = 0777;
        if (!m[n].path || !m[n].target) {
            rc = ms_err_oom(e);
            break;
        }
        n++;
    }
    for (size_t i = 0; i < t.nfiles && !rc; i++) {
        struct stat st;
        if (fstatat(rfd, t.files[i].path, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
            rc = ms_err_set(e, MS_EINPUT, "%s/%s: vanished while packaging", o->root, t.files[i].path);
            break;
        }
        m[n].path = strdup(t.files[i].path);
        if (!m[n].path) {
            rc = ms_err_oom(e);
            break;
        }
        m[n].kind = 1;
        m[n].size = (uint64_t)st.st_size;
        m[n].mode = (st.st_mode & 0111) ? 0755 : 0644;
        n++;
    }
    /* directories: every parent of a file or link */
    size_t nfl = n;
    for (size_t i = 0; i < nfl && !rc; i++) {
        char *p = strdup(m[i].path);
        if (!p) {
            rc = ms_err_oom(e);
            break;
        }
        for (char *s = strrchr(p, '/'); s; s = strrchr(p, '/')) {
            *s = 0;
            int seen = 0;
            for (size_t k = nfl; k < n && !seen; k++)
                seen = !strcmp(m[k].path, p);
            if (seen)
                break;
            if (MS_GROW(m, cap, n + 1, 16)) {
                rc = ms_err_oom(e);
                break;
            }
            memset(&m[n], 0, sizeof m[n]);
            if (!(m[n].path = strdup(p))) {
                rc = ms_err_oom(e);
                break;
            }
            m[n].kind = 0;
            m[n].mode = 0755;
            n++;
        }
        free(p);
    }
    if (rfd >= 0)
        close(rfd);
    free(rroot);
    ms_ds_tree_free(&t);
    qsort(m, n, sizeof *m, cmp_member);
    *out = m;
    *nout = n;
    return rc;
}

static void members_free(member *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(m[i].path);
        free(m[i].target);
    }
    free(m);
}

static void entry_common(struct archive_entry *en, const char *path, time_t mtime)
{
    archive_entry_set_pathname(en, path);
    archive_entry_set_uid(en, 0);
    archive_entry_set_gid(en, 0);
    archive_entry_set_uname(en, "root");
    archive_entry_set_gname(en, "root");
    archive_entry_set_mtime(en, mtime, 0);
}

static int write_member_file(struct archive *a, const rp_package_opts *o, const member *m, time_t mtime,
                             char *buf, ms_err *e)
{
    char *abs = rp_fmt("%s/%s", o->root, m->path);
    if (!abs)
        return ms_err_oom(e);
    int fd = open(abs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int rc = ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", abs);
        free(abs);
        return rc;
    }
    struct archive_entry *en = archive_entry_new();
    if (!en) {
        close(fd);
        free(abs);
        return ms_err_oom(e);
    }
    entry_common(en, m->path, mtime);
    archive_entry_set_filetype(en, AE_IFREG);
    archive_entry_set_perm(en, m->mode);
    archive_entry_set_size(en, (la_int64_t)m->size);
    int rc = 0;
    if (archive_write_header(a, en) != ARCHIVE_OK)
        rc = ms_err_set(e, MS_ERUNTIME, "%s: %s", m->path, archive_error_string(a));
    uint64_t done = 0;
    while (!rc) {
        size_t r;
        if ((rc = ms_read_some(fd, buf, CHUNK, &r, abs, e)) != MS_OK || r == 0)
            break;
        if (done + r > m->size) {
            rc = ms_err_set(e, MS_EINPUT, "%s: the file grew while packaging", abs);
            break;
        }
        if (archive_write_data(a, buf, r) != (la_ssize_t)r) {
            rc = ms_err_set(e, MS_ERUNTIME, "%s: %s", m->path, archive_error_string(a));
            break;
        }
        done += (uint64_t)r;
    }
    if (!rc && done != m->size)
        rc = ms_err_set(e, MS_EINPUT, "%s: the file shrank while packaging", abs);
    archive_entry_free(en);
    close(fd);
    free(abs);
    return rc;
}

int rp_package(const rp_package_opts *o, rp_package_stats *st, ms_err *e)
{
    memset(st, 0, sizeof *st);
    st->check_exit = -1;
    ms_buf line = MS_BUF_INIT;
    if (!ms_is_dir(o->root))
        return ms_err_root(e, o->root, 0, 0);
    member *m = NULL;
    size_t n = 0;
    int rc = list_members(o, &m, &n, e);
    if (rc) {
        members_free(m, n);
        return rc;
    }
    /* the output must not be inside the tree (it would package itself) */
    char *rroot = realpath(o->root, NULL);
    char *odir = strdup(o->output);
    if (!rroot || !odir)
        rc = ms_err_oom(e);
    else {
        char *s = strrchr(odir, '/');
        const char *d = s ? (s == odir ? "/" : (*s = 0, odir)) : ".";
        char *rd = realpath(d, NULL);
        size_t rl = strlen(rroot);
        if (!rd)
            rc = ms_err_errno(e, MS_EUSAGE, errno, "%s: the output directory", d);
        else if (!strncmp(rd, rroot, rl) && (rd[rl] == '/' || rd[rl] == 0))
            rc = ms_err_set(e, MS_EUSAGE, "%s: the package cannot be written inside the tree it packages", o->output);
        free(rd);
    }
    free(rroot);
    free(odir);
    /* 1. the checker */
    rp_check_out ck;
    memset(&ck, 0, sizeof ck);
    if (!rc)
        rc = rp_check_run(o->root, o->version, o->data_dir, o->check, &ck, e);
    if (!rc) {
        st->check_exit = ck.exit_code;
        json_t *cnt = json_object_get(ck.report, "counts");
        pnote(o, &line, "check (rules %s): %s (%lld errors, %lld warnings)", ck.version,
              json_string_value(json_object_get(ck.report, "verdict")),
              (long long)json_integer_value(json_object_get(cnt, "errors")),
              (long long)json_integer_value(json_object_get(cnt, "warnings")));
        if (ck.exit_code) {
            rp_check_failure_text(json_object_get(ck.report, "findings"), rp_check_unified(&ck), st->check_failure,
                                  sizeof st->check_failure);
            if (!o->force)
                rc = ms_err_set(e, MS_FAIL, "%s: the checker finds errors: %s ('mlsubmit check %s' lists the findings); "
                                            "not packaged (--force packages anyway)", o->root, st->check_failure, o->root);
        }
    }
    rp_check_out_free(&ck);
    /* 2. the index, in memory */
    unsigned char *idx = NULL;
    size_t idxlen = 0;
    if (!rc) {
        rp_index_opts io = {.root = o->root, .version = o->version, .data_dir = o->data_dir, .backup = o->backup,
                            .jobs = o->jobs, .portable = 1, .check = o->check};
        rp_index_stats is;
        rc = rp_index_mem(&io, &is, &idx, &idxlen, e);
    }
    /* 3. the tarball */
    ms_afile of = {0}, sf = {0}; /* unnamed until committed (common/fsutil.h) */
    struct archive *a = NULL;
    char *buf = NULL;
    if (!rc)
        rc = ms_lazy_crypto_load("mlsubmit package", e);
    EVP_MD_CTX *md = rc ? NULL : EVP_MD_CTX_new();
    wctx w = {.md = md};
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    time_t mtime = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : 0;
    if (!rc && (!md || !(buf = malloc(CHUNK))))
        rc = ms_err_oom(e);
    if (!rc)
        rc = ms_afile_open(&of, o->output, e);
    if (!rc) {
        w.fd = fileno(of.fp); /* libarchive writes through the descriptor; the FILE stays unused */
        EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        rc = ms_lazy_archive_load("mlsubmit package", e);
    }
    if (!rc) {
        a = archive_write_new();
        if (!a || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
            archive_write_set_options(a, "gzip:!timestamp,gzip:compression-level=6") != ARCHIVE_OK ||
            archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
            archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
            archive_write_open2(a, &w, NULL, wcb, NULL, NULL) != ARCHIVE_OK)
            rc = ms_err_set(e, MS_ERUNTIME, "libarchive: %s", a ? archive_error_string(a) : "out of memory");
    }
    if (!rc) {
        struct archive_entry *en = archive_entry_new();
        if (!en)
            rc = ms_err_oom(e);
        else {
            entry_common(en, RP_PACKAGE_INDEX, mtime);
            archive_entry_set_filetype(en, AE_IFREG);
            archive_entry_set_perm(en, 0644);
            archive_entry_set_size(en, (la_int64_t)idxlen);
            if (archive_write_header(a, en) != ARCHIVE_OK ||
                archive_write_data(a, idx, idxlen) != (la_ssize_t)idxlen)
                rc = ms_err_set(e, MS_ERUNTIME, "%s: %s", RP_PACKAGE_INDEX, archive_error_string(a));
            archive_entry_free(en);
        }
    }
    /* the index's own digest, so that a change to the index is caught like any other member */
    if (!rc) {
        char hex[MS_HASH_HEX_MAX];
        char *txt = NULL;
        struct archive_entry *en = archive_entry_new();
        if (!en || ms_hash_mem("sha256", idx, idxlen, hex, e) || !(txt = rp_fmt("%s  index.sqlite\n", hex)))
            rc = en ? (e->code ? e->code : ms_err_oom(e)) : ms_err_oom(e);
        else {
            entry_common(en, RP_PACKAGE_INDEX ".sha256", mtime);
            archive_entry_set_filetype(en, AE_IFREG);
            archive_entry_set_perm(en, 0644);
            archive_entry_set_size(en, (la_int64_t)strlen(txt));
            if (archive_write_header(a, en) != ARCHIVE_OK ||
                archive_write_data(a, txt, strlen(txt)) != (la_ssize_t)strlen(txt))
                rc = ms_err_set(e, MS_ERUNTIME, "%s.sha256: %s", RP_PACKAGE_INDEX, archive_error_string(a));
        }
        free(txt);
        archive_entry_free(en);
        st->members++;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        if (m[i].kind == 1) {
            rc = write_member_file(a, o, &m[i], mtime, buf, e);
            st->files++;
            st->bytes += m[i].size;
        } else {
            struct archive_entry *en = archive_entry_new();
            if (!en) {
                rc = ms_err_oom(e);
                break;
            }
            entry_common(en, m[i].path, mtime);
            archive_entry_set_filetype(en, m[i].kind ? AE_IFLNK : AE_IFDIR);
            archive_entry_set_perm(en, m[i].mode);
            if (m[i].kind == 2) {
                archive_entry_set_symlink(en, m[i].target);
                st->symlinks++;
            } else
                st->dirs++;
            archive_entry_set_size(en, 0);
            if (archive_write_header(a, en) != ARCHIVE_OK)
                rc = ms_err_set(e, MS_ERUNTIME, "%s: %s", m[i].path, archive_error_string(a));
            archive_entry_free(en);
        }
        st->members++;
    }
    if (a) {
        if (!rc && archive_write_close(a) != ARCHIVE_OK)
            rc = ms_err_set(e, MS_ERUNTIME, "%s: %s", o->output, archive_error_string(a));
        archive_write_free(a);
    }
    st->members += 1; /* the index */
    /* 4. the .sha256 beside, then both names */
    if (!rc) {
        unsigned char dg[EVP_MAX_MD_SIZE];
        unsigned dl = 0;
        EVP_DigestFinal_ex(md, dg, &dl);
        for (unsigned i = 0; i < dl && i < 32; i++)
            snprintf(st->sha256 + 2 * i, 3, "%02x", dg[i]);
        char *sp = rp_fmt("%s.sha256", o->output);
        const char *slash = strrchr(o->output, '/');
        char *text = rp_fmt("%s  %s\n", st->sha256, slash ? slash + 1 : o->output);
        if (!sp || !text)
            rc = ms_err_oom(e);
        else if (!(rc = ms_afile_open(&sf, sp, e))) {
            size_t tl = strlen(text);
            if (fwrite(text, 1, tl, sf.fp) != tl)
                rc = ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot write", sp);
        }
        free(sp);
        free(text);
    }
    if (!rc)
        rc = ms_afile_commit(&of, e);
    if (!rc)
        rc = ms_afile_commit(&sf, e);
    ms_afile_abort(&of);
    ms_afile_abort(&sf);
    if (md)
        EVP_MD_CTX_free(md);
    free(buf);
    free(idx);
    members_free(m, n);
    ms_buf_free(&line);
    return rc;
}

/* ------------------------------------------------------------- verify ---- */

typedef struct vrow {
    char *path;
    int is_link;
    char sha[65];
    char *target;
    int seen;
} vrow;

static int cmp_vrow(const void *a, const void *b)
{
    return strcmp(((const vrow *)a)->path, ((const vrow *)b)->path);
}

#define vnote rp_notef

/* Loads the files table of an index held in memory. */
static int load_index(const unsigned char *data, size_t len, const char *name, vrow **out, size_t *nout, ms_err *e)
{
    *out = NULL;
    *nout = 0;
    sqlite3 *db = NULL;
    if (ms_lazy_sqlite_load("mlsubmit package", e))
        return MS_ERUNTIME;
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return ms_err_oom(e);
    }
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
    unsigned char *copy = sqlite3_malloc64(len ? len : 1);
    if (!copy) {
        sqlite3_close(db);
        return ms_err_oom(e);
    }
    memcpy(copy, data, len);
    if (sqlite3_deserialize(db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
        sqlite3_close(db);
        return ms_err_set(e, MS_EINPUT, "%s: %s is not an SQLite database", name, RP_PACKAGE_INDEX);
    }
    sqlite3_stmt *st = NULL;
    int rc = 0;
    if (sqlite3_prepare_v2(db, "SELECT path, type, sha256, link_target FROM files ORDER BY path", -1, &st, NULL) !=
        SQLITE_OK) {
        rc = ms_err_set(e, MS_EINPUT, "%s: %s: not an mlsubmit index: %s", name, RP_PACKAGE_INDEX, sqlite3_errmsg(db));
        sqlite3_close(db);
        return rc;
    }
    size_t cap = 64, n = 0;
    vrow *v = calloc(cap, sizeof *v);
    if (!v)
        rc = ms_err_oom(e);
    int r;
    while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
        const char *p = (const char *)sqlite3_column_text(st, 0);
        const char *t = (const char *)sqlite3_column_text(st, 1);
        const char *s = (const char *)sqlite3_column_text(st, 2);
        const char *tg = (const char *)sqlite3_column_text(st, 3);
        if (!p || !t) {
            rc = ms_err_set(e, MS_EINPUT, "%s: %s: a files row without path or type", name, RP_PACKAGE_INDEX);
            break;
        }
        if (MS_GROW(v, cap, n + 1, 16)) {
            rc = ms_err_oom(e);
            break;
        }
        memset(&v[n], 0, sizeof v[n]);
        v[n].path = strdup(p);
        v[n].is_link = !strcmp(t, "symlink");
        if (s)
            snprintf(v[n].sha, sizeof v[n].sha, "%s", s);
        v[n].target = tg ? strdup(tg) : NULL;
        if (!v[n].path) {
            rc = ms_err_oom(e);
            break;
        }
        n++;
    }
    if (!rc && r != SQLITE_DONE)
        rc = ms_err_set(e, MS_EINPUT, "%s: %s: %s", name, RP_PACKAGE_INDEX, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (rc) {
        for (size_t i = 0; i < n; i++) {
            free(v[i].path);
            free(v[i].target);
        }
        free(v);
        return rc;
    }
    qsort(v, n, sizeof *v, cmp_vrow);
    *out = v;
    *nout = n;
    return 0;
}

static int bad_name(const char *p)
{
    if (!*p || p[0] == '/')
        return 1;
    for (const char *s = p; *s;) {
        const char *q = strchr(s, '/');
        size_t l = q ? (size_t)(q - s) : strlen(s);
        if (l == 2 && s[0] == '.' && s[1] == '.')
            return 1;
        s += l;
        while (*s == '/')
            s++;
    }
    return 0;
}

#define INDEX_MAX (1ULL << 32)

static int verify_archive(struct archive *a, const char *name, rp_note_fn note, void *ctx, rp_verify_stats *st,
                          ms_err *e)
{
    ms_buf line = MS_BUF_INIT, idx = MS_BUF_INIT;
    vrow *rows = NULL;
    size_t nrows = 0;
    int rc = 0;
    struct archive_entry *en;
    char *buf = malloc(CHUNK);
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (!buf || !md) {
        rc = ms_err_oom(e);
        goto out;
    }
    int r = archive_read_next_header(a, &en);
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
        rc = ms_err_set(e, MS_EINPUT, "%s: not a readable tar.gz: %s", name,
                        r == ARCHIVE_EOF ? "empty archive" : archive_error_string(a));
        goto out;
    }
    const char *p0 = archive_entry_pathname(en);
    if (!p0 || strcmp(p0, RP_PACKAGE_INDEX)) {
        rc = ms_err_set(e, MS_EINPUT, "%s: the first member is %s, expected the index %s (not an mlsubmit package)",
                        name, p0 ? p0 : "(unnamed)", RP_PACKAGE_INDEX);
        goto out;
    }
    for (;;) {
        la_ssize_t got = archive_read_data(a, buf, CHUNK);
        if (got < 0) {
            rc = ms_err_set(e, MS_EINPUT, "%s: %s: %s", name, RP_PACKAGE_INDEX, archive_error_string(a));
            goto out;
        }
        if (got == 0)
            break;
        if (idx.len + (size_t)got > INDEX_MAX) {
            rc = ms_err_set(e, MS_EINPUT, "%s: %s is too large", name, RP_PACKAGE_INDEX);
            goto out;
        }
        if (ms_buf_append(&idx, buf, (size_t)got)) {
            rc = ms_err_oom(e);
            goto out;
        }
    }
    st->members = 1;
    /* the index's digest member */
    char ihex[MS_HASH_HEX_MAX];
    if ((rc = ms_hash_mem("sha256", idx.data ? idx.data : "", idx.len, ihex, e)))
        goto out;
    r = archive_read_next_header(a, &en);
    const char *p1 = (r == ARCHIVE_OK || r == ARCHIVE_WARN) ? archive_entry_pathname(en) : NULL;
    if (!p1 || strcmp(p1, RP_PACKAGE_INDEX ".sha256")) {
        rc = ms_err_set(e, MS_EINPUT, "%s: the second member is %s, expected %s.sha256 (not an mlsubmit package)",
                        name, p1 ? p1 : "(none)", RP_PACKAGE_INDEX);
        goto out;
    }
    st->members++;
    char said[80] = "";
    la_ssize_t sl = archive_read_data(a, said, sizeof said - 1);
    said[sl > 0 ? sl : 0] = 0;
    int index_ok = sl >= 64 && !strncmp(said, ihex, 64);
    if (!index_ok) {
        st->changed++;
        vnote(note, ctx, &line, "CHANGED  %s: sha256 %s, %s.sha256 says %.64s", RP_PACKAGE_INDEX, ihex, RP_PACKAGE_INDEX,
              said);
    }
    if (load_index((const unsigned char *)idx.data, idx.len, name, &rows, &nrows, e)) {
        if (index_ok) {
            rc = e->code;
            goto out;
        }
        /* a damaged index: reported above; nothing to compare the members with */
        st->errors++;
        vnote(note, ctx, &line, "ERROR    %s: unreadable (%s)", RP_PACKAGE_INDEX, e->msg);
        goto out;
    }
    while ((r = archive_read_next_header(a, &en)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        const char *p = archive_entry_pathname(en);
        st->members++;
        if (!p || bad_name(p)) {
            st->errors++;
            vnote(note, ctx, &line, "UNSAFE   %s: absolute or '..' member name", p ? p : "(unnamed)");
            continue;
        }
        if (!strncmp(p, "./", 2))
            p += 2;
        mode_t ft = archive_entry_filetype(en);
        if (ft == AE_IFDIR)
            continue;
        vrow key = {.path = (char *)p};
        vrow *row = bsearch(&key, rows, nrows, sizeof *rows, cmp_vrow);
        if (!row) {
            st->extra++;
            vnote(note, ctx, &line, "EXTRA    %s: not in the index", p);
            continue;
        }
        row->seen = 1;
        if (ft == AE_IFLNK) {
            const char *tg = archive_entry_symlink(en);
            if (!row->is_link || !tg || !row->target || strcmp(tg, row->target)) {
                st->changed++;
                vnote(note, ctx, &line, "CHANGED  %s: link to '%s', the index says %s%s", p, tg ? tg : "",
                      row->is_link ? "a link to " : "a file", row->is_link && row->target ? row->target : "");
            } else
                st->ok++;
            continue;
        }
        if (ft != AE_IFREG) {
            st->errors++;
            vnote(note, ctx, &line, "UNSAFE   %s: not a file, directory or link", p);
            continue;
        }
        EVP_DigestInit_ex(md, EVP_sha256(), NULL);
        int bad = 0;
        for (;;) {
            la_ssize_t got = archive_read_data(a, buf, CHUNK);
            if (got < 0) {
                bad = 1;
                break;
            }
            if (got == 0)
                break;
            EVP_DigestUpdate(md, buf, (size_t)got);
        }
        if (bad) {
            /* a damaged member: reported by name; the stream cannot be trusted beyond it */
            st->errors++;
            vnote(note, ctx, &line, "ERROR    %s: %s", p, archive_error_string(a));
            row->seen = 1;
            r = ARCHIVE_EOF;
            break;
        }
        unsigned char dg[EVP_MAX_MD_SIZE];
        unsigned dl = 0;
        char hex[65];
        EVP_DigestFinal_ex(md, dg, &dl);
        for (unsigned i = 0; i < 32 && i < dl; i++)
            snprintf(hex + 2 * i, 3, "%02x", dg[i]);
        if (row->is_link || strcmp(hex, row->sha)) {
            st->changed++;
            vnote(note, ctx, &line, "CHANGED  %s: sha256 %s, the index says %s", p, hex,
                  row->is_link ? "a link" : row->sha);
        } else
            st->ok++;
    }
    if (r != ARCHIVE_EOF) {
        st->errors++;
        vnote(note, ctx, &line, "ERROR    %s: the archive is damaged after member %zu: %s", name, st->members,
              archive_error_string(a));
    }
    for (size_t i = 0; i < nrows; i++)
        if (!rows[i].seen) {
            st->missing++;
            vnote(note, ctx, &line, "MISSING  %s: in the index, not in the package", rows[i].path);
        }
out:
    for (size_t i = 0; i < nrows; i++) {
        free(rows[i].path);
        free(rows[i].target);
    }
    free(rows);
    free(buf);
    EVP_MD_CTX_free(md);
    ms_buf_free(&line);
    ms_buf_free(&idx);
    return rc;
}

/* A tar.gz reader; NULL with e set when libarchive cannot be loaded or memory runs out. */
static struct archive *reader(ms_err *e)
{
    if (ms_lazy_archive_load("mlsubmit package --verify", e) != MS_OK ||
        ms_lazy_crypto_load("mlsubmit package --verify", e) != MS_OK)
        return NULL;
    struct archive *a = archive_read_new();
    if (!a) {
        ms_err_oom(e);
        return NULL;
    }
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    return a;
}

/* Verifies the package file at path or, path NULL, the package of len bytes at data; name names
 * it in messages. */
static int verify_source(const char *path, const void *data, size_t len, const char *name, rp_note_fn note,
                         void *ctx, rp_verify_stats *st, ms_err *e)
{
    struct archive *a = reader(e);
    if (!a)
        return e ? e->code : MS_ERUNTIME;
    int opened = path ? archive_read_open_filename(a, path, CHUNK) : archive_read_open_memory(a, data, len);
    int rc;
    if (opened != ARCHIVE_OK)
        rc = ms_err_set(e, MS_EINPUT, "%s: not a readable tar.gz: %s", name, archive_error_string(a));
    else
        rc = verify_archive(a, name, note, ctx, st, e);
    archive_read_free(a);
    return rc;
}

int rp_package_verify_mem(const void *data, size_t len, const char *name, rp_note_fn note, void *ctx,
                          rp_verify_stats *st, ms_err *e)
{
    memset(st, 0, sizeof *st);
    st->sha256_file = -1;
    return verify_source(NULL, data, len, name, note, ctx, st, e);
}

int rp_package_verify(const char *path, rp_note_fn note, void *ctx, rp_verify_stats *st, ms_err *e)
{
    memset(st, 0, sizeof *st);
    st->sha256_file = -1;
    if (!ms_is_regular_file(path))
        return ms_err_set(e, MS_EINPUT, "%s: no such package", path);
    int rc = verify_source(path, NULL, 0, path, note, ctx, st, e);
    if (rc)
        return rc;
    /* the .sha256 beside */
    char *sp = rp_fmt("%s.sha256", path);
    if (!sp)
        return ms_err_oom(e);
    if (ms_is_regular_file(sp)) {
        char *text = NULL;
        size_t tl = 0;
        char hex[MS_HASH_HEX_MAX];
        ms_buf line = MS_BUF_INIT;
        if (ms_read_file(sp, 4096, &text, &tl, e) == 0 && ms_hash_file("sha256", path, hex, NULL, e) == 0) {
            st->sha256_file = tl >= 64 && !strncmp(text, hex, 64);
            if (!st->sha256_file)
                vnote(note, ctx, &line, "CHANGED  %s: sha256 %s, %s says %.64s", path, hex, sp, text);
        } else
            rc = MS_EINPUT;
        free(text);
        ms_buf_free(&line);
    }
    free(sp);
    return rc;
}
