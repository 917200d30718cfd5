/* Dataset checksums: building a manifest of a tree and verifying a tree against a manifest. */
#include "common/treehash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/treehash_int.h"
#include "common/buf.h"
#include "common/hash.h"

/* Appends "; <path>: <reason>" items for an error message, at most `most` of them. */
static void list_problem(ms_buf *b, size_t *count, size_t most, const char *path, const char *reason)
{
    if (*count < most)
        ms_buf_printf(b, "%s%s: %s", *count ? "; " : "", path, reason);
    (*count)++;
}

int ms_ds_build(const char *root, const char *algo, const ms_ds_hash_opts *o, uint64_t exclude_dev,
                uint64_t exclude_ino, ms_ds_tree *t, ms_ds_manifest *out, ms_err *e)
{
    memset(out, 0, sizeof *out);
    if (!ms_hash_known(algo))
        return ms_err_set(e, MS_EUSAGE, "unknown hash algorithm '%s' (expected sha256, sha1 or md5)", algo);
    /* the walk and the hashing overlap: the workers start on the first files found */
    ms_ds_jobset js;
    int rc = ms_ds_walk_hash(root, algo, o, t, &js, e);
    if (rc)
        return rc;
    if ((exclude_dev || exclude_ino) && ms_ds_tree_exclude(t, exclude_dev, exclude_ino)) {
        for (size_t i = 0; i < js.n; i++)
            if (js.v[i]->dev == exclude_dev && js.v[i]->ino == exclude_ino) {
                memmove(&js.v[i], &js.v[i + 1], (js.n - i - 1) * sizeof *js.v);
                js.n--;
                break;
            }
    }
    ms_buf msg = MS_BUF_INIT;
    size_t nbad = 0;
    for (size_t i = 0; i < t->nskipped; i++)
        if (t->skipped[i].kind == MS_DS_SKIP_UNREADABLE)
            list_problem(&msg, &nbad, 3, t->skipped[i].path, t->skipped[i].reason);
    if (nbad) {
        rc = ms_err_set(e, MS_EINPUT, "%s: %zu unreadable entr%s, no manifest written: %s%s", root, nbad,
                        nbad == 1 ? "y" : "ies", msg.data ? msg.data : "", nbad > 3 ? "; ..." : "");
        ms_buf_free(&msg);
        ms_ds_jobset_free(&js);
        return rc;
    }
    if (js.n != t->nfiles) { /* cannot happen: one job per file found */
        ms_ds_jobset_free(&js);
        return ms_err_set(e, MS_ERUNTIME, "%s: %zu files walked but %zu hashed", root, t->nfiles, js.n);
    }
    for (size_t i = 0; i < js.n; i++)
        if (js.v[i]->failed)
            list_problem(&msg, &nbad, 3, js.v[i]->path, js.v[i]->err);
    if (nbad)
        rc = ms_err_set(e, MS_EINPUT, "%s: %zu file%s could not be read, no manifest written: %s%s", root,
                        nbad, nbad == 1 ? "" : "s", msg.data ? msg.data : "", nbad > 3 ? "; ..." : "");
    ms_buf_free(&msg);
    if (rc == MS_OK) {
        snprintf(out->algo, sizeof out->algo, "%s", algo);
        out->entries = calloc(js.n ? js.n : 1, sizeof *out->entries);
        if (!out->entries)
            rc = ms_err_oom(e);
        for (size_t i = 0; rc == MS_OK && i < js.n; i++) {
            ms_ds_entry *en = &out->entries[i];
            en->path = strdup(js.v[i]->path);
            if (!en->path) {
                rc = ms_err_oom(e);
                break;
            }
            en->size = (int64_t)js.v[i]->bytes;
            en->index = i;
            memcpy(en->digest, js.v[i]->digest, sizeof en->digest);
            out->n = i + 1;
        }
        out->cap = js.n;
        if (rc)
            ms_ds_manifest_free(out);
    }
    ms_ds_jobset_free(&js);
    return rc;
}

/* ---- verification ------------------------------------------------------------------------- */

static ms_ds_finding *add_finding(ms_ds_result *r, ms_ds_status st, const char *path, size_t line)
{
    if (MS_GROW(r->items, r->cap, r->n + 1, 32))
        return NULL;
    char *p = strdup(path);
    if (!p)
        return NULL;
    ms_ds_finding *f = &r->items[r->n++];
    memset(f, 0, sizeof *f);
    f->status = st;
    f->path = p;
    f->line = line;
    f->expected_size = f->found_size = -1;
    return f;
}

static int set_reason(ms_ds_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_reason(ms_ds_finding *f, const char *fmt, ...)
{
    ms_buf b = MS_BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    int rc = ms_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (rc)
        return -1;
    free(f->reason);
    f->reason = ms_buf_steal(&b);
    return 0;
}

/* Explains why a listed path was not among the walk's regular files: it does not exist
 * (MISSING) or something else is in the way (ERROR). Checks each prefix without following
 * symlinks, so the first symlink on the way is named. */
static int classify_absent(int rootfd, const ms_ds_entry *en, const ms_ds_verify_opts *o,
                           ms_ds_result *r)
{
    char *p = strdup(en->path);
    if (!p)
        return -1;
    ms_ds_status st = MS_DS_MISSING;
    char why[400] = "";
    for (char *s = p;; s++) {
        int last = *s == '\0';
        if (*s != '/' && !last)
            continue;
        *s = '\0';
        struct stat sb;
        if (fstatat(rootfd, p, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT && errno != ENOTDIR) {
                st = MS_DS_ERROR;
                snprintf(why, sizeof why, "cannot access%s%s: %s", last ? "" : " ", last ? "" : p,
                         strerror(errno));
            }
            break;
        }
        if (S_ISLNK(sb.st_mode)) {
            st = MS_DS_ERROR;
            if (last)
                snprintf(why, sizeof why, "symbolic link (not followed)");
            else
                snprintf(why, sizeof why, "reached through the symbolic link %s (not followed)", p);
            break;
        }
        if (last) {
            st = MS_DS_ERROR;
            if (S_ISDIR(sb.st_mode))
                snprintf(why, sizeof why, "is a directory");
            else if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_dev == o->exclude_dev &&
                     (uint64_t)sb.st_ino == o->exclude_ino)
                snprintf(why, sizeof why, "is the manifest itself (it cannot hold its own digest)");
            else if (S_ISREG(sb.st_mode))
                snprintf(why, sizeof why, "appeared while the tree was being checked");
            else if (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode) || S_ISCHR(sb.st_mode) ||
                     S_ISBLK(sb.st_mode))
                snprintf(why, sizeof why, "not a regular file (%s)",
                         S_ISFIFO(sb.st_mode)   ? "FIFO"
                         : S_ISSOCK(sb.st_mode) ? "socket"
                                                : "device");
            break;
        }
        if (!S_ISDIR(sb.st_mode))
            break; /* a file where a directory should be: the listed file is missing */
        *s = '/';
    }
    free(p);
    ms_ds_finding *f = add_finding(r, st, en->path, en->line);
    if (!f || (why[0] && set_reason(f, "%s", why)))
        return -1;
    f->expected_size = en->size;
    return 0;
}

static int cmp_finding(const void *a, const void *b)
{
    const ms_ds_finding *x = a, *y = b;
    if (x->status != y->status)
        return x->status < y->status ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int cmp_entry_ptr(const void *a, const void *b)
{
    return strcmp((*(const ms_ds_entry *const *)a)->path, (*(const ms_ds_entry *const *)b)->path);
}

int ms_ds_verify(const ms_ds_manifest *m, const char *root, const ms_ds_verify_opts *o,
                 ms_ds_result *r, ms_err *e)
{
    memset(r, 0, sizeof *r);
    const char *algo = m->algo[0] ? m->algo : "sha256"; /* an empty manifest hashes nothing */
    ms_ds_tree t;
    int rc = ms_ds_walk(root, &t, e);
    if (rc)
        return rc;
    if (o->exclude_dev || o->exclude_ino)
        ms_ds_tree_exclude(&t, o->exclude_dev, o->exclude_ino);
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const ms_ds_entry **ents = malloc((m->n ? m->n : 1) * sizeof *ents);
    ms_ds_job *jobs = calloc(m->n ? m->n : 1, sizeof *jobs);
    const ms_ds_entry **jobent = malloc((m->n ? m->n : 1) * sizeof *jobent);
    if (rootfd < 0) {
        rc = ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open the dataset directory", root);
        goto out;
    }
    if (!ents || !jobs || !jobent) {
        rc = ms_err_oom(e);
        goto out;
    }
    for (size_t i = 0; i < m->n; i++)
        ents[i] = &m->entries[i];
    if (m->n > 1)
        qsort(ents, m->n, sizeof *ents, cmp_entry_ptr);
    r->listed = m->n;

    /* merge the sorted manifest with the sorted walk */
    size_t i = 0, j = 0, s = 0, nj = 0;
    while (i < m->n || j < t.nfiles) {
        int c = i >= m->n ? 1 : j >= t.nfiles ? -1 : strcmp(ents[i]->path, t.files[j].path);
        if (c == 0) {
            const ms_ds_entry *en = ents[i];
            const ms_ds_file *f = &t.files[j];
            if (en->size >= 0 && (uint64_t)en->size != f->size) {
                ms_ds_finding *fd = add_finding(r, MS_DS_CHANGED, en->path, en->line);
                if (!fd)
                    goto oom;
                fd->expected_size = en->size;
                fd->found_size = (int64_t)f->size;
            } else {
                jobs[nj] = (ms_ds_job){.path = f->path, .size = f->size, .dev = f->dev, .ino = f->ino};
                jobent[nj++] = en;
            }
            i++;
            j++;
        } else if (c < 0) {
            if (classify_absent(rootfd, ents[i], o, r))
                goto oom;
            i++;
        } else {
            if (!o->ignore_extra) {
                ms_ds_finding *fd = add_finding(r, MS_DS_EXTRA, t.files[j].path, 0);
                if (!fd)
                    goto oom;
                fd->found_size = (int64_t)t.files[j].size;
            }
            j++;
        }
    }
    /* entries that are not regular files and not listed: notes (or errors for unreadable
     * directories, which hide files the manifest might not list) */
    for (i = 0, s = 0; s < t.nskipped && !o->ignore_extra; s++) {
        const ms_ds_skipped *sk = &t.skipped[s];
        while (i < m->n && strcmp(ents[i]->path, sk->path) < 0)
            i++;
        if (i < m->n && !strcmp(ents[i]->path, sk->path))
            continue; /* listed: already reported by classify_absent */
        ms_ds_finding *fd = add_finding(
            r, sk->kind == MS_DS_SKIP_UNREADABLE ? MS_DS_ERROR : MS_DS_SKIPPED, sk->path, 0);
        if (!fd || set_reason(fd, "%s", sk->reason))
            goto oom;
    }

    rc = ms_ds_hash_jobs(root, algo, jobs, nj, &o->hash, e);
    if (rc)
        goto out;
    for (size_t k = 0; k < nj; k++) {
        const ms_ds_job *jb = &jobs[k];
        const ms_ds_entry *en = jobent[k];
        if (jb->failed) {
            ms_ds_finding *fd = add_finding(r, MS_DS_ERROR, en->path, en->line);
            if (!fd || set_reason(fd, "%s", jb->err))
                goto oom;
            continue;
        }
        r->files_hashed++;
        r->bytes_hashed += jb->bytes;
        if (!strcmp(jb->digest, en->digest)) {
            r->ok++;
            continue;
        }
        ms_ds_finding *fd = add_finding(r, MS_DS_CHANGED, en->path, en->line);
        if (!fd)
            goto oom;
        memcpy(fd->expected, en->digest, sizeof fd->expected);
        memcpy(fd->found, jb->digest, sizeof fd->found);
        fd->expected_size = en->size;
        fd->found_size = (int64_t)jb->bytes;
    }
    if (r->n > 1)
        qsort(r->items, r->n, sizeof *r->items, cmp_finding);
    size_t *const count[] = {[MS_DS_MISSING] = &r->missing, [MS_DS_CHANGED] = &r->changed,
                             [MS_DS_EXTRA] = &r->extra,     [MS_DS_ERROR] = &r->errors,
                             [MS_DS_SKIPPED] = &r->skipped};
    for (size_t k = 0; k < r->n; k++)
        (*count[r->items[k].status])++;
    rc = MS_OK;
    goto out;
oom:
    rc = ms_err_oom(e);
out:
    if (rc)
        ms_ds_result_free(r);
    if (rootfd >= 0)
        close(rootfd);
    free(ents);
    free(jobs);
    free(jobent);
    ms_ds_tree_free(&t);
    return rc;
}

int ms_ds_result_ok(const ms_ds_result *r)
{
    return r->missing == 0 && r->changed == 0 && r->errors == 0 && r->extra == 0;
}

void ms_ds_result_free(ms_ds_result *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].path);
        free(r->items[i].reason);
    }
    free(r->items);
    memset(r, 0, sizeof *r);
}

/* ---- JSON report -------------------------------------------------------------------------- */

static const char *status_key(ms_ds_status s)
{
    switch (s) {
    case MS_DS_MISSING:
        return "missing";
    case MS_DS_CHANGED:
        return "changed";
    case MS_DS_EXTRA:
        return "extra";
    case MS_DS_ERROR:
        return "errors";
    case MS_DS_SKIPPED:
        return "skipped";
    }
    return "errors";
}

static json_t *finding_json(const ms_ds_finding *f)
{
    json_t *o = json_object();
    if (!o || ms_ds_json_set_path(o, f->path))
        goto bad;
    if (f->line && json_object_set_new(o, "line", json_integer((json_int_t)f->line)))
        goto bad;
    if (f->expected[0] && (json_object_set_new(o, "expected", json_string(f->expected)) ||
                           json_object_set_new(o, "found", json_string(f->found))))
        goto bad;
    if (f->expected_size >= 0 &&
        json_object_set_new(o, "expected_size", json_integer((json_int_t)f->expected_size)))
        goto bad;
    if (f->found_size >= 0 && json_object_set_new(o, "size", json_integer((json_int_t)f->found_size)))
        goto bad;
    if (f->reason && json_object_set_new(o, "reason", json_string(f->reason)))
        goto bad;
    return o;
bad:
    json_decref(o);
    return NULL;
}

/* A JSON string of s, or of its display form when s is not valid UTF-8. */
static json_t *display_string(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    ms_buf b = MS_BUF_INIT;
    if (ms_ds_escape_name(&b, s, strlen(s)) == 0)
        j = json_string(b.data);
    ms_buf_free(&b);
    return j;
}

int ms_ds_write_result_json(const ms_ds_result *r, const char *manifest, const char *root,
                            const char *algo, FILE *out, ms_err *e)
{
    json_t *doc = json_object(), *counts = json_object();
    int bad = !doc || !counts ||
              json_object_set_new(doc, "manifest", display_string(manifest)) ||
              json_object_set_new(doc, "root", display_string(root)) ||
              json_object_set_new(doc, "algorithm", json_string(algo)) ||
              json_object_set_new(doc, "ok", json_boolean(ms_ds_result_ok(r))) ||
              json_object_set_new(counts, "listed", json_integer((json_int_t)r->listed)) ||
              json_object_set_new(counts, "ok", json_integer((json_int_t)r->ok)) ||
              json_object_set_new(counts, "missing", json_integer((json_int_t)r->missing)) ||
              json_object_set_new(counts, "changed", json_integer((json_int_t)r->changed)) ||
              json_object_set_new(counts, "extra", json_integer((json_int_t)r->extra)) ||
              json_object_set_new(counts, "errors", json_integer((json_int_t)r->errors)) ||
              json_object_set_new(counts, "skipped", json_integer((json_int_t)r->skipped)) ||
              json_object_set_new(counts, "bytes_hashed", json_integer((json_int_t)r->bytes_hashed));
    if (!bad) {
        bad = json_object_set(doc, "counts", counts) != 0;
        static const ms_ds_status order[] = {MS_DS_MISSING, MS_DS_CHANGED, MS_DS_EXTRA, MS_DS_ERROR,
                                             MS_DS_SKIPPED};
        for (size_t k = 0; !bad && k < sizeof order / sizeof order[0]; k++)
            bad = json_object_set_new(doc, status_key(order[k]), json_array());
        for (size_t i = 0; !bad && i < r->n; i++) {
            json_t *arr = json_object_get(doc, status_key(r->items[i].status));
            bad = json_array_append_new(arr, finding_json(&r->items[i])) != 0;
        }
    }
    json_decref(counts);
    if (bad) {
        json_decref(doc);
        return ms_err_oom(e);
    }
    int rc = json_dumpf(doc, out, JSON_INDENT(2));
    json_decref(doc);
    if (rc != 0 || fputc('\n', out) == EOF || ferror(out))
        return ms_err_set(e, MS_ERUNTIME, "write error while writing the report");
    return MS_OK;
}
