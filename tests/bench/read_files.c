/* Baseline for bench_check.sh and bench_dataset.sh: reads every file named in a list (one path
 * a line) with N threads, each taking whole files from a shared cursor and reading them with
 * read() into its own 256 KiB buffer, and prints the bytes read. This is the floor of any
 * program that must read those files: `mlsubmit check` is measured against it, and
 * `dataset manifest` against it plus SHA-256 alone.
 *
 *   read_files LIST [THREADS]   (THREADS default: the CPUs this process may use) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char **paths;
static size_t npaths;
static atomic_size_t next;
static atomic_ullong total;

static void *worker(void *arg)
{
    (void)arg;
    char *buf = malloc(256 * 1024);
    if (!buf)
        return NULL;
    unsigned long long mine = 0;
    for (;;) {
        size_t i = atomic_fetch_add(&next, 1);
        if (i >= npaths)
            break;
        int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r;
        while ((r = read(fd, buf, 256 * 1024)) > 0)
            mine += (unsigned long long)r;
        close(fd);
    }
    atomic_fetch_add(&total, mine);
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: read_files LIST [THREADS]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    ssize_t n;
    while ((n = getline(&line, &lcap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        if (!n)
            continue;
        if (npaths == cap) {
            cap = cap ? cap * 2 : 1024;
            char **np = realloc(paths, cap * sizeof *np);
            if (!np)
                return 1;
            paths = np;
        }
        if (!(paths[npaths++] = strdup(line)))
            return 1;
    }
    free(line);
    fclose(f);
    int threads = argc > 2 ? atoi(argv[2]) : 0;
    if (threads <= 0) {
        cpu_set_t set;
        threads = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    }
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!t)
        return 1;
    for (int i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, NULL))
            return 1;
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    printf("%llu\n", (unsigned long long)total);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    free(t);
    return 0;
}
