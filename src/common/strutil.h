/* Strict number and unit parsing for command lines and config values. */
#ifndef MS_STRUTIL_H
#define MS_STRUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Whole-string parses; return 0 on success, -1 on anything else (empty, junk, overflow, sign
 * on an unsigned value). Base 10 only, surrounding whitespace not allowed. */
int ms_parse_u64(const char *s, uint64_t *out);
int ms_parse_i64(const char *s, int64_t *out);
int ms_parse_double(const char *s, double *out);  /* finite values only */

/* Durations: "<number><unit>" with unit ns, us, ms, s (a bare number is rejected unless
 * default_unit_ns != 0, in which case it is multiplied by it). Result in nanoseconds. */
int ms_parse_duration_ns(const char *s, int64_t default_unit_ns, int64_t *out_ns);

/* Byte sizes: "<n>[K|M|G]" (binary multiples). */
int ms_parse_size(const char *s, uint64_t *out);

/* A formatted string (vasprintf), malloc'd; NULL when out of memory. */
char *ms_vfmt(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
char *ms_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 1 if s starts with prefix. */
int ms_starts_with(const char *s, const char *prefix);

/* Upper-case hex of len bytes into out (2*len+1 bytes). */
void ms_hex_upper(const unsigned char *data, size_t len, char *out);
void ms_hex_lower(const unsigned char *data, size_t len, char *out);

/* A 64-bit hash of n bytes for hash tables (not for security), 8 bytes a step: every bit of
 * the result depends on every byte, top bits and low bits alike. */
uint64_t ms_hash_bytes(const void *p, size_t n);

#endif
