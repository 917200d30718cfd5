#include "common/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include "common/lazy_crypto.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/strutil.h"

/* The digests by name, with their lengths: asking which exist needs no libcrypto (it is loaded
 * when a digest is computed, common/lazy_crypto.h). */
static const struct {
    const char *name;
    int hexlen;
} algos[] = {{"md5", 32}, {"sha1", 40}, {"sha256", 64}};

static int algo_index(const char *algo)
{
    for (int i = 0; i < (int)(sizeof algos / sizeof algos[0]); i++)
        if (!strcmp(algo, algos[i].name))
            return i;
    return -1;
}

/* The implementations fetched by md_for (libcrypto loaded before), never freed */
static EVP_MD *fetched[sizeof algos / sizeof algos[0]];
static void fetch_md5(void)
{
    fetched[0] = EVP_MD_fetch(NULL, "MD5", NULL);
}
static void fetch_sha1(void)
{
    fetched[1] = EVP_MD_fetch(NULL, "SHA1", NULL);
}
static void fetch_sha256(void)
{
    fetched[2] = EVP_MD_fetch(NULL, "SHA256", NULL);
}

/* The OpenSSL digest of algo, libcrypto loaded; NULL with e set otherwise */
static const EVP_MD *md_for(const char *algo, ms_err *e)
{
    int i = algo_index(algo);
    if (i < 0) {
        ms_err_set(e, MS_EUSAGE, "unknown hash algorithm '%s' (expected md5, sha1 or sha256)", algo);
        return NULL;
    }
    if (ms_lazy_crypto_load("computing digests", e) != MS_OK)
        return NULL;
    /* Justified process state: each digest's implementation, fetched from OpenSSL's default
     * provider once per process and shared by all threads (it is never changed). EVP_sha1()
     * and its kin are handles without an implementation, looked up again at every
     * EVP_DigestInit. The first fetch initializes OpenSSL's name map (about 1 ms) under a
     * lock: two threads doing it at once took turns on that lock for twice as long (the
     * check's workers, each reaching its first power log), so one thread fetches and the
     * others wait for it. */
    static pthread_once_t once[] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};
    static void (*const fetch[])(void) = {fetch_md5, fetch_sha1, fetch_sha256};
    if (pthread_once(&once[i], fetch[i]) == 0 && fetched[i])
        return fetched[i];
    /* no provider answered the fetch: the legacy handles still work, only slower */
    return i == 0 ? EVP_md5() : i == 1 ? EVP_sha1() : EVP_sha256();
}

int ms_hash_known(const char *algo)
{
    return algo_index(algo) >= 0;
}

int ms_hash_hexlen(const char *algo)
{
    int i = algo_index(algo);
    return i < 0 ? 0 : algos[i].hexlen;
}

int ms_hash_mem(const char *algo, const void *data, size_t len, char *hex_out, ms_err *e)
{
    ms_err local;
    const EVP_MD *md = md_for(algo, e ? e : &local);
    if (!md)
        return e ? e->code : local.code;
    unsigned char dig[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    if (!EVP_Digest(data, len, dig, &dlen, md, NULL))
        return ms_err_set(e, MS_ERUNTIME, "%s digest failed", algo);
    ms_hex_lower(dig, dlen, hex_out);
    return MS_OK;
}

int ms_hash_file(const char *algo, const char *path, char *hex_out, unsigned long long *bytes,
                 ms_err *e)
{
    ms_err local;
    const EVP_MD *md = md_for(algo, e ? e : &local);
    if (!md)
        return e ? e->code : local.code;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ms_err_errno(e, MS_EINPUT, errno, "%s: cannot open", path);
#ifdef POSIX_FADV_SEQUENTIAL
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    enum { BLK = 1 << 20 };
    unsigned char *buf = malloc(BLK);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!buf || !ctx || !EVP_DigestInit_ex(ctx, md, NULL)) {
        free(buf);
        EVP_MD_CTX_free(ctx);
        close(fd);
        return ms_err_oom(e);
    }
    unsigned long long total = 0;
    int rc = MS_OK;
    for (;;) {
        size_t r;
        if ((rc = ms_read_some(fd, buf, BLK, &r, path, e)) != MS_OK || r == 0)
            break;
        total += r;
        if (!EVP_DigestUpdate(ctx, buf, r)) {
            rc = ms_err_set(e, MS_ERUNTIME, "%s: digest update failed", path);
            break;
        }
    }
    if (rc == MS_OK) {
        unsigned char dig[EVP_MAX_MD_SIZE];
        unsigned int dlen = 0;
        if (!EVP_DigestFinal_ex(ctx, dig, &dlen))
            rc = ms_err_set(e, MS_ERUNTIME, "%s: digest failed", path);
        else
            ms_hex_lower(dig, dlen, hex_out);
    }
    if (bytes)
        *bytes = total;
    free(buf);
    EVP_MD_CTX_free(ctx);
    close(fd);
    return rc;
}
