/* libFuzzer harness: the network SUT node's query request decoders (src/net/proto.c), one frame and
 * frames back to back; a decoded request re-encodes to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_net_sample *s;
    size_t n;
    ms_err e;
    /* frames back to back, as a node reads a request of several queries */
    for (size_t off = 0, used = 0; off < size; off += used) {
        if (ms_net_req_decode_frame(data + off, size - off, &s, &n, &used, &e) != MS_OK)
            break;
        free(s);
        if (used < 8)
            __builtin_trap(); /* a frame is at least its 8-byte header */
    }
    if (ms_net_req_decode(data, size, &s, &n, &e) != MS_OK)
        return 0;
    ms_net_buf b = {0};
    int bad = ms_net_req_begin(&b, (uint32_t)n);
    for (size_t i = 0; i < n && !bad; i++)
        bad = ms_net_req_add(&b, s[i].id, s[i].index, s[i].data, s[i].size);
    if (!bad && (b.len != size || memcmp(b.data, data, size) != 0))
        __builtin_trap(); /* decode and encode disagree */
    ms_net_buf_free(&b);
    free(s);
    return 0;
}
