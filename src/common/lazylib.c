/* Libraries loaded when first needed: common/lazylib.h. */
#include "common/lazylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/lazy_archive.h"
#include "common/lazy_crypto.h"
#include "common/lazy_curl.h"
#include "common/lazy_mhd.h"
#include "common/lazy_sqlite.h"

/* The shared objects the build linked against (the Makefile reads their SONAME); these are the
 * Debian 12 names. */
#ifndef MS_SONAME_CURL
#define MS_SONAME_CURL "libcurl.so.4"
#endif
#ifndef MS_SONAME_MHD
#define MS_SONAME_MHD "libmicrohttpd.so.12"
#endif
#ifndef MS_SONAME_ARCHIVE
#define MS_SONAME_ARCHIVE "libarchive.so.13"
#endif
#ifndef MS_SONAME_CRYPTO
#define MS_SONAME_CRYPTO "libcrypto.so.3"
#endif
#ifndef MS_SONAME_SQLITE
#define MS_SONAME_SQLITE "libsqlite3.so.0"
#endif

#define MS_LAZY_NAME(a, f) #f,
static const char *const curl_symbols[] = {MS_CURL_FUNCS(MS_LAZY_NAME, ) NULL};
static const char *const mhd_symbols[] = {MS_MHD_FUNCS(MS_LAZY_NAME, ) NULL};
static const char *const archive_symbols[] = {MS_ARCHIVE_FUNCS(MS_LAZY_NAME, ) NULL};
static const char *const crypto_symbols[] = {MS_CRYPTO_FUNCS(MS_LAZY_NAME, ) NULL};
static const char *const sqlite_symbols[] = {MS_SQLITE_FUNCS(MS_LAZY_NAME, ) NULL};
#undef MS_LAZY_NAME

/* Process-wide like the dynamic loader's own list of loaded objects: written once, under the
 * descriptor's mutex, then only read. */
static void (*curl_slots[MS_CURL_NFUNCS])(void);
static void (*mhd_slots[MS_MHD_NFUNCS])(void);
static void (*archive_slots[MS_ARCHIVE_NFUNCS])(void);
static void (*crypto_slots[MS_CRYPTO_NFUNCS])(void);
static void (*sqlite_slots[MS_SQLITE_NFUNCS])(void);

ms_lazylib ms_lazy_curl = {"libcurl", MS_SONAME_CURL, "libcurl4", curl_symbols, curl_slots,
                           PTHREAD_MUTEX_INITIALIZER, 0, ""};
ms_lazylib ms_lazy_mhd = {"libmicrohttpd", MS_SONAME_MHD, "libmicrohttpd12", mhd_symbols, mhd_slots,
                          PTHREAD_MUTEX_INITIALIZER, 0, ""};
ms_lazylib ms_lazy_archive = {"libarchive", MS_SONAME_ARCHIVE, "libarchive13", archive_symbols,
                              archive_slots, PTHREAD_MUTEX_INITIALIZER, 0, ""};
ms_lazylib ms_lazy_crypto = {"OpenSSL libcrypto", MS_SONAME_CRYPTO, "libssl3", crypto_symbols,
                             crypto_slots, PTHREAD_MUTEX_INITIALIZER, 0, ""};
ms_lazylib ms_lazy_sqlite = {"SQLite", MS_SONAME_SQLITE, "libsqlite3-0", sqlite_symbols,
                             sqlite_slots, PTHREAD_MUTEX_INITIALIZER, 0, ""};

/* Under lib->mu: opens the library and resolves every symbol; 1 or -1 (lib->err says why). */
static int load_locked(ms_lazylib *lib)
{
    void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(lib->err, sizeof lib->err, "%s", why ? why : "dlopen failed");
        return -1;
    }
    for (size_t i = 0; lib->symbols[i]; i++) {
        dlerror();
        void *p = dlsym(h, lib->symbols[i]);
        if (!p) {
            snprintf(lib->err, sizeof lib->err, "it has no function %s (an older version?)", lib->symbols[i]);
            dlclose(h);
            return -1;
        }
        /* POSIX: a function's address converts through void * (dlsym) */
        lib->slots[i] = (void (*)(void))p;
    }
    return 1; /* the handle stays open for the life of the process */
}

static int load(ms_lazylib *lib)
{
    int st = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);
    if (st)
        return st;
    pthread_mutex_lock(&lib->mu);
    st = lib->state;
    if (!st) {
        st = load_locked(lib);
        __atomic_store_n(&lib->state, st, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lib->mu);
    return st;
}

int ms_lazylib_load(ms_lazylib *lib, const char *user, ms_err *e)
{
    if (load(lib) > 0)
        return MS_OK;
    return ms_err_set(e, MS_ERUNTIME,
                      "%s needs %s (%s), which cannot be loaded: %s; install the Debian package %s",
                      user, lib->name, lib->soname, lib->err, lib->package);
}

void (**ms_lazylib_slots(ms_lazylib *lib))(void)
{
    if (__atomic_load_n(&lib->state, __ATOMIC_ACQUIRE) > 0 || load(lib) > 0)
        return lib->slots;
    /* a programming error (the entry point did not call ms_lazylib_load), like a failed assert */
    fprintf(stderr, "mlsubmit: internal error: %s (%s) called before it was loaded, and it cannot be: %s\n",
            lib->name, lib->soname, lib->err);
    abort();
}
