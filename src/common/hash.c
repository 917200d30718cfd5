#include "common/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/strutil.h"

static const EVP_MD *md_for(const char *algo)
{
    if (!strcmp(algo, "md5"))
        return EVP_md5();
    if (!strcmp(algo, "sha1"))
        return EVP_sha1();
    if (!strcmp(algo, "sha256"))
        return EVP_sha256();
    return NULL;
}

int ms_hash_known(const char *algo)
{
    return md_for(algo) != NULL;
}

int ms_hash_hexlen(const char *algo)
{
    const EVP_MD *md = md_for(algo);
    return md ? 2 * EVP_MD_get_size(md) : 0;
}

int ms_hash_mem(const char *algo, const void *data, size_t len, char *hex_out, ms_err *e)
{
    const EVP_MD *md = md_for(algo);
    if (!md)
        return ms_err_set(e, MS_EUSAGE, "unknown hash algorithm '%s' (expected md5, sha1 or sha256)", algo);
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
    const EVP_MD *md = md_for(algo);
    if (!md)
        return ms_err_set(e, MS_EUSAGE, "unknown hash algorithm '%s' (expected md5, sha1 or sha256)", algo);
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
        ssize_t r = read(fd, buf, BLK);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = ms_err_errno(e, MS_EINPUT, errno, "%s: read error", path);
            break;
        }
        if (r == 0)
            break;
        total += (unsigned long long)r;
        if (!EVP_DigestUpdate(ctx, buf, (size_t)r)) {
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
