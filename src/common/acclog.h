/* Streaming reader for mlperf_log_accuracy.json (the reference LoadGen's logging.cc,
 * AsyncLog::LogAccuracy): a JSON array of objects
 *
 *     { "seq_id" : N, "qsl_idx" : M, "data" : "HEX" [, "token_data" : "HEX"] [, "token_count" : N] }
 *
 * Any valid JSON layout is accepted (whitespace anywhere, keys in any order, string escapes,
 * extra keys whose values are skipped), not only the LoadGen's exact spacing. The file is read
 * in blocks and each entry's hex is decoded as it streams by, so memory is bounded by the
 * largest single entry, whatever the file size. Errors name the file, line and column.
 *
 * Usage:
 *     ms_acclog *r = ms_acclog_open(path, 0, &e);
 *     ms_acc_entry ent;
 *     int rc;
 *     while ((rc = ms_acclog_next(r, &ent, &e)) == 1) { ... }
 *     ms_acclog_close(r);           // rc == 0: end of array; rc < 0: e says why
 */
#ifndef MS_ACCLOG_H
#define MS_ACCLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

typedef struct ms_acclog ms_acclog;

/* Flags for ms_acclog_open. */
#define MS_ACCLOG_KEEP_HEX 1u   /* also return the hex text of "data" exactly as written */

typedef struct ms_acc_entry {
    uint64_t seq_id;
    uint64_t qsl_idx;
    const unsigned char *data;       /* decoded "data" bytes (valid until the next call) */
    size_t data_len;
    const char *data_hex;            /* with MS_ACCLOG_KEEP_HEX: NUL-terminated hex as in the file */
    size_t data_hex_len;
    int has_token_data;
    const unsigned char *token_data;
    size_t token_data_len;
    int has_token_count;
    int64_t token_count;
    size_t index;                    /* 0-based position of the entry in the array */
    size_t line;                     /* line of the entry's opening brace (1-based) */
    uint64_t offset;                 /* byte offset of the opening brace */
} ms_acc_entry;

/* Opens a file ("-" is not special). Fails with MS_EINPUT naming the path. */
ms_acclog *ms_acclog_open(const char *path, unsigned flags, ms_err *e);
/* Reads from an open stream (not closed by ms_acclog_close); name is used in messages. */
ms_acclog *ms_acclog_open_stream(FILE *fp, const char *name, unsigned flags, ms_err *e);
/* Reads from memory (not copied; must outlive the reader). */
ms_acclog *ms_acclog_open_mem(const void *data, size_t len, const char *name, unsigned flags, ms_err *e);

/* 1 = *ent filled, 0 = the array ended (and only whitespace follows), -1 = error (e set, code
 * MS_EINPUT for malformed input, MS_ERUNTIME for I/O or memory). After 0 or -1, keeps returning
 * the same. */
int ms_acclog_next(ms_acclog *r, ms_acc_entry *ent, ms_err *e);

/* Entries returned so far. */
size_t ms_acclog_count(const ms_acclog *r);

void ms_acclog_close(ms_acclog *r);

#endif
