#include "common/pmqos.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#define PMQOS_DEVICE "/dev/cpu_dma_latency"

int ms_pmqos_hold(ms_pmqos *q, unsigned max_us, ms_err *e)
{
    ms_pmqos_release(q);
    int fd = open(PMQOS_DEVICE, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return ms_err_errno(e, MS_ERUNTIME, errno, "%s: cannot open it to request low CPU wake-up latency",
                            PMQOS_DEVICE);
    /* the device takes the value as a binary 32-bit integer (microseconds) */
    int32_t v = max_us > INT32_MAX ? INT32_MAX : (int32_t)max_us;
    ssize_t w = write(fd, &v, sizeof v);
    if (w != (ssize_t)sizeof v) {
        int er = w < 0 ? errno : EIO;
        close(fd);
        return ms_err_errno(e, MS_ERUNTIME, er, "%s: the latency request was not accepted", PMQOS_DEVICE);
    }
    q->fd = fd;
    return MS_OK;
}

void ms_pmqos_release(ms_pmqos *q)
{
    if (q->fd >= 0)
        close(q->fd);
    q->fd = -1;
}
