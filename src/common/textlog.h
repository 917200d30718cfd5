/* Reader for the text detail log of LoadGen 0.5 and 0.7 (mlperf_log_detail.txt before the
 * `:::MLLOG` JSON records of LoadGen 1.0): one record per line,
 *
 *     "pid": 22353, "tid": 22353, "ts": 61794ns : Scenario : Single Stream
 *     "pid": 22353, "tid": 22353, "ts": 8296ns : ERROR : <message>
 *
 * as AsyncLog::LogDetail of the r0.5 / v0.7.1 LoadGen writes it (logging.h): the message follows
 * "ns : ", flagged errors and warnings start with "ERROR : " / "WARNING : ", and a message with
 * newlines (git_log, SHA1 of files) continues on lines without the "pid" prefix. The key of a
 * record is the message up to its first ':' (trimmed), the value what follows (trimmed); a
 * message without ':' is a key with no value. ms_log_detect tells the two formats apart. */
#ifndef MS_TEXTLOG_H
#define MS_TEXTLOG_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef struct ms_textlog_rec {
    uint64_t pid, tid, ts_ns;
    size_t line_no;        /* 1-based line of the record's first line */
    const char *key;       /* points into the log's text, key_len bytes, not NUL-terminated */
    size_t key_len;
    const char *value;     /* after the first ':' (continuation lines included), may be empty */
    size_t value_len;
    int has_value;         /* the message had a ':' */
    int is_error;          /* "ERROR : " prefix (LoadGen FlagError) */
    int is_warning;        /* "WARNING : " prefix */
} ms_textlog_rec;

typedef struct ms_textlog {
    char *text;            /* copy of the input, NUL-terminated */
    size_t len;
    ms_textlog_rec *recs;
    size_t nrecs;
    size_t nlines;
    size_t nbad;           /* lines starting with "\"pid\"" whose prefix is malformed */
    size_t first_bad_line;
    size_t n_errors, n_warnings;
} ms_textlog;

typedef enum ms_logfmt {
    MS_LOGFMT_UNKNOWN = 0,
    MS_LOGFMT_MLLOG,       /* ":::MLLOG {json}" records (LoadGen 1.0 on) */
    MS_LOGFMT_TEXT,        /* "\"pid\": N, \"tid\": N, \"ts\": Nns : ..." (LoadGen 0.5 / 0.7) */
} ms_logfmt;

/* The format of a detail log from its first non-empty line. */
ms_logfmt ms_log_detect(const char *buf, size_t len);
const char *ms_logfmt_name(ms_logfmt f);

/* Parses a buffer (copied) into records. Only allocation failure is an error; malformed lines
 * are counted in nbad. */
int ms_textlog_parse(ms_textlog *log, const char *buf, size_t len, ms_err *e);
void ms_textlog_free(ms_textlog *log);

/* First record whose key is `key`, or NULL. */
const ms_textlog_rec *ms_textlog_find(const ms_textlog *log, const char *key);
/* The record's value as a malloc'd NUL-terminated string (NULL on allocation failure). */
char *ms_textlog_value(const ms_textlog_rec *r);

#endif
