/* Internal helpers shared by the treehash*.c files (not part of the public API). */
#ifndef MS_COMMON_TREEHASH_INT_H
#define MS_COMMON_TREEHASH_INT_H

#include <jansson.h>
#include <stddef.h>

#include "common/buf.h"

/* Sets obj["path"] to path when it is valid UTF-8, obj["path_hex"] (its bytes in hex) otherwise.
 * 0, or -1 on allocation failure. */
int ms_ds_json_set_path(json_t *obj, const char *path);

/* Appends the display form of name[0..len) (see ms_ds_fput_name), always NUL-terminated.
 * 0, or -1 on allocation failure. */
int ms_ds_escape_name(ms_buf *b, const char *name, size_t len);

/* Makes room for item n of an array of cap items of `size` bytes (doubling, from 32). Returns the
 * array (moved or not), or NULL on allocation failure with the old array untouched. */
void *ms_ds_grow(void *items, size_t *cap, size_t n, size_t size);

#endif
