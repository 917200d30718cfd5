/* Message digests through OpenSSL libcrypto (EVP): MD5, SHA-1, SHA-256. */
#ifndef MS_HASH_H
#define MS_HASH_H

#include <stddef.h>

#include "common/error.h"

#define MS_HASH_HEX_MAX 129

/* algo: "md5", "sha1", "sha256". Writes lower-case hex into hex_out (MS_HASH_HEX_MAX bytes). */
int ms_hash_mem(const char *algo, const void *data, size_t len, char *hex_out, ms_err *e);
/* Streams the file in large blocks. *bytes (optional) receives the size hashed. */
int ms_hash_file(const char *algo, const char *path, char *hex_out, unsigned long long *bytes,
                 ms_err *e);
/* 1 if algo is supported. */
int ms_hash_known(const char *algo);
/* Hex length for algo (32, 40, 64) or 0. */
int ms_hash_hexlen(const char *algo);

#endif
