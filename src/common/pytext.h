/* Python-compatible text handling for the checker's text files (accuracy.txt, verify_*.txt,
 * spl.txt): universal-newline line splitting (\r\n, \r and \n all end a line, each line seen
 * with a single trailing \n like Python's text mode), and regular expressions with re.match
 * semantics through PCRE2 (anchored at the start of the subject, not at its end; '.' does not
 * match \n; '$' matches at the end or before a final \n; \d \w ASCII). */
#ifndef MS_PYTEXT_H
#define MS_PYTEXT_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>

#include "common/error.h"

/* ---- lines ---- */
typedef struct ms_lines {
    const char *p, *end;
    size_t line_no;
} ms_lines;

void ms_lines_init(ms_lines *it, const char *text, size_t len);
/* Next line without its terminator; *had_nl tells whether one followed. Returns 0 at the end. */
int ms_lines_next(ms_lines *it, const char **line, size_t *len, int *had_nl);

/* 1 if the bytes are valid UTF-8 (what Python's utf-8 decoder accepts), else 0; *bad_off gets
 * the offset of the first invalid byte. */
int ms_utf8_valid(const char *s, size_t n, size_t *bad_off);
/* The length of the valid UTF-8 sequence at s (at most n bytes, n > 0), or 0 if it is not one
 * (overlong forms, surrogates and code points above U+10FFFF are not). */
size_t ms_utf8_seq(const unsigned char *s, size_t n);

/* Python's text mode (open(path, encoding="utf-8") iterated line by line, TextIOWrapper)
 * decodes MS_PY_TEXT_CHUNK bytes at a time with the incremental UTF-8 decoder: an invalid
 * byte raises UnicodeDecodeError when the chunk holding it is decoded, even before the line
 * that holds it is reached; a valid but incomplete sequence at the very end of the file is kept
 * pending and raises only at the final decode, when the reader goes on to the end of the file.
 * A reader that stops early (a `break` after the line ending at byte `upto`) never sees an
 * error beyond the chunks it read. `upto` is the offset just past the last line the reader
 * took, or MS_PY_READ_TO_EOF when its loop ran to the end. Returns 1 if Python raises. */
#define MS_PY_TEXT_CHUNK 8192
#define MS_PY_READ_TO_EOF ((size_t)-1)
int ms_py_utf8_read_raises(const char *s, size_t n, size_t upto);

/* Python str.strip() of ASCII whitespace: returns the start, *n updated. */
const char *ms_py_strip(const char *s, size_t *n);

/* ---- regular expressions (re.match) ---- */
typedef struct ms_pyre {
    pcre2_code *code;
    char *pattern;
} ms_pyre;

/* Compiles a Python pattern. Python-only syntax translated: \Z -> \z. Errors name the pattern
 * and the offset. */
int ms_pyre_compile(ms_pyre *re, const char *pattern, ms_err *e);
void ms_pyre_free(ms_pyre *re);
/* Machine code for a pattern that will be matched many times (PCRE2's JIT), when PCRE2 can make
 * it and ms_pcre2_jit_ok(); the same results either way. Not while other threads match with it. */
void ms_pyre_jit(ms_pyre *re);
/* Whether patterns may be made machine code: not when MLSUBMIT_NO_JIT is set (non-empty), nor
 * under valgrind (its preload in LD_PRELOAD), whose memcheck cannot follow the code PCRE2's
 * JIT generates (Debian's PCRE2 is built without valgrind support) and reports its reads as
 * uninitialised. */
int ms_pcre2_jit_ok(void);

/* re.match(pattern, subject): 1 on a match, 0 on none, -1 on a matching error (message in e).
 * If g1 is given, it receives group 1 (NULL if it did not participate). */
int ms_pyre_match(const ms_pyre *re, const char *subject, size_t n, const char **g1,
                  size_t *g1len, ms_err *e);

/* Matches a line as Python's text mode presents it: the line's text plus "\n" when a
 * terminator followed (copied into a scratch buffer). Same returns as ms_pyre_match; the
 * group points into *scratch, which the caller frees. */
int ms_pyre_match_line(const ms_pyre *re, const char *line, size_t len, int had_nl,
                       char **scratch, size_t *scratch_cap, const char **g1, size_t *g1len,
                       ms_err *e);

/* A text read line by line and matched against patterns as Python's text mode presents each
 * line (ms_pyre_match_line), with the scratch space the matching needs:
 *
 *   ms_pyre_lines l;
 *   ms_pyre_lines_init(&l, text, len);
 *   while (ms_pyre_lines_next(&l))
 *       if (ms_pyre_lines_match(&l, re, &g, &gl, &e) > 0) ...   // l.it.line_no: the line's number
 *   ms_pyre_lines_free(&l);
 */
typedef struct ms_pyre_lines {
    ms_lines it;
    const char *line; /* the current line, without its terminator */
    size_t len;
    int had_nl;
    char *scratch;
    size_t scratch_cap;
} ms_pyre_lines;

void ms_pyre_lines_init(ms_pyre_lines *l, const char *text, size_t len);
/* 1 with the next line in l->line, 0 at the end. */
int ms_pyre_lines_next(ms_pyre_lines *l);
/* ms_pyre_match_line on the current line (the group points into the scratch space, valid until
 * the next match). */
int ms_pyre_lines_match(ms_pyre_lines *l, const ms_pyre *re, const char **g1, size_t *g1len, ms_err *e);
void ms_pyre_lines_free(ms_pyre_lines *l);

#endif
