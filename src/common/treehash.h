/* Dataset checksums: build a manifest of a directory tree and verify a tree against one.
 *
 * Manifests come in two forms:
 *   - the coreutils form written by sha256sum/md5sum/sha1sum ("<hex>  <name>", "<hex> *<name>",
 *     a leading '\' when the name is escaped with \\, \n, \r) and their BSD tag form
 *     ("SHA256 (<name>) = <hex>");
 *   - our JSON manifest: {"format": "mlsubmit-dataset-manifest", "version": 1,
 *     "algorithm": "sha256", "files": [{"path": "a/b", "size": 12, "digest": "<hex>"}, ...]}
 *     where a name that is not valid UTF-8 is written as "path_hex" (its bytes in hex).
 *
 * Paths are relative to the root, '/'-separated, normalised ("./a//b" -> "a/b"); absolute paths
 * and ".." components are rejected. The tree walk lists regular files only and never follows a
 * symbolic link (so it cannot leave the root or loop); symlinks, devices, FIFOs and sockets are
 * reported as skipped entries. Files are hashed in parallel by a fixed pool of worker threads,
 * each streaming one whole file at a time in large blocks, largest files first. */
#ifndef MS_COMMON_TREEHASH_H
#define MS_COMMON_TREEHASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
#include "common/progress.h"

/* Longest digest we handle (SHA-256) in hex, plus the NUL. */
#define MS_DS_HEX_MAX 65

#define MS_DS_JSON_FORMAT "mlsubmit-dataset-manifest"
#define MS_DS_JSON_VERSION 1

typedef enum ms_ds_format {
    MS_DS_FMT_SUMS, /* coreutils *sum output */
    MS_DS_FMT_JSON, /* our JSON manifest */
} ms_ds_format;

typedef struct ms_ds_entry {
    char *path;                  /* normalised relative path (no NUL inside: names cannot hold one) */
    int64_t size;                /* -1 when the manifest does not say (coreutils form) */
    char digest[MS_DS_HEX_MAX];  /* lower-case hex */
    size_t line;                 /* 1-based manifest line (coreutils form), 0 for JSON */
    size_t index;                /* 0-based position in the manifest (files[index] for JSON) */
} ms_ds_entry;

typedef struct ms_ds_manifest {
    char algo[8];        /* "md5", "sha1", "sha256"; "" for an empty coreutils manifest */
    ms_ds_format format; /* the form it was read in (or will be written in) */
    ms_ds_entry *entries;
    size_t n, cap;
} ms_ds_manifest;

void ms_ds_manifest_free(ms_ds_manifest *m);

/* Parses a manifest held in memory; name is used in messages ("<name>:<line>: ..." for the
 * coreutils form, "<name>: files[3].digest: ..." for JSON). The form is detected: JSON when the
 * first non-blank byte is '{'. The algorithm of a coreutils manifest comes from the digest length
 * (32 md5, 40 sha1, 64 sha256) or the BSD tag and must be the same on every line. Blank lines and
 * lines starting with '#' are skipped, a CR before the LF is dropped (as sha256sum -c does). A
 * path listed twice is an error. All errors are MS_EINPUT. */
int ms_ds_manifest_parse(const char *text, size_t len, const char *name, ms_ds_manifest *m,
                         ms_err *e);
/* Reads and parses a manifest file. */
int ms_ds_manifest_load(const char *path, ms_ds_manifest *m, ms_err *e);

/* Writes m in the coreutils form (sorted as stored; names with \, LF or CR escaped the way
 * GNU coreutils 9 does) or as JSON (Jansson, two-space indent). MS_ERUNTIME on write errors. */
int ms_ds_write_sums(const ms_ds_manifest *m, FILE *out, ms_err *e);
int ms_ds_write_json(const ms_ds_manifest *m, FILE *out, ms_err *e);

/* Normalises a manifest path in place ("./a//b/./c" -> "a/b/c"). Returns NULL on success or a
 * static description of what is wrong ("is absolute", "contains '..'", "is empty", ...). */
const char *ms_ds_normalize_path(char *path);

/* ---- Tree walk ---------------------------------------------------------------------------- */

typedef enum ms_ds_skip_kind {
    MS_DS_SKIP_SYMLINK,    /* a symbolic link (never followed) */
    MS_DS_SKIP_SPECIAL,    /* device, FIFO, socket */
    MS_DS_SKIP_UNREADABLE, /* a directory that cannot be listed, or an entry that cannot be stat'ed */
} ms_ds_skip_kind;

typedef struct ms_ds_file {
    char *path;    /* relative to the root */
    uint64_t size; /* from the walk's lstat */
    uint64_t dev, ino;
} ms_ds_file;

typedef struct ms_ds_skipped {
    char *path;
    ms_ds_skip_kind kind;
    char *reason; /* e.g. "symbolic link (not followed)", "cannot list directory: Permission denied" */
} ms_ds_skipped;

typedef struct ms_ds_tree {
    ms_ds_file *files; /* sorted bytewise by path (the order of LC_ALL=C sort) */
    size_t nfiles, capfiles;
    ms_ds_skipped *skipped; /* sorted by path */
    size_t nskipped, capskipped;
    uint64_t total_bytes;
} ms_ds_tree;

/* Lists the regular files below root. Directories that cannot be read and entries that vanish
 * are recorded in skipped (MS_DS_SKIP_UNREADABLE), not errors; root itself must be a readable
 * directory (MS_EINPUT otherwise). A directory reached twice through bind mounts is skipped. */
int ms_ds_walk(const char *root, ms_ds_tree *t, ms_err *e);
/* The same, calling cb for each regular file as the walk finds it (before the final sort; the
 * file's path string stays valid until ms_ds_tree_free). A non-zero return stops the walk as an
 * allocation failure. */
typedef int (*ms_ds_file_cb)(void *ctx, const ms_ds_file *f);
int ms_ds_walk_cb(const char *root, ms_ds_tree *t, ms_ds_file_cb cb, void *ctx, ms_err *e);
void ms_ds_tree_free(ms_ds_tree *t);

/* Removes the file with this device and inode from the walk (the manifest itself, or the
 * output being written into the tree). Returns 1 if one was removed. */
int ms_ds_tree_exclude(ms_ds_tree *t, uint64_t dev, uint64_t ino);

/* ---- Parallel hashing --------------------------------------------------------------------- */

typedef struct ms_ds_job {
    const char *path;       /* relative to the root (not owned) */
    uint64_t size;          /* expected size, for scheduling and progress */
    uint64_t dev, ino;      /* identity seen by the walk; 0/0 = do not check */
    /* internal to the manifest's walk (ms_ds_walk_hash; 0 elsewhere): identify = the walk did
     * not stat the file, the worker takes size, dev and ino from its fstat (and sets them here);
     * file_idx = its index in the walk's tree */
    int identify;
    size_t file_idx;
    /* results */
    char digest[MS_DS_HEX_MAX];
    uint64_t bytes;         /* bytes hashed */
    int failed;             /* 1: err holds why the file could not be hashed */
    char err[256];
} ms_ds_job;

typedef struct ms_ds_hash_opts {
    int jobs;               /* worker threads; <= 0: one per available CPU */
    ms_progress *progress;  /* optional; updated from the calling thread */
} ms_ds_hash_opts;

/* Hashes every job's file (opened relative to root without following a final symlink, checked
 * to be the regular file the walk saw). Per-file problems are recorded in the job; the return
 * value is an error only for failures of the machinery itself (threads, memory). */
int ms_ds_hash_jobs(const char *root, const char *algo, ms_ds_job *jobs, size_t n,
                    const ms_ds_hash_opts *o, ms_err *e);

/* Number of CPUs this process may run on (at least 1). */
int ms_ds_cpu_count(void);

/* ---- Building a manifest ------------------------------------------------------------------ */

/* Builds a manifest of the tree: algo "md5" | "sha1" | "sha256". Files that cannot be read and
 * unreadable directories make it fail with MS_EINPUT naming the first few of them; symlinks and
 * special files are left out and returned in t->skipped for the caller to mention. The walk
 * result stays in t (owned by the caller, freed with ms_ds_tree_free). If exclude_dev/ino are
 * non-zero that file is left out (an output file inside the tree). */
int ms_ds_build(const char *root, const char *algo, const ms_ds_hash_opts *o, uint64_t exclude_dev,
                uint64_t exclude_ino, ms_ds_tree *t, ms_ds_manifest *out, ms_err *e);

/* ---- Verification ------------------------------------------------------------------------- */

typedef enum ms_ds_status {
    MS_DS_MISSING,  /* listed, not present */
    MS_DS_CHANGED,  /* present, digest or size differs */
    MS_DS_EXTRA,    /* present, not listed */
    MS_DS_ERROR,    /* listed, present but could not be checked (symlink, not a regular file, I/O) */
    MS_DS_SKIPPED,  /* not listed and not a regular file (symlink, special): a note, not a failure */
} ms_ds_status;

typedef struct ms_ds_finding {
    ms_ds_status status;
    char *path;
    size_t line;                   /* manifest line, 0 if none */
    char expected[MS_DS_HEX_MAX];  /* CHANGED by digest */
    char found[MS_DS_HEX_MAX];
    int64_t expected_size;         /* -1 if unknown */
    int64_t found_size;            /* -1 if unknown */
    char *reason;                  /* ERROR and SKIPPED */
} ms_ds_finding;

typedef struct ms_ds_result {
    ms_ds_finding *items; /* grouped by status (in enum order), each group sorted by path */
    size_t n, cap;
    size_t listed, ok, missing, changed, extra, errors, skipped;
    uint64_t bytes_hashed;
    size_t files_hashed;
} ms_ds_result;

typedef struct ms_ds_verify_opts {
    ms_ds_hash_opts hash;
    int ignore_extra;          /* do not report files that are not listed */
    uint64_t exclude_dev;      /* the manifest file itself, if it lies in the tree */
    uint64_t exclude_ino;
} ms_ds_verify_opts;

/* Verifies the tree under root against m. The verdict is in r (failures = missing + changed +
 * errors + extra unless ignored); the return value is MS_OK unless the check could not run
 * (root not a readable directory: MS_EINPUT; threads or memory: MS_ERUNTIME). */
int ms_ds_verify(const ms_ds_manifest *m, const char *root, const ms_ds_verify_opts *o,
                 ms_ds_result *r, ms_err *e);
/* 1 if the result is a pass. */
int ms_ds_result_ok(const ms_ds_result *r);
void ms_ds_result_free(ms_ds_result *r);

/* Writes path for display on one line: '\' -> "\\", LF -> "\n", CR -> "\r", TAB -> "\t", other
 * control bytes and bytes that are not valid UTF-8 -> "\xHH"; valid UTF-8 passes through. */
void ms_ds_fput_name(const char *path, FILE *out);

/* The verification result as a Jansson-built JSON document (see README); MS_ERUNTIME on
 * write errors. */
int ms_ds_write_result_json(const ms_ds_result *r, const char *manifest, const char *root,
                            const char *algo, FILE *out, ms_err *e);

#endif
