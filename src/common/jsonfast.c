/* ms_json_loadb: json_loadb with a fast path for plain, well-formed documents.
 *
 * Jansson's parser reads its input a character at a time through a stream with UTF-8 decoding
 * and a growable token buffer: about 160 instructions a byte, 0.5-0.7 ms for a rules file, the
 * largest serial cost of a check of a small round after process start-up. This parser builds
 * the same Jansson values (same types, same object key order, the last of duplicate keys
 * winning in the first one's place, as json_object_setn_new_nocheck does for Jansson's own
 * parser) in one pass over the bytes. It handles what the repository's JSON files hold: ASCII
 * text, the two-character escapes, integers that fit json_int_t, reals strtod reads finitely.
 * Anything else (an error of any kind, a byte >= 0x80, a \u escape, a control character,
 * deep nesting, an integer out of range, an infinite real, flags other than JSON_DECODE_ANY
 * and JSON_ALLOW_NUL) makes it give up and hand the whole text to json_loadb: the values,
 * error texts, lines and columns are Jansson's own in every case it does not handle
 * (tests/unit/test_jsonschema.c compares both on every rules and schema file and on edge
 * cases). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/jschema.h"

#define FAST_MAX_DEPTH 256 /* deeper documents go to Jansson (its limit is 2048) */

typedef struct {
    const char *p, *end;
    ms_buf tmp; /* unescaped strings and NUL-terminated keys */
    int depth;
} fparse;

static void skip_ws(fparse *f)
{
    while (f->p < f->end && (*f->p == ' ' || *f->p == '\n' || *f->p == '\r' || *f->p == '\t'))
        f->p++;
}

/* The end of the run of plain string bytes from q: a quote, a backslash, a control byte, a
 * byte >= 0x80 or end. */
static const char *plain_run(const char *q, const char *end)
{
    while (q < end) {
        unsigned char c = (unsigned char)*q;
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
            break;
        q++;
    }
    return q;
}

static int run_stops_badly(const char *q, const char *end)
{
    return q >= end || (unsigned char)*q < 0x20 || (unsigned char)*q >= 0x80;
}

/* At the opening quote. On success *s and *len name the string's bytes: inside the input when
 * it has no escape, else in f->tmp; f->tmp always holds a NUL-terminated copy when want_nul. */
static int parse_string(fparse *f, const char **s, size_t *len, int want_nul)
{
    const char *q = plain_run(++f->p, f->end), *end = f->end;
    if (run_stops_badly(q, end))
        return -1;
    if (*q == '"' && !want_nul) {
        *s = f->p;
        *len = (size_t)(q - f->p);
        f->p = q + 1;
        return 0;
    }
    ms_buf_reset(&f->tmp);
    if (ms_buf_append(&f->tmp, f->p, (size_t)(q - f->p)))
        return -1;
    while (*q != '"') {
        /* at a backslash: the escape, then the plain run after it */
        if (q + 1 >= end)
            return -1;
        static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
        const char *x = q[1] ? strchr(from, q[1]) : NULL;
        if (!x)
            return -1; /* \u and invalid escapes: Jansson */
        char o = to[x - from];
        q += 2;
        const char *r = plain_run(q, end);
        if (run_stops_badly(r, end) || ms_buf_putc(&f->tmp, o) ||
            ms_buf_append(&f->tmp, q, (size_t)(r - q)))
            return -1;
        q = r;
    }
    *s = f->tmp.data ? f->tmp.data : ""; /* ms_buf keeps its data NUL-terminated */
    *len = f->tmp.len;
    f->p = q + 1;
    return 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Past the run of one or more digits at q; NULL when q is not at a digit. */
static const char *digits(const char *q, const char *end)
{
    if (q >= end || !is_digit(*q))
        return NULL;
    while (q < end && is_digit(*q))
        q++;
    return q;
}

/* Jansson's number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static json_t *parse_number(fparse *f)
{
    const char *s = f->p, *q = s, *end = f->end;
    int neg = q < end && *q == '-';
    q += neg;
    if (q < end && *q == '0' && q + 1 < end && is_digit(q[1]))
        return NULL;
    if (!(q = digits(q, end)))
        return NULL;
    int real = 0;
    if (q < end && *q == '.') {
        real = 1;
        if (!(q = digits(q + 1, end)))
            return NULL;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        real = 1;
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (!(q = digits(q, end)))
            return NULL;
    }
    f->p = q;
    if (!real) {
        /* at most 18 digits cannot overflow a 64-bit json_int_t; longer ones go to Jansson */
        size_t nd = (size_t)(q - s) - (size_t)neg;
        if (nd > 18 || sizeof(json_int_t) < 8)
            return NULL;
        json_int_t v = 0;
        for (const char *d = s + neg; d < q; d++)
            v = v * 10 + (*d - '0');
        return json_integer(neg ? -v : v);
    }
    char buf[64];
    size_t n = (size_t)(q - s);
    if (n >= sizeof buf)
        return NULL;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    char *e;
    double d = strtod(buf, &e);
    /* Jansson rejects an overflow (HUGE_VAL with ERANGE); its decimal point follows the locale,
     * which mlsubmit never changes from "C" */
    if (e != buf + n || d == HUGE_VAL || d == -HUGE_VAL)
        return NULL;
    return json_real(d);
}

static json_t *parse_value(fparse *f);

static int value_end(fparse *f)
{
    /* a literal or number must end at a structural character, whitespace or the end */
    if (f->p >= f->end)
        return 1;
    char c = *f->p;
    return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* After a member or element: 1 at the closing character (consumed), 0 after a comma, -1 on
 * anything else. */
static int list_next(fparse *f, char close)
{
    skip_ws(f);
    if (f->p >= f->end)
        return -1;
    if (*f->p == close) {
        f->p++;
        return 1;
    }
    if (*f->p != ',')
        return -1;
    f->p++;
    skip_ws(f);
    return 0;
}

/* At the opening character: 1 when the list closes at once (both consumed), else 0 (at the
 * first member). */
static int list_empty(fparse *f, char close)
{
    f->p++;
    skip_ws(f);
    if (f->p < f->end && *f->p == close) {
        f->p++;
        return 1;
    }
    return 0;
}

static json_t *parse_object(fparse *f)
{
    json_t *o = json_object();
    if (!o || list_empty(f, '}'))
        return o;
    int next = -1;
    do {
        const char *k;
        size_t klen;
        if (f->p >= f->end || *f->p != '"' || parse_string(f, &k, &klen, 1))
            break;
        /* the key is in f->tmp, which the value may reuse: a copy on the stack or heap */
        char kb[128], *key = klen < sizeof kb ? kb : malloc(klen + 1);
        if (!key)
            break;
        memcpy(key, k, klen + 1);
        skip_ws(f);
        json_t *v = NULL;
        if (f->p < f->end && *f->p == ':') {
            f->p++;
            skip_ws(f);
            v = parse_value(f);
        }
        int bad = !v || json_object_set_new_nocheck(o, key, v);
        if (key != kb)
            free(key);
        next = bad ? -1 : list_next(f, '}');
    } while (next == 0);
    if (next > 0)
        return o;
    json_decref(o); /* an error, at a break above (next is then -1 or 0) or after a member */
    return NULL;
}

static json_t *parse_array(fparse *f)
{
    json_t *a = json_array();
    if (!a || list_empty(f, ']'))
        return a;
    int next;
    do {
        json_t *v = parse_value(f);
        next = !v || json_array_append_new(a, v) ? -1 : list_next(f, ']');
    } while (next == 0);
    return next > 0 ? a : (json_decref(a), NULL);
}

static json_t *parse_literal(fparse *f, const char *word, size_t n, json_t *(*make)(void))
{
    if ((size_t)(f->end - f->p) < n || memcmp(f->p, word, n))
        return NULL;
    f->p += n;
    return value_end(f) ? make() : NULL;
}

static json_t *make_true(void) { return json_true(); }
static json_t *make_false(void) { return json_false(); }
static json_t *make_null(void) { return json_null(); }

static json_t *parse_value(fparse *f)
{
    if (f->p >= f->end)
        return NULL;
    json_t *v;
    switch (*f->p) {
    case '{':
    case '[':
        if (++f->depth > FAST_MAX_DEPTH)
            return NULL;
        v = *f->p == '{' ? parse_object(f) : parse_array(f);
        f->depth--;
        return v;
    case '"': {
        const char *s;
        size_t n;
        return parse_string(f, &s, &n, 0) ? NULL : json_stringn_nocheck(s, n);
    }
    case 't': return parse_literal(f, "true", 4, make_true);
    case 'f': return parse_literal(f, "false", 5, make_false);
    case 'n': return parse_literal(f, "null", 4, make_null);
    default:
        v = parse_number(f);
        if (v && !value_end(f)) {
            json_decref(v);
            return NULL;
        }
        return v;
    }
}

json_t *ms_json_loadb(const char *text, size_t len, size_t flags, json_error_t *je)
{
    if (!(flags & ~(size_t)(JSON_DECODE_ANY | JSON_ALLOW_NUL))) {
        fparse f = {text, text + len, MS_BUF_INIT, 0};
        skip_ws(&f);
        json_t *j = NULL;
        if (f.p < f.end && ((flags & JSON_DECODE_ANY) || *f.p == '{' || *f.p == '['))
            j = parse_value(&f);
        ms_buf_free(&f.tmp);
        if (j) {
            skip_ws(&f);
            if (f.p == f.end) {
                if (je) {
                    /* what json_loadb leaves in it on success: the position is the number
                     * of bytes it read, all of them */
                    je->text[0] = '\0';
                    je->source[0] = '\0';
                    snprintf(je->source, sizeof je->source, "<buffer>");
                    je->line = -1;
                    je->column = -1;
                    je->position = (int)len;
                }
                return j;
            }
            json_decref(j);
        }
    }
    return json_loadb(text, len, flags, je);
}
