/* Reader for mlperf_log_summary.txt (the reference LoadGen's results.cc,
 * PerformanceSummary::LogSummary): the file as lines, and the "name : value" convention the
 * MLCommons tools use (the value is the text after the first ": ", trimmed). Small and generic: the audits, the checker and the report can all use it. */
#ifndef MS_SUMMARY_H
#define MS_SUMMARY_H

#include <stddef.h>

#include "common/error.h"

typedef struct ms_summary_line {
    const char *text;  /* points into ms_summary.text; not NUL-terminated at len */
    size_t len;        /* without the line terminator (\n, \r\n or \r, as Python reads text) */
} ms_summary_line;

typedef struct ms_summary {
    char *path;        /* as given (for messages) */
    char *text;        /* whole file, NUL-terminated */
    size_t len;
    ms_summary_line *lines;
    size_t nlines;
} ms_summary;

/* Loads a summary log. Fails with MS_EINPUT naming the path if it is missing or unreadable. An
 * empty file loads as zero lines (callers decide what that means). */
int ms_summary_load(ms_summary *s, const char *path, ms_err *e);
/* Same from memory (copied); name is used in messages. */
int ms_summary_parse(ms_summary *s, const char *text, size_t len, const char *name, ms_err *e);
void ms_summary_free(ms_summary *s);

/* The value of a line as Python's line.split(": ", 1)[1].strip(): v and n receive the trimmed
 * text after the first ": ". Returns 0, or -1 if the line has no ": ". */
int ms_summary_line_value(const ms_summary_line *l, const char **v, size_t *n);

/* First line starting with prefix (0-based index), or -1. */
long ms_summary_find_prefix(const ms_summary *s, const char *prefix);

/* Value of the first line starting with prefix, as a malloc'd string; NULL if no such line, the
 * line has no ": ", or on allocation failure. */
char *ms_summary_get(const ms_summary *s, const char *prefix);

#endif
