/* File-system helpers: whole-file reads, atomic writes (temporary file + rename in the same
 * directory, so a reader never sees a half-written file), directory creation, path joining. */
#ifndef MS_FSUTIL_H
#define MS_FSUTIL_H

#include <stdio.h>
#include <stddef.h>

#include "common/error.h"

/* Reads a whole file; *out is NUL-terminated (not counted in *len). Fails with MS_EINPUT
 * naming the path if it is missing, unreadable, not a regular file, or larger than max_bytes
 * (0 = no limit). */
int ms_read_file(const char *path, size_t max_bytes, char **out, size_t *len, ms_err *e);
/* Sets e (MS_EINPUT, returned) for a submission root that cannot be used as one, in the words
 * every command shares: "<root>: cannot list the submission root: <reason>". err is the errno
 * met (0: found here with stat, or lstat when nofollow, for commands that change the tree in
 * place and refuse a link); a tarball (.tar.gz, .tgz, .tar, ...) is named as one, with what to
 * do with it. */
int ms_err_root(ms_err *e, const char *root, int err, int nofollow);

/* One read(2) of up to n bytes, retried on EINTR: MS_OK with *got bytes (0 at the end of the
 * file), or MS_EINPUT "<path>: read error". */
int ms_read_some(int fd, void *buf, size_t n, size_t *got, const char *path, ms_err *e);

/* A parser of a whole NUL-terminated text of len bytes, read from name, into out. */
typedef int (*ms_text_parser)(const char *text, size_t len, const char *name, void *out, ms_err *e);

/* Reads the file at path (no size limit) and hands its text to parse; out is untouched where
 * the file cannot be read. */
int ms_parse_file(const char *path, ms_text_parser parse, void *out, ms_err *e);

/* An output file being written atomically. */
typedef struct ms_afile {
    FILE *fp;
    char *path;  /* final path */
    char *tmp;   /* named temporary in the same directory; NULL while the file is unnamed */
    char *dir;   /* directory of path (unnamed files) */
} ms_afile;

/* Opens an output file that becomes visible at path only when committed. On Linux the file is
 * created unnamed (O_TMPFILE): a process killed at any point leaves nothing behind. Where the
 * file system lacks O_TMPFILE it falls back to a named temporary (ms_afile_open_named). */
int ms_afile_open(ms_afile *af, const char *path, ms_err *e);
/* Same with a visible temporary "<dir>/.<name>.tmp.XXXXXX" (af->tmp), for outputs another
 * process may have to finish if this one dies (the LoadGen's logs). */
int ms_afile_open_named(ms_afile *af, const char *path, ms_err *e);
/* Flushes, fsyncs, closes and renames onto the final path. On failure the temporary file is
 * removed and the final path is untouched. */
int ms_afile_commit(ms_afile *af, ms_err *e);
/* Closes and removes the temporary file (safe to call on a committed or zeroed ms_afile). */
void ms_afile_abort(ms_afile *af);

/* Gives the open (possibly unnamed, O_TMPFILE) file fd the name path atomically: links it at a
 * temporary name beside path, then renames. */
int ms_link_fd_atomic(int fd, const char *path, ms_err *e);

/* Removes the temporaries that writers of path left when they were killed: files or
 * directories named ".<base>.tmp.<pid>..." or "<base>.tmp.<pid>..." beside path whose pid is no
 * longer running. Called when an output is opened; temporaries of live writers are kept. */
void ms_sweep_stale_temps(const char *path);

/* Writes data to path atomically. */
int ms_write_file_atomic(const char *path, const void *data, size_t len, ms_err *e);

/* mkdir -p (mode 0777 & ~umask). */
int ms_mkdir_p(const char *path, ms_err *e);

/* Returns malloc'd "a/b" (no doubled slash); NULL on allocation failure. */
char *ms_path_join(const char *a, const char *b);

/* 1 if path exists (any type, without following a final symlink), 0 otherwise. */
int ms_path_exists(const char *path);
int ms_is_dir(const char *path);
int ms_is_regular_file(const char *path);

#endif
