/* Reader for LoadGen detail logs (`:::MLLOG {json}` lines), shared by the LoadGen's own tests,
 * the checker, the audits and the report. It keeps every value's lexical text, so integers up
 * to 2^64-1 (seeds), larger integers, Python's NaN/Infinity and `1` vs `1.0` survive exactly:
 * Jansson rejects integers >= 2^63, which is why this small JSON scanner exists. */
#ifndef MS_MLLOG_H
#define MS_MLLOG_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef enum ms_jv_kind {
    MS_JV_NULL,
    MS_JV_BOOL,
    MS_JV_INT,     /* integer within [-2^63, 2^64-1] */
    MS_JV_BIGINT,  /* integer outside 64 bits (text only) */
    MS_JV_REAL,    /* has '.', exponent, or is NaN / Infinity / -Infinity */
    MS_JV_STRING,
    MS_JV_ARRAY,
    MS_JV_OBJECT,
} ms_jv_kind;

typedef struct ms_mllog_rec {
    char *key;           /* decoded "key" */
    size_t line_no;      /* 1-based line of the file */
    int is_error;        /* metadata.is_error == true */
    int is_warning;      /* metadata.is_warning == true */
    double time_ms;      /* NaN if absent */
    ms_jv_kind kind;     /* kind of "value" */
    const char *raw;     /* lexical text of "value" (points into the log text) */
    size_t raw_len;
} ms_mllog_rec;

typedef struct ms_mllog {
    char *path;          /* as given (for messages) */
    char *text;          /* whole file, NUL-terminated */
    size_t len;
    ms_mllog_rec *recs;
    size_t nrecs;
    size_t nlines;
    int first_line_is_record;  /* the first line starts with ":::MLLOG" */
    size_t nbad;               /* lines starting with ":::MLLOG" whose JSON is invalid */
    size_t first_bad_line;
    char first_bad_msg[200];
    size_t n_errors;           /* records with is_error */
    size_t n_warnings;
} ms_mllog;

/* Loads and indexes a detail log. Only I/O problems are errors; malformed records are counted
 * in nbad (callers decide: the MLCommons tools treat one bad record as an unparsable file). */
int ms_mllog_load(ms_mllog *log, const char *path, size_t max_bytes, ms_err *e);
/* Same from memory (copied). name is used in messages. */
int ms_mllog_parse(ms_mllog *log, const char *text, size_t len, const char *name, ms_err *e);
void ms_mllog_free(ms_mllog *log);

/* Parses one line (without the newline). Returns 1 for a record, 0 for a non-record line,
 * -1 for a malformed record (msg gets the reason). rec->key is malloc'd. */
int ms_mllog_parse_line(const char *line, size_t len, ms_mllog_rec *rec, char *msg, size_t msgsz);

/* The same without allocating (for readers that look at every line of large logs): rec->key
 * stays NULL; *key and *key_len get the lexeme of the record's "key" string with its quotes (a
 * record without one has *key NULL, which ms_mllog_parse_line decodes as ""); time_ms is not
 * converted (NaN). */
int ms_mllog_scan_line(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                       size_t *key_len, char *msg, size_t msgsz);

/* What ms_mllog_scan_line_memo keeps from one line to the next of a log (zeroed before the
 * first line): the text after time_ms of the previous record in the LoadGen's layout,
 * already validated: the whole rest of the line when it fits, else its middle part (namespace,
 * event_type, is_error, is_warning, file). */
typedef struct ms_mllog_memo {
    size_t len;          /* bytes in text; 0: none (the other fields are then not read) */
    size_t mid;          /* the middle part's length (text's first mid bytes) */
    int whole;           /* text is the whole rest of the line (else only the middle part) */
    int is_error, is_warning;
    char text[384];
    /* Set by a reader that validated the record's value ahead, in the bytes before the line's
     * end (ms_mllog_prevalue), for the next ms_mllog_scan_line_memo / _simd call only: the value
     * that starts at hint_vs (a line in the LoadGen's layout) is, up to hint_ve, a whole valid
     * JSON value of kind hint_kind; or (hint_ve NULL) an object whose members up to hint_resume
     * (a member's start) are valid, the rest to be scanned. hint_vs NULL: no hint. */
    const char *hint_vs, *hint_ve, *hint_resume;
    int hint_kind;
} ms_mllog_memo;

/* ms_mllog_scan_line for a reader going through the lines of one log in order: a record whose
 * middle part is byte for byte the previous record's is not scanned again (same result). */
int ms_mllog_scan_line_memo(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                            size_t *key_len, ms_mllog_memo *memo, char *msg, size_t msgsz);

/* The SIMD level of the block scans (integer lists, objects of plain strings, strings, the
 * detail-log reader's line ends): what this CPU has. Every level gives the same results; the
 * _simd variants below take a level (capped at the CPU's) so that tests can compare them. */
enum { MS_SIMD_NONE = 0, MS_SIMD_SSE2 = 1, MS_SIMD_AVX2 = 2, MS_SIMD_AVX512 = 3 };
int ms_simd_level(void);
int ms_mllog_scan_line_simd(const char *line, size_t len, ms_mllog_rec *rec, const char **key,
                            size_t *key_len, ms_mllog_memo *memo /* or NULL */, int simd,
                            char *msg, size_t msgsz);

/* For a reader that has not found the end of the line yet (bytes up to end available, which may
 * run past it): when line starts a record in the LoadGen's layout whose key is plain printable
 * ASCII, *key / *key_len get the key's text (without quotes) and the value's start is returned;
 * NULL otherwise. */
const char *ms_mllog_value_start(const char *line, const char *end, const char **key,
                                 size_t *key_len);
/* Validates ahead the start of the value at vs ('[' or '{'), in bytes that may run past the line:
 * an array of plain non-negative integers up to its ']' (returns past it, *kind MS_JV_ARRAY,
 * *resume NULL), or the leading members of an object of plain ASCII strings (returns the
 * first member not taken in *resume and the same pointer, *kind MS_JV_OBJECT). Neither takes a
 * line break or a byte above 0x7f, so the bytes validated are inside the line. NULL when
 * nothing was taken. */
const char *ms_mllog_prevalue(const char *vs, const char *end, int simd, int *kind,
                              const char **resume);

/* First record with this key, or NULL. */
const ms_mllog_rec *ms_mllog_find(const ms_mllog *log, const char *key);

/* Value accessors; return 0 on success, -1 if the kind does not fit. */
int ms_mllog_rec_u64(const ms_mllog_rec *r, uint64_t *out);
int ms_mllog_rec_i64(const ms_mllog_rec *r, int64_t *out);
int ms_mllog_rec_double(const ms_mllog_rec *r, double *out);  /* INT or REAL */
int ms_mllog_rec_bool(const ms_mllog_rec *r, int *out);
/* Decoded string value (malloc'd), NULL if not a string or on allocation failure. */
char *ms_mllog_rec_str(const ms_mllog_rec *r);
/* Array of non-negative integers (e.g. loaded_qsl_set); malloc'd into *out. */
int ms_mllog_rec_u64_list(const ms_mllog_rec *r, uint64_t **out, size_t *n);

/* Convenience lookups by key (first occurrence): 0 found and converted, -1 otherwise. */
int ms_mllog_get_u64(const ms_mllog *log, const char *key, uint64_t *out);
int ms_mllog_get_i64(const ms_mllog *log, const char *key, int64_t *out);
int ms_mllog_get_double(const ms_mllog *log, const char *key, double *out);
int ms_mllog_get_bool(const ms_mllog *log, const char *key, int *out);
char *ms_mllog_get_str(const ms_mllog *log, const char *key);

/* ---- Generic JSON value scanning (also used for other line-JSON formats) ---- */

/* Scans one JSON value starting at *p (whitespace allowed before it); on success advances *p
 * past it and returns its kind; on failure returns -1 and sets msg. Accepts NaN, Infinity and
 * -Infinity like Python's json module. Nesting is limited to depth_limit levels. */
int ms_json_scan_value(const char **p, const char *end, int depth_limit, char *msg, size_t msgsz);
int ms_json_scan_value_simd(const char **p, const char *end, int depth_limit, int simd, char *msg,
                            size_t msgsz);
/* Decodes a JSON string lexeme (with quotes) into malloc'd UTF-8; NULL on error. */
char *ms_json_decode_string(const char *raw, size_t len, size_t *out_len);

#endif
