/* OpenSSL libcrypto (message digests: common/hash.c, common/treehash_walk.c, report/package.c,
 * audit/test01.c), loaded when first needed: common/lazylib.h. Mapping and relocating it costs
 * about as much as the rest of a start of mlsubmit together, and most checks hash nothing.
 * Include this header instead of <openssl/evp.h>; call ms_lazy_crypto_load() where the code path
 * that uses it begins. */
#ifndef MS_LAZY_CRYPTO_H
#define MS_LAZY_CRYPTO_H

#include <openssl/evp.h>

#include "common/lazylib.h"

/* Every libcrypto function mlsubmit calls (a new one: add it here and to the renaming below). */
#define MS_CRYPTO_FUNCS(X, a) \
    X(a, EVP_Digest) \
    X(a, EVP_DigestInit_ex) \
    X(a, EVP_DigestInit_ex2) \
    X(a, EVP_DigestUpdate) \
    X(a, EVP_DigestFinal_ex) \
    X(a, EVP_MD_CTX_new) \
    X(a, EVP_MD_CTX_free) \
    X(a, EVP_MD_get_size) \
    X(a, EVP_md5) \
    X(a, EVP_sha1) \
    X(a, EVP_sha256) \
    X(a, EVP_MD_fetch) \
    X(a, EVP_MD_free)

/* ms_lazy_crypto and ms_lazy_crypto_load(user, e): MS_OK, or MS_ERUNTIME and a message naming
 * the library; the slot numbers and pointer types of the functions */
MS_LAZY_DECLARE(crypto, CRYPTO)

/* From here on the names call through the table. */
#define EVP_Digest MS_LAZY_FN(crypto, CRYPTO, EVP_Digest)
#define EVP_DigestInit_ex MS_LAZY_FN(crypto, CRYPTO, EVP_DigestInit_ex)
#define EVP_DigestInit_ex2 MS_LAZY_FN(crypto, CRYPTO, EVP_DigestInit_ex2)
#define EVP_DigestUpdate MS_LAZY_FN(crypto, CRYPTO, EVP_DigestUpdate)
#define EVP_DigestFinal_ex MS_LAZY_FN(crypto, CRYPTO, EVP_DigestFinal_ex)
#define EVP_MD_CTX_new MS_LAZY_FN(crypto, CRYPTO, EVP_MD_CTX_new)
#define EVP_MD_CTX_free MS_LAZY_FN(crypto, CRYPTO, EVP_MD_CTX_free)
#define EVP_MD_get_size MS_LAZY_FN(crypto, CRYPTO, EVP_MD_get_size)
#define EVP_md5 MS_LAZY_FN(crypto, CRYPTO, EVP_md5)
#define EVP_sha1 MS_LAZY_FN(crypto, CRYPTO, EVP_sha1)
#define EVP_sha256 MS_LAZY_FN(crypto, CRYPTO, EVP_sha256)
#define EVP_MD_fetch MS_LAZY_FN(crypto, CRYPTO, EVP_MD_fetch)
#define EVP_MD_free MS_LAZY_FN(crypto, CRYPTO, EVP_MD_free)

#endif
