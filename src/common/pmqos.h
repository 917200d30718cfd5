/* A CPU wake-up latency request (Linux PM QoS), held for as long as a command runs.
 *
 * Between two queries an idle CPU enters an idle state; leaving it delays the thread woken by
 * the next query or response. Under a virtual machine's cpuidle driver (haltpoll) that is a halt
 * and a wake-up through the hypervisor, tens of microseconds, more on a shared host; each query
 * of a network SUT pays it several times (the node's server thread, the LoadGen node's client
 * thread). Writing a maximum latency of 0 to /dev/cpu_dma_latency, and keeping the file open,
 * asks every CPU to stay in states it leaves at once (polling) until the file is closed, by
 * this process or at its exit (the kernel's PM QoS interface: Documentation/power/pm_qos_interface
 * of the Linux sources). Idle CPUs then burn power: `--low-latency` of `loadgen run` and
 * `sut serve` asks for it, nothing else does. Opening the device needs root (or a udev rule). */
#ifndef MS_PMQOS_H
#define MS_PMQOS_H

#include "common/error.h"

typedef struct ms_pmqos {
    int fd; /* -1: no request held */
} ms_pmqos;

#define MS_PMQOS_INIT {-1}

/* Requests a wake-up latency of at most max_us microseconds on every CPU (0: poll) until
 * ms_pmqos_release. MS_OK, or MS_ERUNTIME with e naming the device and why (no such device,
 * not permitted): the caller decides whether to run without it. */
int ms_pmqos_hold(ms_pmqos *q, unsigned max_us, ms_err *e);

/* Drops the request (nothing when none is held). */
void ms_pmqos_release(ms_pmqos *q);

#endif
