#include "common/error.h"

#include <stdio.h>
#include <string.h>

int ms_err_vset(ms_err *e, int code, const char *fmt, va_list ap)
{
    if (e) {
        e->code = code;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    }
    return code;
}

int ms_err_set(ms_err *e, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ms_err_vset(e, code, fmt, ap);
    va_end(ap);
    return code;
}

int ms_err_errno(ms_err *e, int code, int errno_value, const char *fmt, ...)
{
    if (!e)
        return code;
    va_list ap;
    va_start(ap, fmt);
    ms_err_vset(e, code, fmt, ap);
    va_end(ap);
    size_t n = strlen(e->msg);
    snprintf(e->msg + n, sizeof e->msg - n, ": %s", strerror(errno_value));
    return code;
}

int ms_err_prefix(ms_err *e, const char *fmt, ...)
{
    if (!e)
        return MS_ERUNTIME;
    char prefix[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t pl = strlen(prefix), ol = strnlen(e->msg, sizeof e->msg - 1);
    if (pl + 2 >= sizeof e->msg)
        pl = sizeof e->msg - 3;
    if (pl + 2 + ol >= sizeof e->msg)
        ol = sizeof e->msg - 3 - pl;
    memmove(e->msg + pl + 2, e->msg, ol);
    memcpy(e->msg, prefix, pl);
    e->msg[pl] = ':';
    e->msg[pl + 1] = ' ';
    e->msg[pl + 2 + ol] = '\0';
    return e->code;
}

void ms_err_clear(ms_err *e)
{
    if (e) {
        e->code = MS_OK;
        e->msg[0] = '\0';
    }
}

int ms_err_oom(ms_err *e)
{
    return ms_err_set(e, MS_ERUNTIME, "out of memory");
}
