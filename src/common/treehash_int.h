/* Internal helpers shared by the treehash*.c files (not part of the public API). */
#ifndef MS_COMMON_TREEHASH_INT_H
#define MS_COMMON_TREEHASH_INT_H

#include <jansson.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/treehash.h"

/* Sets obj["path"] to path when it is valid UTF-8, obj["path_hex"] (its bytes in hex) otherwise.
 * 0, or -1 on allocation failure. */
int ms_ds_json_set_path(json_t *obj, const char *path);

/* Appends the display form of name[0..len) (see ms_ds_fput_name), always NUL-terminated.
 * 0, or -1 on allocation failure. */
int ms_ds_escape_name(ms_buf *b, const char *name, size_t len);

/* The jobs of ms_ds_walk_hash: v[0..n) in the order of the walk's t->files (by path). */
typedef struct ms_ds_jobset {
    ms_ds_job **v;
    size_t n;
    struct job_block *blocks; /* the storage */
} ms_ds_jobset;
void ms_ds_jobset_free(ms_ds_jobset *js);

/* Walks root (as ms_ds_walk, into t) and hashes its regular files while it walks: files up to
 * 1 MiB as they are found, larger ones after the walk, largest first. Without a progress line
 * the walk does not stat regular files (d_type): their workers do, files found over 1 MiB are
 * put back until the walk ends, and t gets the sizes and identities the workers saw. If the walk leaves an
 * unreadable entry in t->skipped, hashing stops early and js stays empty (the caller reports
 * the entry). On success js holds one job per file of t, in t's order. */
int ms_ds_walk_hash(const char *root, const char *algo, const ms_ds_hash_opts *o, ms_ds_tree *t,
                    ms_ds_jobset *js, ms_err *e);

#endif
