/* The run supervisor (lg_supervised_fork, loadgen.h): the test runs in a child process that
 * hands its log files' descriptors (unnamed until the test ends) to the parent over a
 * SOCK_SEQPACKET socket (SCM_RIGHTS); if the child dies (a crashing SUT, a kill, an exit() inside
 * the SUT) the parent finishes the logs written so far with an "incomplete" marker
 * (lg_logs_finish_incomplete) and links them into place. Used by `loadgen run`. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loadgen/loadgen.h"

/* The child's pid, for forwarding SIGTERM/SIGHUP from the signal handler: a signal handler can
 * only reach it through a static (the one piece of process-wide state here; one supervised run
 * per process at a time). */
static volatile sig_atomic_t supervised_child;

static void forward_signal(int sig)
{
    if (supervised_child > 0)
        kill((pid_t)supervised_child, sig);
}

/* Child side: hands a duplicate of each log file's descriptor (the files are unnamed until the
 * test ends) and its final path to the supervisor over a SOCK_SEQPACKET socket. */
void lg_supervised_log_file(void *ctx, int fd, const char *final_path)
{
    int sock = *(int *)ctx;
    char cbuf[CMSG_SPACE(sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct iovec iov = {(void *)final_path, strlen(final_path) + 1};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof cbuf;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    (void)sendmsg(sock, &msg, MSG_NOSIGNAL);
}

static int supervise(pid_t child, int sock, void (*msgf)(void *ctx, const char *msg), void *mctx)
{
    supervised_child = child;
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN; /* Ctrl-C reaches the child through the terminal */
    sigaction(SIGINT, &sa, &old_int);
    sa.sa_handler = forward_signal;
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    enum { MAXF = 16 };
    int fds[MAXF];
    char *fin[MAXF] = {0};
    int nf = 0;
    for (;;) {
        char path[4200];
        char cbuf[CMSG_SPACE(sizeof(int))];
        struct iovec iov = {path, sizeof path - 1};
        struct msghdr msg = {0};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf;
        msg.msg_controllen = sizeof cbuf;
        ssize_t r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break; /* the child closed its end: it ended */
        path[r] = '\0';
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        if (!cm || cm->cmsg_type != SCM_RIGHTS)
            continue;
        int fd;
        memcpy(&fd, CMSG_DATA(cm), sizeof fd);
        if (nf < MAXF && (fin[nf] = strdup(path))) {
            fds[nf++] = fd;
        } else {
            close(fd);
        }
    }
    close(sock);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    supervised_child = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    /* A log the child committed has a name (a link count); one still unnamed means the child
     * ended in the middle of the test (killed, crashed, or an exit() inside the SUT). */
    int unfinished = 0;
    for (int i = 0; i < nf; i++) {
        struct stat st;
        if (fstat(fds[i], &st) == 0 && st.st_nlink == 0)
            unfinished = 1;
    }
    int rc;
    if (WIFEXITED(status) && !unfinished) {
        rc = WEXITSTATUS(status);
    } else {
        char reason[200];
        if (WIFSIGNALED(status))
            snprintf(reason, sizeof reason, "the process running the SUT died with signal %d (%s)",
                     WTERMSIG(status), strsignal(WTERMSIG(status)));
        else
            snprintf(reason, sizeof reason,
                     "the process running the SUT exited with status %d before the test ended",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        msgf(mctx, reason);
        int finished = 0;
        for (int i = 0; i < nf; i++) {
            struct stat st;
            if (fstat(fds[i], &st) != 0 || st.st_nlink != 0)
                continue; /* already in place */
            ms_err e;
            if (lg_logs_finish_incomplete(fds[i], fin[i], reason, &e) == MS_OK)
                finished++;
            else
                msgf(mctx, e.msg);
        }
        if (finished)
            msgf(mctx, "the logs written so far are in place and marked incomplete");
        rc = MS_ERUNTIME;
    }
    for (int i = 0; i < nf; i++) {
        close(fds[i]);
        free(fin[i]);
    }
    return rc;
}

int lg_supervised_fork(int *log_sock, int *exit_code, void (*msg)(void *ctx, const char *msg), void *ctx)
{
    *log_sock = -1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return 0;
    pid_t parent = getpid();
    pid_t child = fork();
    if (child > 0) {
        close(sv[1]);
        *exit_code = supervise(child, sv[0], msg, ctx);
        return 1;
    }
    close(sv[0]);
    if (child < 0) {
        close(sv[1]); /* no fork: run here, unsupervised */
        return 0;
    }
    *log_sock = sv[1];
    /* the test ends with its supervisor (its unnamed logs vanish with it) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(MS_ERUNTIME);
    return 0;
}
