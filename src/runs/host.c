/* Host facts for the runs database: CPU model, cores, memory, kernel, CPU governor (where
 * readable: /proc and /sys on Linux; absent facts are left NULL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "runs/internal.h"

/* The value after "key<spaces>:" of the first line starting with key in a /proc file. */
static char *proc_value(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char line[512];
    char *out = NULL;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl))
            continue;
        char *c = strchr(line + kl, ':');
        if (!c)
            continue;
        c++;
        while (*c == ' ' || *c == '\t')
            c++;
        size_t n = strcspn(c, "\n");
        while (n && (c[n - 1] == ' ' || c[n - 1] == '\t'))
            n--;
        out = strndup(c, n);
        break;
    }
    fclose(f);
    return out;
}

static char *first_line(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char line[256];
    char *out = NULL;
    if (fgets(line, sizeof line, f))
        out = strndup(line, strcspn(line, "\n"));
    fclose(f);
    return out;
}

void rn_host_facts(rn_host *h)
{
    memset(h, 0, sizeof *h);
    h->cpu_model = proc_value("/proc/cpuinfo", "model name");
    if (!h->cpu_model) /* arm64 and others */
        h->cpu_model = proc_value("/proc/cpuinfo", "Hardware");
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    h->cores = n > 0 ? n : 0;
    char *mem = proc_value("/proc/meminfo", "MemTotal");
    if (mem) {
        h->memory_bytes = strtoll(mem, NULL, 10) * 1024; /* "16301368 kB" */
        free(mem);
    }
    struct utsname u;
    if (uname(&u) == 0) {
        char buf[sizeof u.sysname + sizeof u.release + sizeof u.machine + 4];
        snprintf(buf, sizeof buf, "%s %s %s", u.sysname, u.release, u.machine);
        h->kernel = strdup(buf);
        h->hostname = strdup(u.nodename);
    }
    h->governor = first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
}

void rn_host_free(rn_host *h)
{
    free(h->cpu_model);
    free(h->kernel);
    free(h->hostname);
    free(h->governor);
    memset(h, 0, sizeof *h);
}
