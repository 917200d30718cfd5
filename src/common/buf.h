/* Growable byte buffer (always NUL-terminated for convenience). */
#ifndef MS_BUF_H
#define MS_BUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ms_buf {
    char *data;  /* NULL until the first append */
    size_t len;
    size_t cap;
} ms_buf;

#define MS_BUF_INIT {NULL, 0, 0}

/* All return 0 on success, -1 on allocation failure (the buffer is then unchanged). */
int ms_buf_reserve(ms_buf *b, size_t extra);
int ms_buf_append(ms_buf *b, const void *data, size_t len);
int ms_buf_puts(ms_buf *b, const char *s);
int ms_buf_putc(ms_buf *b, char c);
int ms_buf_printf(ms_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ms_buf_vprintf(ms_buf *b, const char *fmt, va_list ap);
void ms_buf_reset(ms_buf *b);  /* len = 0, keeps memory */
void ms_buf_free(ms_buf *b);
/* Hands the storage to the caller (who frees it); the buffer becomes empty. */
char *ms_buf_steal(ms_buf *b);

/* Growth of a (pointer, count, capacity) array: makes room for need elements of elem bytes.
 * pptr is the address of the array pointer (any T **), *cap its capacity in elements; the
 * capacity doubles from first (or the current capacity) until it holds need. Returns 0, or -1
 * when need * elem overflows or the allocation fails (the array and *cap are then unchanged).
 * MS_GROW(v, cap, need, first) is the usual call: v a T * lvalue, cap a size_t lvalue. */
int ms_grow(void *pptr, size_t *cap, size_t need, size_t elem, size_t first);
#define MS_GROW(v, cap, need, first) ((need) <= (cap) ? 0 : ms_grow(&(v), &(cap), (need), sizeof *(v), (first)))

#endif
