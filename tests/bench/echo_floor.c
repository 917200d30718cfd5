/* The floor of a query over loopback on this machine, for bench_network.sh: no HTTP, no libcurl,
 * no libmicrohttpd, no SUT. An issuing thread sends a 4-byte query at Poisson arrival times (the
 * LoadGen's Server schedule; it waits as the LoadGen does, sleeping until 50 us before the
 * query's time and spinning the rest), an echo server in another process answers from a thread
 * blocked in recv, and a receiving thread blocked in recv takes the answer: the two thread
 * wake-ups and the two loopback TCP trips that any networked SUT costs, nothing else.
 * Usage: echo_floor QPS N [low-latency] (N queries at QPS; low-latency: hold a CPU wake-up
 * latency request of 0 on /dev/cpu_dma_latency meanwhile, as mlsubmit's --low-latency does).
 * Prints "p50 p99 p50 p99": nanoseconds from each query's scheduled time to its answer, then
 * from its send to its answer (after the issue). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* waits for t as the LoadGen's issuing thread does (src/loadgen/run.c): asleep until 50 us
 * before, when more than 80 us away, then spinning */
static void wait_for(int64_t t)
{
    int64_t wake = t - 50000;
    struct timespec ts = {wake / 1000000000, wake % 1000000000};
    if (t - now_ns() > 80000)
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    while (now_ns() < t)
        __asm__ __volatile__("pause");
}

typedef struct run {
    int fd;
    size_t n;
    int64_t *got; /* answer time per query */
} run;

static void *receiver(void *arg)
{
    run *r = arg;
    unsigned char b[4096];
    size_t have = 0, k = 0;
    while (k < r->n) {
        ssize_t m = recv(r->fd, b + have, sizeof b - have, 0);
        if (m <= 0)
            break;
        have += (size_t)m;
        int64_t t = now_ns();
        size_t off = 0;
        for (; have - off >= 4; off += 4, k++) {
            uint32_t id;
            memcpy(&id, b + off, 4);
            if (id < r->n)
                r->got[id] = t;
        }
        memmove(b, b + off, have - off);
        have -= off;
    }
    return NULL;
}

static void echo(int l)
{
    int c = accept(l, NULL, NULL), one = 1;
    if (c < 0)
        _exit(1);
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    unsigned char b[4096];
    ssize_t m;
    while ((m = recv(c, b, sizeof b, 0)) > 0)
        if (send(c, b, (size_t)m, 0) != m)
            break;
    _exit(0);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    double qps = argc > 1 ? atof(argv[1]) : 10000;
    size_t n = argc > 2 ? (size_t)atol(argv[2]) : 20000;
    if (qps <= 0 || n == 0 || n > 10000000) {
        fprintf(stderr, "usage: echo_floor QPS N [low-latency]\n");
        return 2;
    }
    if (argc > 3 && !strcmp(argv[3], "low-latency")) {
        /* held until the process exits (the forked server shares the descriptor) */
        int q = open("/dev/cpu_dma_latency", O_WRONLY), zero = 0;
        if (q < 0 || write(q, &zero, sizeof zero) != (ssize_t)sizeof zero)
            fprintf(stderr, "echo_floor: /dev/cpu_dma_latency: %s; measuring without it\n", strerror(errno));
    }
    int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    socklen_t al = sizeof a;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 ||
        getsockname(l, (struct sockaddr *)&a, &al) != 0) {
        perror("echo_floor: listen");
        return 1;
    }
    pid_t srv = fork();
    if (srv < 0) {
        perror("echo_floor: fork");
        return 1;
    }
    if (srv == 0)
        echo(l);
    close(l);
    run r = {socket(AF_INET, SOCK_STREAM, 0), n, calloc(n, sizeof(int64_t))};
    int64_t *sched = calloc(n, sizeof *sched), *sent = calloc(n, sizeof *sent), *lat = calloc(n, sizeof *lat);
    pthread_t th;
    if (r.fd < 0 || !r.got || !sched || !sent || !lat ||
        setsockopt(r.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
        connect(r.fd, (struct sockaddr *)&a, sizeof a) != 0 || pthread_create(&th, NULL, receiver, &r) != 0) {
        perror("echo_floor: client");
        kill(srv, SIGKILL);
        return 1;
    }
    srand48(1);
    int64_t t = now_ns() + 1000000;
    for (size_t i = 0; i < n; i++) {
        t += (int64_t)(-log(1.0 - drand48()) / qps * 1e9);
        sched[i] = t;
        wait_for(t);
        uint32_t id = (uint32_t)i;
        sent[i] = now_ns();
        if (send(r.fd, &id, 4, 0) != 4) {
            perror("echo_floor: send");
            kill(srv, SIGKILL);
            return 1;
        }
    }
    pthread_join(th, NULL);
    shutdown(r.fd, SHUT_RDWR);
    close(r.fd);
    waitpid(srv, NULL, 0);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++)
            lat[i] = r.got[i] ? r.got[i] - (pass ? sent[i] : sched[i]) : INT64_MAX;
        qsort(lat, n, sizeof *lat, cmp_i64);
        printf("%s%lld %lld", pass ? " " : "", (long long)lat[n / 2], (long long)lat[n * 99 / 100]);
    }
    printf("\n");
    free(r.got);
    free(sched);
    free(sent);
    free(lat);
    return 0;
}
