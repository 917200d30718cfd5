/* RFC 4180 CSV reading: fields separated by ',', records by CRLF or LF (a lone CR too), fields
 * optionally enclosed in double quotes with "" standing for one quote; a quoted field may hold
 * separators and line breaks. Used to import the checker's summary.csv (both profiles: the
 * legacy one quotes some fields without escaping, which RFC 4180 reads the same way as long as
 * the text holds no quote). */
#ifndef MS_CSV_H
#define MS_CSV_H

#include <stddef.h>

#include "common/error.h"

typedef struct ms_csv_row {
    char **fields;   /* NUL-terminated copies */
    size_t n;
    size_t line;     /* 1-based line where the record starts */
} ms_csv_row;

typedef struct ms_csv {
    ms_csv_row *rows; /* rows[0] is the header when the file has one */
    size_t nrows, cap;
} ms_csv;

/* Parses text (len bytes). Like Python's csv module (and pandas), a quote inside an unquoted
 * field and text after a closing quote are kept literally (the legacy checker writes quotes
 * unescaped). An unterminated quoted field is an error naming name:line (MS_EINPUT). A final
 * line break is optional; empty lines are skipped. */
int ms_csv_parse(const char *text, size_t len, const char *name, ms_csv *out, ms_err *e);
/* Reads and parses a file. */
int ms_csv_load(const char *path, ms_csv *out, ms_err *e);
void ms_csv_free(ms_csv *c);

/* Index of a header column (rows[0]), or -1. */
int ms_csv_col(const ms_csv *c, const char *name);

/* Appends one field to b, quoted per RFC 4180 when it holds a comma, quote, CR or LF. */
struct ms_buf;
int ms_csv_put_field(struct ms_buf *b, const char *s);

#endif
