/* Network division: the wire format's encoders and decoders (src/net/proto.c) and the LoadGen's
 * completion sink (lg_sink_new) driving a reference SUT without a run. */
#include "net/net.h"
#include "testutil.h"

START_TEST(request_round_trip_and_errors)
{
    ms_net_buf b = {0};
    ck_assert_int_eq(ms_net_req_begin(&b, 2), 0);
    ck_assert_int_eq(ms_net_req_add(&b, 7, 5, "abc", 3), 0);
    ck_assert_int_eq(ms_net_req_add(&b, 9, 1, NULL, 0), 0);
    ck_assert_uint_eq(b.len, 8 + 23 + 20);
    ck_assert_int_eq(memcmp(b.data, "MSQ1\x02\0\0\0\x07\0\0\0\0\0\0\0\x05", 17), 0);
    ms_net_sample *s;
    size_t n;
    ms_err e;
    ck_assert_int_eq(ms_net_req_decode(b.data, b.len, &s, &n, &e), MS_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(s[0].id, 7);
    ck_assert_uint_eq(s[0].index, 5);
    ck_assert_uint_eq(s[0].size, 3);
    ck_assert_int_eq(memcmp(s[0].data, "abc", 3), 0);
    ck_assert_uint_eq(s[1].id, 9);
    free(s);
    /* truncated, trailing bytes, bad magic, lying count */
    ck_assert_int_eq(ms_net_req_decode(b.data, b.len - 1, &s, &n, &e), MS_EINPUT);
    ck_assert_ptr_null(s);
    uint8_t more[128];
    memcpy(more, b.data, b.len);
    more[b.len] = 0;
    ck_assert_int_eq(ms_net_req_decode(more, b.len + 1, &s, &n, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "after the last sample"));
    more[0] = 'X';
    ck_assert_int_eq(ms_net_req_decode(more, b.len, &s, &n, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "magic"));
    memcpy(more, "MSQ1\xff\xff\0\0", 8);
    ck_assert_int_eq(ms_net_req_decode(more, 8, &s, &n, &e), MS_EINPUT);
    /* data length beyond the body */
    memcpy(more, b.data, b.len);
    more[24] = 200;
    ck_assert_int_eq(ms_net_req_decode(more, b.len, &s, &n, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "200 data bytes announced"));
    ms_net_buf_free(&b);
}
END_TEST

START_TEST(response_round_trip_and_errors)
{
    ms_net_buf b = {0};
    uint32_t pl = 42;
    ms_net_result r1 = {3, 12, 1, (const uint8_t *)"tok", 3, (const uint8_t *)&pl, 4, 0};
    ms_net_result r2 = {4, 0, 0, NULL, 0, (const uint8_t *)"", 0, 0};
    ck_assert_int_eq(ms_net_resp_begin(&b, 2), 0);
    ck_assert_int_eq(ms_net_resp_add(&b, &r1), 0);
    ck_assert_int_eq(ms_net_resp_add(&b, &r2), 0);
    ms_net_result *r;
    size_t n;
    ms_err e;
    ck_assert_int_eq(ms_net_resp_decode(b.data, b.len, &r, &n, &e), MS_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(r[0].id, 3);
    ck_assert_int_eq(r[0].n_tokens, 12);
    ck_assert_int_eq(r[0].has_first_token, 1);
    ck_assert_int_eq(memcmp(r[0].first_token, "tok", 3), 0);
    ck_assert_uint_eq(r[0].size, 4);
    ck_assert_int_eq(memcmp(r[0].data, &pl, 4), 0);
    ck_assert_int_eq(r[1].has_first_token, 0);
    free(r);
    uint8_t bad[128];
    memcpy(bad, b.data, b.len);
    bad[8 + 16] = 4; /* unknown flag */
    ck_assert_int_eq(ms_net_resp_decode(bad, b.len, &r, &n, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown flags"));
    bad[8 + 16] = 3; /* a first token only (2) that also carries one (1): contradictory */
    ck_assert_int_eq(ms_net_resp_decode(bad, b.len, &r, &n, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "unknown flags"));
    for (size_t cut = 0; cut < b.len; cut++)
        ck_assert_int_eq(ms_net_resp_decode(b.data, cut, &r, &n, &e), MS_EINPUT);
    ms_net_buf_free(&b);
}
END_TEST

/* The streaming decoder: frames back to back, every prefix of a frame is "more", never an
 * error; a first-token-only record (flag 2) round-trips. */
START_TEST(response_stream_frames)
{
    ms_net_buf b = {0}, f2 = {0};
    uint32_t pl = 7;
    ms_net_result ft = {9, 1, 0, NULL, 0, (const uint8_t *)"first", 5, 1};
    ms_net_result done = {9, 5, 0, NULL, 0, (const uint8_t *)&pl, 4, 0};
    ck_assert_int_eq(ms_net_resp_begin(&b, 1), 0);
    ck_assert_int_eq(ms_net_resp_add(&b, &ft), 0);
    ck_assert_int_eq(ms_net_resp_begin(&f2, 1), 0);
    ck_assert_int_eq(ms_net_resp_add(&f2, &done), 0);
    size_t l1 = b.len;
    ck_assert_int_eq(ms_net_buf_put(&b, f2.data, f2.len), 0);
    ms_net_result *r;
    size_t n, used;
    ms_err e;
    for (size_t cut = 0; cut < l1; cut++)
        ck_assert_int_eq(ms_net_resp_decode_frame(b.data, cut, &r, &n, &used, &e), MS_NET_MORE);
    ck_assert_int_eq(ms_net_resp_decode_frame(b.data, b.len, &r, &n, &used, &e), MS_OK);
    ck_assert_uint_eq(used, l1);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(r[0].is_first_token, 1);
    ck_assert_int_eq(r[0].has_first_token, 0);
    ck_assert_uint_eq(r[0].size, 5);
    ck_assert_int_eq(memcmp(r[0].data, "first", 5), 0);
    free(r);
    ck_assert_int_eq(ms_net_resp_decode_frame(b.data + l1, b.len - l1, &r, &n, &used, &e), MS_OK);
    ck_assert_uint_eq(used, b.len - l1);
    ck_assert_int_eq(r[0].is_first_token, 0);
    ck_assert_int_eq(memcmp(r[0].data, &pl, 4), 0);
    free(r);
    /* not a response at all: an error at once, not "more" */
    ck_assert_int_eq(ms_net_resp_decode_frame((const uint8_t *)"HTTP", 4, &r, &n, &used, &e), MS_EINPUT);
    ck_assert_int_eq(ms_net_resp_decode_frame((const uint8_t *)"garbage garbage", 15, &r, &n, &used, &e), MS_EINPUT);
    ms_net_buf_free(&b);
    ms_net_buf_free(&f2);
}
END_TEST

/* A request of two frames (two queries): decoded one at a time. */
/* frames appended to a stream with their count set afterwards (the node's answer, closed at a
 * size) decode like frames made by ms_net_resp_begin */
START_TEST(response_frames_opened_and_closed)
{
    ms_net_buf b = {0};
    size_t h1, h2;
    ms_net_result r1 = {.id = 1, .n_tokens = 0, .data = (const uint8_t *)"ab", .size = 2};
    ms_net_result r2 = {.id = 2, .n_tokens = 3, .data = (const uint8_t *)"c", .size = 1};
    ck_assert_int_eq(ms_net_resp_open(&b, &h1), 0);
    ck_assert_uint_eq(h1, 0);
    ck_assert_int_eq(ms_net_resp_add(&b, &r1), 0);
    ck_assert_int_eq(ms_net_resp_add(&b, &r2), 0);
    ms_net_resp_close(&b, h1, 2);
    ck_assert_int_eq(ms_net_resp_open(&b, &h2), 0);
    ck_assert_uint_eq(h2, 8 + 23 + 22);
    ck_assert_int_eq(ms_net_resp_add(&b, &r1), 0);
    ms_net_resp_close(&b, h2, 1);
    ms_net_result *r;
    size_t n, used;
    ms_err e;
    ck_assert_int_eq(ms_net_resp_decode_frame(b.data, b.len, &r, &n, &used, &e), MS_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(used, h2);
    ck_assert_uint_eq(r[1].id, 2);
    ck_assert_int_eq(r[1].n_tokens, 3);
    free(r);
    ck_assert_int_eq(ms_net_resp_decode(b.data + h2, b.len - h2, &r, &n, &e), MS_OK);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(memcmp(r[0].data, "ab", 2), 0);
    free(r);
    /* a frame still open says 0 records: the bytes after its header are not a frame */
    ck_assert_int_eq(ms_net_resp_open(&b, &h1), 0);
    ck_assert_int_eq(ms_net_resp_add(&b, &r2), 0);
    ck_assert_int_eq(ms_net_resp_decode(b.data + h1, b.len - h1, &r, &n, &e), MS_EINPUT);
    free(r);
    ms_net_buf_free(&b);
}
END_TEST

START_TEST(request_frames_back_to_back)
{
    ms_net_buf b = {0}, f2 = {0};
    ck_assert_int_eq(ms_net_req_begin(&b, 1), 0);
    ck_assert_int_eq(ms_net_req_add(&b, 1, 10, "abcd", 4), 0);
    ck_assert_int_eq(ms_net_req_begin(&f2, 2), 0);
    ck_assert_int_eq(ms_net_req_add(&f2, 2, 20, NULL, 0), 0);
    ck_assert_int_eq(ms_net_req_add(&f2, 3, 30, NULL, 0), 0);
    size_t l1 = b.len;
    ck_assert_int_eq(ms_net_buf_put(&b, f2.data, f2.len), 0);
    ms_net_sample *s;
    size_t n, used;
    ms_err e;
    ck_assert_int_eq(ms_net_req_decode_frame(b.data, b.len, &s, &n, &used, &e), MS_OK);
    ck_assert_uint_eq(used, l1);
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_eq(s[0].size, 4);
    ck_assert_int_eq(memcmp(s[0].data, "abcd", 4), 0);
    free(s);
    ck_assert_int_eq(ms_net_req_decode_frame(b.data + used, b.len - used, &s, &n, &used, &e), MS_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(s[1].index, 30);
    free(s);
    /* the whole-body decoder wants exactly one frame */
    ck_assert_int_eq(ms_net_req_decode(b.data, b.len, &s, &n, &e), MS_EINPUT);
    ck_assert_ptr_nonnull(strstr(e.msg, "after the last sample"));
    ms_net_buf_free(&b);
    ms_net_buf_free(&f2);
}
END_TEST

typedef struct got {
    int n_done, n_first;
    uintptr_t ids[8];
    uint32_t payload[8];
} got;

static void sink_cb(void *ctx, int first_token, lg_response *r, size_t n)
{
    got *g = ctx;
    for (size_t i = 0; i < n; i++) {
        if (first_token) {
            g->n_first++;
            continue;
        }
        g->ids[g->n_done] = r[i].id;
        memcpy(&g->payload[g->n_done], (const void *)r[i].data, 4);
        g->n_done++;
    }
}

START_TEST(sink_serves_a_sut_without_a_run)
{
    ms_err e;
    ck_assert_ptr_null(lg_sink_new(NULL, NULL, &e));
    got g = {0};
    lg_test *sink = lg_sink_new(sink_cb, &g, &e);
    ck_assert_ptr_nonnull(sink);
    lg_test_settings s;
    lg_settings_default(&s);
    lg_sut_env env = {&s, "data", 100, 100};
    lg_sut_instance *si = lg_sut_create("null:tokens=3", &env, &e);
    ck_assert_ptr_nonnull(si);
    const lg_sut *sut = lg_sut_instance_sut(si);
    lg_query_sample q[3] = {{11, 4}, {12, 7}, {13, 99}};
    sut->issue_query(sut->ctx, sink, q, 3);
    ck_assert_int_eq(g.n_done, 3);
    ck_assert_int_eq(g.n_first, 3);
    ck_assert_uint_eq(g.ids[1], 12);
    ck_assert_uint_eq(g.payload[2], 99);
    lg_sut_destroy(si);
    lg_sink_free(sink);
}
END_TEST

static Suite *net_suite(void)
{
    Suite *s = suite_create("net");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, request_round_trip_and_errors);
    tcase_add_test(tc, response_round_trip_and_errors);
    tcase_add_test(tc, response_stream_frames);
    tcase_add_test(tc, response_frames_opened_and_closed);
    tcase_add_test(tc, request_frames_back_to_back);
    tcase_add_test(tc, sink_serves_a_sut_without_a_run);
    suite_add_tcase(s, tc);
    return s;
}

MS_TEST_MAIN(net_suite)
