/* Libraries loaded when first needed (dlopen), not when the process starts.
 *
 * libcurl (the network SUT), libmicrohttpd (`serve`, `node`) and libarchive (`package`, the
 * digits dataset) each pull in a dozen more shared libraries (GnuTLS, Kerberos, LDAP, ICU,
 * libxml2, ...), and libcrypto (digests) is large and bound at load. Linked into the binary, the
 * dynamic loader maps and relocates all of them at every start: most of the start-up of
 * `mlsubmit check`, which needs libcrypto only for power logs and none of the others
 * (docs/ARCHITECTURE.md, "Start-up"). The files that use one of these libraries include its
 * common/lazy_<lib>.h instead of the library's header: the calls keep their names (macros turn
 * them into calls through a table resolved by dlsym), and the code path's entry point calls
 * ms_lazy_<lib>_load(), which names the library, the shared object and the Debian package when
 * it cannot be loaded. */
#ifndef MS_LAZYLIB_H
#define MS_LAZYLIB_H

#include <pthread.h>

#include "common/error.h"

typedef struct ms_lazylib {
    const char *name;            /* "libcurl" */
    const char *soname;          /* "libcurl.so.4" (MS_SONAME_* from the Makefile) */
    const char *package;         /* the Debian package that installs it */
    const char *const *symbols;  /* NULL-terminated: every function the table holds */
    void (**slots)(void);        /* one per symbol, in the same order: the resolved functions */
    pthread_mutex_t mu;          /* serialises the first load */
    int state;                   /* 0 not tried, 1 loaded, -1 failed (atomic reads) */
    char err[600];               /* why it failed (kept for later callers) */
} ms_lazylib;

/* Loads lib once (thread-safe; later calls return its first outcome). On failure: MS_ERUNTIME
 * and "<user> needs <name> (<soname>), which cannot be loaded: <why>; install the Debian package
 * <package>". user says what wanted it ("the network SUT"). */
int ms_lazylib_load(ms_lazylib *lib, const char *user, ms_err *e);
/* The table of a loaded library, loading it if needed. A call through a library whose entry point
 * did not load it first, where it cannot be loaded, is a programming error: it aborts with the
 * reason on stderr (like a failed assert), rather than calling through a null pointer. */
void (**ms_lazylib_slots(ms_lazylib *lib))(void);

/* The function f of library k (slot enum prefix K) as its own pointer type: what the renaming
 * macros of common/lazy_<k>.h expand to. f is only pasted, never expanded. */
#define MS_LAZY_FN(k, K, f) ((ms_##k##_fn_##f)ms_lazylib_slots(&ms_lazy_##k)[MS_##K##_##f])

/* What common/lazy_<k>.h declares for the function list MS_<K>_FUNCS(X, a) (each entry X(a, f)):
 * the descriptor ms_lazy_<k>, ms_lazy_<k>_load(user, e), the slot numbers MS_<K>_<f> and the
 * pointer types ms_<k>_fn_<f>, taken from the library's own declarations (so it must come
 * before the renaming macros: a function-like macro name not followed by '(' is not expanded). */
#define MS_LAZY_SLOT_(K, f) MS_##K##_##f,
#define MS_LAZY_TYPE_(k, f) typedef __typeof__(f) *ms_##k##_fn_##f;
#define MS_LAZY_DECLARE(k, K)                                                                   \
    extern ms_lazylib ms_lazy_##k;                                                              \
    static inline int ms_lazy_##k##_load(const char *user, ms_err *e)                           \
    {                                                                                           \
        return ms_lazylib_load(&ms_lazy_##k, user, e);                                          \
    }                                                                                           \
    enum { MS_##K##_FUNCS(MS_LAZY_SLOT_, K) MS_##K##_NFUNCS };                                  \
    MS_##K##_FUNCS(MS_LAZY_TYPE_, k)

#endif
