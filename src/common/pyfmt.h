/* Python-compatible text for numbers and JSON values, as the MLCommons tools print them:
 * repr(float) (shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16, otherwise
 * exponent with at least two digits), str() of JSON values (True/False/None, single-quoted
 * list/dict repr), and repr() of strings. Used for summary.csv and the checker's messages. */
#ifndef MS_PYFMT_H
#define MS_PYFMT_H

#include <jansson.h>
#include <stddef.h>

#include "common/buf.h"
#include "common/mllog.h"

/* repr(x) into out (at least MS_PY_FLOAT_MAX bytes): "101527.0", "1e-05", "inf", "nan". */
#define MS_PY_FLOAT_MAX 32
void ms_py_float_repr(double x, char *out);

/* Appends repr(s) (Python 3 rules: single quotes unless the text contains ' and no ",
 * escapes for \\, the quote, \n \r \t and non-printable characters). s is UTF-8 of length n. */
int ms_py_str_repr(ms_buf *b, const char *s, size_t n);

/* Appends str(v) for a Jansson value: strings verbatim, integers in decimal, reals as repr,
 * true/false/null as True/False/None, arrays and objects as Python list/dict repr.
 * v == NULL (absent key) appends "None". Returns 0, or -1 on allocation failure. */
int ms_py_str_json(ms_buf *b, const json_t *v);

/* Appends str() of a detail-log value given by its lexical JSON text and kind (see mllog.h):
 * integers and big integers verbatim, reals through float() and repr, strings decoded,
 * booleans True/False, null None, arrays/objects as Python repr. */
int ms_py_str_lexeme(ms_buf *b, ms_jv_kind kind, const char *raw, size_t len);

/* Python truthiness of a JSON value ("" 0 0.0 false null [] {} are false; NULL is false). */
int ms_py_truthy(const json_t *v);

/* Python float(s) for a whole string (leading/trailing whitespace allowed, "inf", "nan",
 * "1_0" not accepted); 0 on success, -1 if Python would raise ValueError. */
int ms_py_float_parse(const char *s, size_t n, double *out);

#endif
