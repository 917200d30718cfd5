#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ms_buf_reserve(ms_buf *b, size_t extra)
{
    if (extra > (size_t)-1 / 2 - b->len)
        return -1;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return -1;
    b->data = p;
    b->cap = cap;
    return 0;
}

int ms_grow(void *pptr, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : (first ? first : 1);
    while (nc < need) {
        if (nc > (size_t)-1 / 2)
            return -1;
        nc *= 2;
    }
    if (elem && nc > (size_t)-1 / elem)
        return -1;
    void *p;
    memcpy(&p, pptr, sizeof p);
    void *np = realloc(p, nc * elem);
    if (!np)
        return -1;
    memcpy(pptr, &np, sizeof np);
    *cap = nc;
    return 0;
}

int ms_buf_append(ms_buf *b, const void *data, size_t len)
{
    if (ms_buf_reserve(b, len) != 0)
        return -1;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int ms_buf_puts(ms_buf *b, const char *s)
{
    return ms_buf_append(b, s, strlen(s));
}

int ms_buf_putc(ms_buf *b, char c)
{
    return ms_buf_append(b, &c, 1);
}

int ms_buf_vprintf(ms_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return -1;
    if ((size_t)n < sizeof small)
        return ms_buf_append(b, small, (size_t)n);
    if (ms_buf_reserve(b, (size_t)n) != 0)
        return -1;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int ms_buf_printf(ms_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = ms_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return r;
}

void ms_buf_reset(ms_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void ms_buf_free(ms_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *ms_buf_steal(ms_buf *b)
{
    char *p = b->data;
    if (!p)
        p = calloc(1, 1);
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
