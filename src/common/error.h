/* Error reporting shared by every module: library code fills an ms_err and returns its code;
 * only the CLI prints and exits. Messages name the file (and line or JSON path) and say what
 * was expected. */
#ifndef MS_ERROR_H
#define MS_ERROR_H

#include <stdarg.h>

/* Exit codes of the mlsubmit binary (also the codes carried by ms_err). */
enum ms_status {
    MS_OK = 0,        /* success, verdict positive */
    MS_FAIL = 1,      /* the command ran; its verdict is negative (errors found, INVALID, mismatch) */
    MS_EUSAGE = 2,    /* bad command line */
    MS_EINPUT = 3,    /* unreadable or malformed input file */
    MS_ERUNTIME = 4,  /* I/O failure, out of memory, SUT fault, timeout */
};

typedef struct ms_err {
    int code;
    char msg[1536];
} ms_err;

/* Sets the error (code and printf-style message) and returns code. e may be NULL. */
int ms_err_set(ms_err *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ms_err_vset(ms_err *e, int code, const char *fmt, va_list ap);
/* Sets code and "<what>: <strerror(errno_value)>". */
int ms_err_errno(ms_err *e, int code, int errno_value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prepends "<context>: " to the message, keeps the code. Returns the code. */
int ms_err_prefix(ms_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ms_err_clear(ms_err *e);
/* Out-of-memory shorthand. */
int ms_err_oom(ms_err *e);

#endif
