/* Structure checks over everything under <division>/<submitter>/ (S4-S9 of the legacy checker,
 * plus the stricter S12/S13), with os.walk's semantics: directories are walked top-down
 * without following symbolic links; a link to a directory counts as a subdirectory of its
 * parent but is not entered. Iterative (no recursion), so deep trees cannot exhaust the stack.
 * Its listings (with the size of every file, for S5) go to the listing store of the parallel
 * phase (fsx.c), where the result tasks find them instead of listing and stat'ing again. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checker/internal.h"
#include "common/pytext.h"

#define MAX_PER_CHECK 50

typedef struct wctx {
    ck_state *run;
    ck_submitter *sub;
    ck_where w;
    char *root_real;       /* realpath of ROOT */
    size_t root_real_len;
    size_t count[16];      /* findings per check (index by check number) */
    size_t extra[16];      /* beyond MAX_PER_CHECK */
    int unified;
} wctx;

static int idx_of(const char *id)
{
    return atoi(id + 1) & 15;
}

static void walk_find(wctx *c, const char *id, int stricter, const char *rel,
                      const char *expected, const char *found, const char *msg)
{
    int k = idx_of(id);
    if (c->count[k] >= MAX_PER_CHECK) {
        c->extra[k]++;
        return;
    }
    c->count[k]++;
    ck_sev sev = (stricter || c->unified) ? CK_SEV_WARNING : CK_SEV_ERROR;
    ck_report_finding(c->run, &c->sub->walk, &c->w, id, sev, rel, 0, NULL, expected, found,
                      "%s%s", msg, c->unified && !stricter ? " (legacy check; not enforced by "
                                                             "the unified checker)" : "");
}

static int name_portable(const char *n)
{
    size_t off;
    if (!ms_utf8_valid(n, strlen(n), &off))
        return 0;
    for (const unsigned char *p = (const unsigned char *)n; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return 0;
    return 1;
}

/* relative path (to ROOT) of an absolute path under ROOT as given */
static const char *relof(const wctx *c, const char *abs)
{
    size_t n = strlen(c->run->root);
    const char *p = abs + n;
    while (*p == '/')
        p++;
    return p;
}

static void check_name(wctx *c, const char *rel, const char *name)
{
    if (name[0] == '.')
        walk_find(c, CK_ID(S6), 0, rel, "a name not starting with '.'", name,
                  "file or directory with a git unfriendly name (starts with '.')");
    if (strchr(name, ' '))
        walk_find(c, CK_ID(S7), 0, rel, "a name without spaces", name,
                  "file or directory with a space in its name");
    if (!name_portable(name))
        walk_find(c, CK_ID(S13), 1, rel, "valid UTF-8 without control characters", NULL,
                  "file name is not portable (invalid UTF-8 or control characters)");
}

/* S12: a link whose target resolves outside ROOT, or a directory link that points to one of
 * its own ancestors (a cycle) */
static void check_link_target(wctx *c, const char *abs, const char *rel, int is_dir)
{
    char real[PATH_MAX];
    if (!realpath(abs, real))
        return;
    size_t n = c->root_real_len;
    int inside = !strncmp(real, c->root_real, n) && (real[n] == '/' || real[n] == '\0');
    if (!inside) {
        walk_find(c, CK_ID(S12), 1, rel, "a target inside the submission tree", real,
                  "symbolic link points outside the submission tree");
        return;
    }
    if (is_dir) {
        char linkdir_real[PATH_MAX];
        char *parent = strdup(abs);
        if (!parent)
            return;
        char *slash = strrchr(parent, '/');
        if (slash)
            *slash = '\0';
        if (realpath(parent, linkdir_real)) {
            size_t m = strlen(real);
            if (!strncmp(linkdir_real, real, m) &&
                (linkdir_real[m] == '/' || linkdir_real[m] == '\0'))
                walk_find(c, CK_ID(S12), 1, rel, "no directory cycle", real,
                          "symbolic link to an ancestor directory forms a loop");
        }
        free(parent);
    }
}

/* An open directory of the walk and how many still hold it: itself while it is being listed,
 * and each of its subdirectories until that one is opened */
typedef struct wdir {
    int fd;
    size_t refs;
} wdir;

typedef struct wentry {
    char *path;
    wdir *parent; /* NULL: open path itself (the top, or a parent listed from the store) */
} wentry;

static void wdir_release(wdir *w)
{
    if (w && !--w->refs) {
        close(w->fd);
        free(w);
    }
}

void ck_walk_submitter(ck_state *run, ck_submitter *sub)
{
    wctx c;
    memset(&c, 0, sizeof c);
    c.run = run;
    c.sub = sub;
    c.unified = run->rules.unified;
    c.w = (ck_where){sub->division, sub->name, NULL, NULL, NULL};
    char rr[PATH_MAX];
    if (realpath(run->root, rr)) {
        c.root_real = strdup(rr);
        c.root_real_len = c.root_real ? strlen(c.root_real) : 0;
    }
    long long limit = (long long)json_integer_value(ck_rget(&run->rules, "file_size_limit_bytes"));
    /* stack of directories to visit; each one is opened by its name relative to its parent,
     * whose descriptor stays open until its last subdirectory is opened (at most one open
     * directory per level of the tree): a path lookup of one component instead of the whole
     * path from the root, for every directory of the tree */
    wentry *stack = NULL;
    size_t ns = 0, cap = 0;
    char *top = strdup(sub->abs);
    if (!top || MS_GROW(stack, cap, 1, 64)) {
        free(top);
        goto oom;
    }
    stack[ns++] = (wentry){top, NULL};
    while (ns) {
        wentry we = stack[--ns];
        char *dir = we.path;
        const char *drel = relof(&c, dir);
        const char *dname = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
        check_name(&c, drel, dname);
        size_t dl = strlen(dir);
        if (dl >= 11 && !strcmp(dir + dl - 11, "__pycache__"))
            walk_find(&c, CK_ID(S8), 0, drel, NULL, "__pycache__", "__pycache__ directory");
        ck_dir d;
        int dfd = -1;
        int rd = we.parent ? ck_dir_read_sized_at(&d, we.parent->fd, dname, dir, &dfd)
                           : ck_dir_read_sized_at(&d, AT_FDCWD, dir, dir, &dfd);
        wdir_release(we.parent);
        if (rd) {
            ck_report_finding(run, &sub->walk, &c.w, CK_ID(R1), CK_SEV_ERROR, drel, 0, NULL, NULL, NULL,
                              "cannot read the directory: %s", strerror(d.err));
            free(dir);
            continue;
        }
        /* this directory's descriptor, for its subdirectories (none: closed now) */
        wdir *self = NULL;
        if (dfd >= 0) {
            self = malloc(sizeof *self);
            if (self)
                *self = (wdir){dfd, 1};
            else
                close(dfd);
        }
        if (d.n == 0)
            walk_find(&c, CK_ID(S9), 0, drel, "files or subdirectories", "an empty directory",
                      "empty directory");
        for (size_t i = 0; i < d.n; i++) {
            ck_entry *en = &d.v[i];
            char *path = ck_join(dir, en->name);
            if (!path) {
                ck_dir_free(&d);
                free(dir);
                wdir_release(self);
                goto oom;
            }
            const char *rel = relof(&c, path);
            if (en->is_dir) {
                if (en->is_link) {
                    /* listed as a subdirectory, not entered: only its name is not checked
                     * (like os.walk), its target is */
                    if (c.root_real)
                        check_link_target(&c, path, rel, 1);
                    free(path);
                    continue;
                }
                if (MS_GROW(stack, cap, ns + 1, 64)) {
                    free(path);
                    ck_dir_free(&d);
                    free(dir);
                    wdir_release(self);
                    goto oom;
                }
                if (self)
                    self->refs++;
                stack[ns++] = (wentry){path, self};
                continue;
            }
            /* a file in os.walk's sense: anything that is not a directory */
            check_name(&c, rel, en->name);
            if (en->is_link) {
                char target[PATH_MAX];
                ssize_t tl = readlink(path, target, sizeof target - 1);
                if (tl >= 0) {
                    target[tl] = '\0';
                    /* the reference tests os.path.exists(os.readlink(f)) with the submission
                     * root as working directory */
                    char *as_seen = target[0] == '/' ? strdup(target) : ck_join(run->root, target);
                    int exists_root = as_seen && ck_pexists(as_seen);
                    free(as_seen);
                    if (!exists_root)
                        walk_find(&c, CK_ID(S4), 0, rel, "an existing target", target,
                                  "broken symbolic link (its target does not exist relative to "
                                  "the submission root)");
                    else if (!ck_pexists(path))
                        walk_find(&c, CK_ID(S4), 0, rel, "an existing target", target,
                                  "broken symbolic link (the target does not exist relative to "
                                  "the link's directory)");
                    else if (c.root_real)
                        check_link_target(&c, path, rel, 0);
                }
            }
            if (en->size > limit) {
                char e1[48], e2[48];
                snprintf(e1, sizeof e1, "<= %lld bytes", limit);
                snprintf(e2, sizeof e2, "%lld bytes", en->size);
                walk_find(&c, CK_ID(S5), 0, rel, e1, e2, "file with size greater than 50 MB");
            }
            free(path);
        }
        ck_dir_free(&d);
        free(dir);
        wdir_release(self);
    }
    free(stack);
    stack = NULL;
    static const char *const ids[] = {CK_ID(S4), CK_ID(S5), CK_ID(S6), CK_ID(S7), CK_ID(S8), CK_ID(S9), CK_ID(S12), CK_ID(S13)};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        int k = idx_of(ids[i]);
        if (c.extra[k])
            ck_report_finding(run, &sub->walk, &c.w, ids[i],
                              (c.unified || !strcmp(ids[i], CK_ID(S12)) || !strcmp(ids[i], CK_ID(S13)))
                                  ? CK_SEV_WARNING : CK_SEV_ERROR,
                              NULL, 0, NULL, NULL, NULL, "... and %zu more like this in %s/%s",
                              c.extra[k], sub->division, sub->name);
    }
    free(c.root_real);
    return;
oom:
    while (ns) {
        ns--;
        free(stack[ns].path);
        wdir_release(stack[ns].parent);
    }
    free(stack);
    free(c.root_real);
    run->oom = 1;
}

void ck_submitter_free(ck_submitter *s)
{
    free(s->division);
    free(s->name);
    free(s->abs);
    ck_flist_free(&s->walk);
    json_decref(s->mapping);
}
