/* The QDL wire format (docs/NETWORK.md): fixed little-endian fields, every length checked. */
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int ms_net_buf_put(ms_net_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *d = realloc(b->data, cap);
        if (!d)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

void ms_net_buf_free(ms_net_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

static int put_u32(ms_net_buf *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    return ms_net_buf_put(b, x, 4);
}

static int put_u64(ms_net_buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    return ms_net_buf_put(b, x, 8);
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

int ms_net_req_begin(ms_net_buf *b, uint32_t n)
{
    b->len = 0;
    return ms_net_buf_put(b, MS_NET_REQ_MAGIC, 4) || put_u32(b, n) ? -1 : 0;
}

int ms_net_req_add(ms_net_buf *b, uint64_t id, uint64_t index, const void *data, uint32_t size)
{
    return put_u64(b, id) || put_u64(b, index) || put_u32(b, size) || ms_net_buf_put(b, data, size) ? -1 : 0;
}

int ms_net_resp_begin(ms_net_buf *b, uint32_t n)
{
    b->len = 0;
    return ms_net_buf_put(b, MS_NET_RESP_MAGIC, 4) || put_u32(b, n) ? -1 : 0;
}

int ms_net_resp_open(ms_net_buf *b, size_t *hdr)
{
    *hdr = b->len;
    return ms_net_buf_put(b, MS_NET_RESP_MAGIC, 4) || put_u32(b, 0) ? -1 : 0;
}

void ms_net_resp_close(ms_net_buf *b, size_t hdr, uint32_t n)
{
    for (int i = 0; i < 4; i++)
        b->data[hdr + 4 + (size_t)i] = (uint8_t)(n >> (8 * i));
}

int ms_net_resp_add(ms_net_buf *b, const ms_net_result *r)
{
    uint8_t flags = r->is_first_token ? 2 : r->has_first_token ? 1 : 0;
    if (put_u64(b, r->id) || put_u64(b, (uint64_t)r->n_tokens) || ms_net_buf_put(b, &flags, 1))
        return -1;
    if (!r->is_first_token && r->has_first_token &&
        (put_u32(b, r->first_token_size) || ms_net_buf_put(b, r->first_token, r->first_token_size)))
        return -1;
    return put_u32(b, r->size) || ms_net_buf_put(b, r->data, r->size) ? -1 : 0;
}

/* Reads the 8-byte header of a frame: magic and count. */
static int header(const uint8_t *body, size_t len, const char *magic, size_t *n, const char *what, ms_err *e)
{
    if (memcmp(body, magic, 4) != 0)
        return ms_err_set(e, MS_EINPUT, "%s: bytes 0-3 are not the magic \"%s\"", what, magic);
    uint32_t c = get_u32(body + 4);
    if (c > MS_NET_MAX_SAMPLES)
        return ms_err_set(e, MS_EINPUT, "%s: bytes 4-7: %u samples, more than the limit %u", what, c,
                          MS_NET_MAX_SAMPLES);
    (void)len;
    *n = c;
    return MS_OK;
}

/* The frame decoders scan the whole frame first (no allocation: a lying count costs nothing),
 * then fill the records. In partial mode a frame that stops early is MS_NET_MORE, else an
 * error naming the byte offset. */
static int req_frame(const uint8_t *body, size_t len, ms_net_sample **out, size_t *n, size_t *used, ms_err *e)
{
    *out = NULL;
    *n = 0;
    const char *what = "query request";
    if (len < 8)
        return ms_err_set(e, MS_EINPUT, "%s: %zu bytes, shorter than the 8-byte header", what, len);
    size_t c;
    int rc = header(body, len, MS_NET_REQ_MAGIC, &c, what, e);
    if (rc != MS_OK)
        return rc;
    size_t off = 8;
    for (size_t i = 0; i < c; i++) {
        if (len - off < 20)
            return ms_err_set(e, MS_EINPUT, "%s: sample %zu at byte %zu: truncated header", what, i, off);
        uint32_t sz = get_u32(body + off + 16);
        off += 20;
        if (len - off < sz)
            return ms_err_set(e, MS_EINPUT, "%s: sample %zu: %u data bytes announced, %zu left", what, i, sz,
                              len - off);
        off += sz;
    }
    ms_net_sample *v = calloc(c ? c : 1, sizeof *v);
    if (!v)
        return ms_err_oom(e);
    off = 8;
    for (size_t i = 0; i < c; i++) {
        v[i].id = get_u64(body + off);
        v[i].index = get_u64(body + off + 8);
        v[i].size = get_u32(body + off + 16);
        v[i].data = body + off + 20;
        off += 20 + v[i].size;
    }
    *out = v;
    *n = c;
    *used = off;
    return MS_OK;
}

static int resp_frame(const uint8_t *body, size_t len, int partial, ms_net_result **out, size_t *n, size_t *used,
                      ms_err *e)
{
    *out = NULL;
    *n = 0;
    const char *what = "query response";
    if (len < 8) {
        if (partial && !memcmp(body, MS_NET_RESP_MAGIC, len < 4 ? len : 4))
            return MS_NET_MORE;
        return ms_err_set(e, MS_EINPUT, "%s: %zu bytes, shorter than the 8-byte header", what, len);
    }
    size_t c;
    int rc = header(body, len, MS_NET_RESP_MAGIC, &c, what, e);
    if (rc != MS_OK)
        return rc;
    size_t off = 8;
    for (int pass = 0; pass < 2; pass++) {
        ms_net_result *v = NULL;
        if (pass) {
            v = calloc(c ? c : 1, sizeof *v);
            if (!v)
                return ms_err_oom(e);
        }
        off = 8;
        for (size_t i = 0; i < c; i++) {
            if (len - off < 17) {
                if (partial)
                    return MS_NET_MORE;
                return ms_err_set(e, MS_EINPUT, "%s: sample %zu at byte %zu: truncated header", what, i, off);
            }
            uint8_t flags = body[off + 16];
            if ((flags & ~3u) || flags == 3)
                return ms_err_set(e, MS_EINPUT, "%s: sample %zu: unknown flags 0x%02x at byte %zu", what, i, flags,
                                  off + 16);
            if (v) {
                v[i].id = get_u64(body + off);
                v[i].n_tokens = (int64_t)get_u64(body + off + 8);
                v[i].is_first_token = flags & 2 ? 1 : 0;
            }
            off += 17;
            if (flags & 1) {
                if (len - off < 4 || len - off - 4 < get_u32(body + off)) {
                    if (partial)
                        return MS_NET_MORE;
                    return ms_err_set(e, MS_EINPUT, "%s: sample %zu: truncated first token at byte %zu", what, i,
                                      off);
                }
                if (v) {
                    v[i].has_first_token = 1;
                    v[i].first_token_size = get_u32(body + off);
                    v[i].first_token = body + off + 4;
                }
                off += 4 + get_u32(body + off);
            }
            if (len - off < 4 || len - off - 4 < get_u32(body + off)) {
                if (partial)
                    return MS_NET_MORE;
                return ms_err_set(e, MS_EINPUT, "%s: sample %zu: truncated payload at byte %zu", what, i, off);
            }
            if (v) {
                v[i].size = get_u32(body + off);
                v[i].data = body + off + 4;
            }
            off += 4 + get_u32(body + off);
        }
        if (v) {
            *out = v;
            *n = c;
        }
    }
    *used = off;
    return MS_OK;
}

int ms_net_req_decode_frame(const uint8_t *body, size_t len, ms_net_sample **out, size_t *n, size_t *used,
                            ms_err *e)
{
    return req_frame(body, len, out, n, used, e);
}

int ms_net_resp_decode_frame(const uint8_t *body, size_t len, ms_net_result **out, size_t *n, size_t *used,
                             ms_err *e)
{
    return resp_frame(body, len, 1, out, n, used, e);
}

int ms_net_req_decode(const uint8_t *body, size_t len, ms_net_sample **out, size_t *n, ms_err *e)
{
    size_t used = 0;
    int rc = req_frame(body, len, out, n, &used, e);
    if (rc == MS_OK && used != len) {
        free(*out);
        *out = NULL;
        *n = 0;
        return ms_err_set(e, MS_EINPUT, "query request: %zu bytes after the last sample", len - used);
    }
    return rc;
}

int ms_net_resp_decode(const uint8_t *body, size_t len, ms_net_result **out, size_t *n, ms_err *e)
{
    size_t used = 0;
    int rc = resp_frame(body, len, 0, out, n, &used, e);
    if (rc == MS_OK && used != len) {
        free(*out);
        *out = NULL;
        *n = 0;
        return ms_err_set(e, MS_EINPUT, "query response: %zu bytes after the last sample", len - used);
    }
    return rc;
}
