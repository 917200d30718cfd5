/* libFuzzer harness: the network SUT's (QDL's) query response decoders (src/net/proto.c), whole and
 * streaming; a decoded response re-encodes to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_net_result *r;
    size_t n;
    ms_err e;
    /* the streaming decoder (frames back to back, the last one maybe incomplete) */
    for (size_t off = 0, used = 0; off < size; off += used) {
        int rc = ms_net_resp_decode_frame(data + off, size - off, &r, &n, &used, &e);
        if (rc != MS_OK)
            break;
        free(r);
        if (used < 8)
            __builtin_trap(); /* a frame is at least its 8-byte header */
    }
    if (ms_net_resp_decode(data, size, &r, &n, &e) != MS_OK)
        return 0;
    ms_net_buf b = {0};
    int bad = ms_net_resp_begin(&b, (uint32_t)n);
    for (size_t i = 0; i < n && !bad; i++)
        bad = ms_net_resp_add(&b, &r[i]);
    if (!bad && (b.len != size || memcmp(b.data, data, size) != 0))
        __builtin_trap(); /* decode and encode disagree */
    ms_net_buf_free(&b);
    free(r);
    return 0;
}
