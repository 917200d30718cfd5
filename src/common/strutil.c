#include "common/strutil.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The decimal number s starts with (a digit first: no sign, no space), *end after it; -1 when
 * there is none or it overflows. */
static int leading_u64(const char *s, unsigned long long *v, char **end)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    *v = strtoull(s, end, 10);
    return errno ? -1 : 0;
}

int ms_parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end;
    if (leading_u64(s, &v, &end) || *end)
        return -1;
    *out = v;
    return 0;
}

int ms_parse_i64(const char *s, int64_t *out)
{
    if (!s || !(isdigit((unsigned char)s[0]) || ((s[0] == '-' || s[0] == '+') && isdigit((unsigned char)s[1]))))
        return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int ms_parse_double(const char *s, double *out)
{
    if (!s || !*s || isspace((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int ms_parse_duration_ns(const char *s, int64_t default_unit_ns, int64_t *out_ns)
{
    if (!s || !*s || isspace((unsigned char)s[0]) || s[0] == '-')
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno || end == s || !isfinite(v) || v < 0)
        return -1;
    double mul;
    if (!*end) {
        if (!default_unit_ns)
            return -1;
        mul = (double)default_unit_ns;
    } else if (!strcmp(end, "ns"))
        mul = 1;
    else if (!strcmp(end, "us"))
        mul = 1e3;
    else if (!strcmp(end, "ms"))
        mul = 1e6;
    else if (!strcmp(end, "s"))
        mul = 1e9;
    else
        return -1;
    double ns = v * mul;
    if (ns > 9.2e18)
        return -1;
    *out_ns = (int64_t)llround(ns);
    return 0;
}

int ms_parse_size(const char *s, uint64_t *out)
{
    unsigned long long v;
    char *end;
    if (leading_u64(s, &v, &end))
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

int ms_starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void hex(const unsigned char *data, size_t len, char *out, const char *digits)
{
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    out[2 * len] = '\0';
}

void ms_hex_upper(const unsigned char *data, size_t len, char *out)
{
    hex(data, len, out, "0123456789ABCDEF");
}

void ms_hex_lower(const unsigned char *data, size_t len, char *out)
{
    hex(data, len, out, "0123456789abcdef");
}

char *ms_vfmt(const char *fmt, va_list ap)
{
    char *s = NULL;
    return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

char *ms_fmt(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = ms_vfmt(fmt, ap);
    va_end(ap);
    return s;
}

uint64_t ms_hash_bytes(const void *p, size_t n)
{
    const unsigned char *k = p;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (; n >= 8; k += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, k, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, k, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}
