// Implementations of CAccessoryShims.h. Each function is a direct call with no policy:
// errno handling, retries and ownership live in the Swift SystemCalls module.
#define _GNU_SOURCE
#include "CAccessoryShims.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <asm/termbits.h>
#include <asm/ioctls.h>
#include <stddef.h>
#include <pthread.h>
#include <linux/netlink.h>
#include <linux/serial.h>
#include <sys/syscall.h>

int cas_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

int cas_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int maxevents, int timeout_ms) {
    // A small stack batch keeps this allocation-free; callers ask for at most 256.
    struct epoll_event evs[256];
    if (maxevents > 256) maxevents = 256;
    // Made directly (epoll_pwait with no mask: every architecture has it), as cas_read says why.
    int n = (int)syscall(SYS_epoll_pwait, epfd, evs, maxevents, timeout_ms, NULL, (size_t)8);
    for (int i = 0; i < n; i++) {
        events[i] = evs[i].events;
        data[i] = evs[i].data.u64;
    }
    return n;
}

int cas_timerfd_settime_abs(int fd, uint64_t deadline_ns) {
    struct itimerspec its;
    memset(&its, 0, sizeof(its));
    if (deadline_ns == 0) deadline_ns = 1;  // 0 would disarm; 1 ns is "already due".
    its.it_value.tv_sec = (time_t)(deadline_ns / 1000000000ull);
    its.it_value.tv_nsec = (long)(deadline_ns % 1000000000ull);
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int cas_timerfd_disarm(int fd) {
    struct itimerspec its;
    memset(&its, 0, sizeof(its));
    return timerfd_settime(fd, 0, &its, NULL);
}

uint64_t cas_monotonic_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fill_set(sigset_t *set, const int *signals, int count) {
    sigemptyset(set);
    for (int i = 0; i < count; i++) sigaddset(set, signals[i]);
}

int cas_signalfd(int fd, const int *signals, int count, int flags) {
    sigset_t set;
    fill_set(&set, signals, count);
    return signalfd(fd, &set, flags);
}

int cas_sigprocmask_block(const int *signals, int count) {
    sigset_t set;
    fill_set(&set, signals, count);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int cas_sigprocmask_unblock(const int *signals, int count) {
    sigset_t set;
    fill_set(&set, signals, count);
    return pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int cas_accept4(int fd, int flags) { return accept4(fd, NULL, NULL, flags); }
int cas_set_thread_name(const char *name) {
    char buf[16];
    strncpy(buf, name, 15);
    buf[15] = 0;
    return pthread_setname_np(pthread_self(), buf);
}
int cas_thread_join_until(pthread_t thread, uint64_t deadline_ns) {
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / 1000000000ull);
    ts.tv_nsec = (long)(deadline_ns % 1000000000ull);
    return pthread_clockjoin_np(thread, NULL, CLOCK_MONOTONIC, &ts);
}
int cas_thread_try_join(pthread_t thread) { return pthread_tryjoin_np(thread, NULL); }
int cas_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }
int cas_flock(int fd, int op) { return flock(fd, op); }
int cas_eventfd(unsigned int initval, int flags) { return eventfd(initval, flags); }

// MARK: - termios2

_Static_assert(sizeof(cas_termios) == sizeof(struct termios2), "cas_termios must mirror struct termios2");
_Static_assert(offsetof(cas_termios, c_ispeed) == offsetof(struct termios2, c_ispeed), "layout");

int cas_tcgets2(int fd, cas_termios *t) { return ioctl(fd, TCGETS2, (struct termios2 *)t); }
int cas_tcsets2(int fd, const cas_termios *t) { return ioctl(fd, TCSETS2, (const struct termios2 *)t); }
int cas_tcsetsw2(int fd, const cas_termios *t) { return ioctl(fd, TCSETSW2, (const struct termios2 *)t); }

const uint32_t CAS_CBAUD = CBAUD;
const uint32_t CAS_BOTHER = BOTHER;
const uint32_t CAS_CBAUDEX = CBAUDEX;
const uint32_t CAS_CMSPAR = CMSPAR;
const uint32_t CAS_CRTSCTS = CRTSCTS;
const uint32_t CAS_CIBAUD = CIBAUD;
const int CAS_VMIN = VMIN;
const int CAS_VTIME = VTIME;

int cas_ioctl_int(int fd, unsigned long request, int *value) { return ioctl(fd, request, value); }
int cas_ioctl_none(int fd, unsigned long request) { return ioctl(fd, request); }
int cas_ioctl_arg(int fd, unsigned long request, unsigned long arg) { return ioctl(fd, request, arg); }

const unsigned long CAS_TIOCEXCL = TIOCEXCL;
const unsigned long CAS_TIOCNXCL = TIOCNXCL;
const unsigned long CAS_TIOCGEXCL = TIOCGEXCL;
const unsigned long CAS_TIOCMGET = TIOCMGET;
const unsigned long CAS_TIOCMSET = TIOCMSET;
const unsigned long CAS_TIOCMBIS = TIOCMBIS;
const unsigned long CAS_TIOCMBIC = TIOCMBIC;
const unsigned long CAS_TIOCSBRK = TIOCSBRK;
const unsigned long CAS_TIOCCBRK = TIOCCBRK;
const unsigned long CAS_TCSBRK = TCSBRK;
const unsigned long CAS_TCFLSH = TCFLSH;
const unsigned long CAS_FIONREAD = FIONREAD;
const unsigned long CAS_TIOCOUTQ = TIOCOUTQ;
const unsigned long CAS_TIOCSERGETLSR = TIOCSERGETLSR;
const int CAS_TIOCSER_TEMT = TIOCSER_TEMT;

int cas_tiocgicount(int fd, cas_icount *out) {
    struct serial_icounter_struct counts;
    memset(&counts, 0, sizeof counts);
    int rc = ioctl(fd, TIOCGICOUNT, &counts);
    if (rc == 0) {
        out->rx = counts.rx;
        out->frame = counts.frame;
        out->parity = counts.parity;
        out->overrun = counts.overrun;
        out->buf_overrun = counts.buf_overrun;
        out->brk = counts.brk;
    }
    return rc;
}
const int CAS_TIOCM_DTR = TIOCM_DTR;
const int CAS_TIOCM_RTS = TIOCM_RTS;
const int CAS_TIOCM_CTS = TIOCM_CTS;
const int CAS_TIOCM_DSR = TIOCM_DSR;
const int CAS_TIOCM_CD = TIOCM_CD;
const int CAS_TIOCM_RI = TIOCM_RI;

// MARK: - ptys

int cas_ptsname(int fd, char *name, size_t namelen) {
    int rc = ptsname_r(fd, name, namelen);
    if (rc != 0) { errno = rc; return -1; }
    return 0;
}

int cas_openpt(int flags, char *name, size_t namelen) {
    int fd = posix_openpt(flags);
    if (fd < 0) return -1;
    if (grantpt(fd) != 0 || unlockpt(fd) != 0 || ptsname_r(fd, name, namelen) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

// MARK: - sockets

int cas_connect_rfcomm(int fd, const uint8_t bdaddr[6], uint8_t channel) {
    cas_sockaddr_rc addr;
    memset(&addr, 0, sizeof(addr));
    addr.rc_family = (uint16_t)CAS_AF_BLUETOOTH;
    memcpy(addr.rc_bdaddr, bdaddr, 6);
    addr.rc_channel = channel;
    return connect(fd, (struct sockaddr *)&addr, sizeof(addr));
}

// Fills a sockaddr_un; an abstract name gets a leading NUL and an exact length.
static int make_unix_addr(struct sockaddr_un *addr, socklen_t *len, const char *path, int abstract) {
    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    size_t n = strlen(path);
    if (abstract) {
        if (n + 1 > sizeof(addr->sun_path)) { errno = ENAMETOOLONG; return -1; }
        memcpy(addr->sun_path + 1, path, n);
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    } else {
        if (n + 1 > sizeof(addr->sun_path)) { errno = ENAMETOOLONG; return -1; }
        memcpy(addr->sun_path, path, n + 1);
        *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    }
    return 0;
}

int cas_bind_unix(int fd, const char *path, int abstract) {
    struct sockaddr_un addr; socklen_t len;
    if (make_unix_addr(&addr, &len, path, abstract) != 0) return -1;
    return bind(fd, (struct sockaddr *)&addr, len);
}

int cas_connect_unix(int fd, const char *path, int abstract) {
    struct sockaddr_un addr; socklen_t len;
    if (make_unix_addr(&addr, &len, path, abstract) != 0) return -1;
    return connect(fd, (struct sockaddr *)&addr, len);
}

ssize_t cas_sendto_unix(int fd, const void *buf, size_t len, const char *path, int abstract) {
    struct sockaddr_un addr; socklen_t alen;
    if (make_unix_addr(&addr, &alen, path, abstract) != 0) return -1;
    return sendto(fd, buf, len, MSG_NOSIGNAL, (struct sockaddr *)&addr, alen);
}

int cas_peercred(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid; *uid = cred.uid; *gid = cred.gid;
    return 0;
}

int cas_so_error(int fd, int *error) {
    socklen_t len = sizeof(*error);
    return getsockopt(fd, SOL_SOCKET, SO_ERROR, error, &len);
}

int cas_set_int_sockopt(int fd, int level, int name, int value) {
    return setsockopt(fd, level, name, &value, sizeof(value));
}

ssize_t cas_sendto_unix_with_fds(int fd, const void *buf, size_t len, const char *path, int abstract,
                                 const int *fds, int nfds) {
    if (nfds < 1 || nfds > 16) { errno = EINVAL; return -1; }
    struct sockaddr_un addr; socklen_t alen;
    if (make_unix_addr(&addr, &alen, path, abstract) != 0) return -1;
    struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
    union { struct cmsghdr align; char bytes[CMSG_SPACE(sizeof(int) * 16)]; } control;
    memset(&control, 0, sizeof(control));
    struct msghdr msg = { 0 };
    msg.msg_name = &addr;
    msg.msg_namelen = alen;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfds);
    return sendmsg(fd, &msg, MSG_NOSIGNAL);
}

ssize_t cas_recv_with_fds(int fd, void *buf, size_t len, int *fds, int max_fds, int *nfds, pid_t *pid, uid_t *uid) {
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(sizeof(int) * 253) + CMSG_SPACE(sizeof(struct ucred))];
    } control;
    struct msghdr msg = { 0 };
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof(control.bytes);
    *nfds = 0;
    *pid = -1;
    *uid = (uid_t)-1;
    ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0) return n;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS
            && c->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
            struct ucred cred;
            memcpy(&cred, CMSG_DATA(c), sizeof(cred));
            *pid = cred.pid;
            *uid = cred.uid;
            continue;
        }
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int *passed = (int *)CMSG_DATA(c);
        for (size_t i = 0; i < count; i++) {
            if (*nfds < max_fds) fds[(*nfds)++] = passed[i]; else close(passed[i]);
        }
    }
    return n;
}

ssize_t cas_send_nosignal(int fd, const void *buf, size_t len) {
    return syscall(SYS_sendto, fd, buf, len, MSG_NOSIGNAL, NULL, 0);
}

// read(2) and write(2) made directly. glibc's wrappers are cancellation points: in a process
// with threads each call turns asynchronous cancellation on and off around the system call,
// about 30 instructions, six times a request. Nothing here uses thread cancellation.
ssize_t cas_read(int fd, void *buf, size_t len) {
    return syscall(SYS_read, fd, buf, len);
}

ssize_t cas_write(int fd, const void *buf, size_t len) {
    return syscall(SYS_write, fd, buf, len);
}

ssize_t cas_recv_with_credentials(int fd, void *buf, size_t len, pid_t *pid, uid_t *uid) {
    // The same receive, keeping no descriptor (any sent along are closed).
    int none = 0;
    return cas_recv_with_fds(fd, buf, len, NULL, 0, &none, pid, uid);
}

// MARK: - child processes

#include <spawn.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <sys/wait.h>

extern char **environ;

pid_t cas_spawn(const char *path, char *const argv[], int stdout_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    if (posix_spawn_file_actions_init(&actions) != 0) return -1;
    if (posix_spawnattr_init(&attr) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return -1;
    }
    if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGHUP);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int rc = posix_spawn(&pid, path, &actions, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return pid;
}

// Fork with a close-on-exec "report" pipe: an exec failure reaches the parent as the errno the
// child writes to it (nothing read means exec succeeded). Returns the pid (0 in the child), or
// -1 with errno set.
static pid_t fork_with_report(int report[2]) {
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(report[0]);
        close(report[1]);
        errno = saved;
    }
    return pid;
}

// In the child, unless `err` already says what failed: the `defaults` signals back to their
// default action, the `ignored` ones ignored, no signal blocked, then exec. Whatever failed is
// reported to the parent. Async-signal-safe calls only: the parent may have other threads.
static void exec_or_report(const char *path, char *const argv[], int report_fd, int err,
                           const int *defaults, unsigned defaults_count,
                           const int *ignored, unsigned ignored_count) {
    if (err == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_handler = SIG_DFL;
        for (unsigned i = 0; i < defaults_count; i++) sigaction(defaults[i], &action, NULL);
        action.sa_handler = SIG_IGN;
        for (unsigned i = 0; i < ignored_count; i++) sigaction(ignored[i], &action, NULL);
        sigset_t empty;
        sigemptyset(&empty);
        sigprocmask(SIG_SETMASK, &empty, NULL);
        execve(path, argv, environ);
        err = errno;
    }
    ssize_t unused = write(report_fd, &err, sizeof(err));
    (void)unused;
    _exit(127);
}

// In the parent: reads the child's exec report. On a failed exec the child is reaped and -1
// returned with the child's errno; otherwise the pid.
static pid_t await_exec_report(int report[2], pid_t pid) {
    close(report[1]);
    int child_errno = 0;
    ssize_t n;
    do {
        n = read(report[0], &child_errno, sizeof(child_errno));
    } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof(child_errno)) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        errno = child_errno;
        return -1;
    }
    return pid;
}

#define COUNT(array) ((unsigned)(sizeof(array) / sizeof((array)[0])))

// A child that dies with the thread that started it. posix_spawn cannot run prctl in the child,
// so this forks. The parent-death signal is set first, then the parent is checked to still be
// the one that forked: had it died in between, the child was already reparented and no signal
// would ever come.
pid_t cas_spawn_tied(const char *path, char *const argv[], int stdout_fd, int death_signal) {
    int report[2];
    pid_t parent = getpid();
    pid_t pid = fork_with_report(report);
    if (pid < 0) return -1;
    if (pid == 0) {
        int err = 0;
        if (prctl(PR_SET_PDEATHSIG, death_signal) != 0) err = errno;
        else if (getppid() != parent) _exit(127);
        if (err == 0 && stdout_fd >= 0 && dup2(stdout_fd, 1) < 0) err = errno;
        static const int defaults[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD};
        exec_or_report(path, argv, report[1], err, defaults, COUNT(defaults), NULL, 0);
    }
    return await_exec_report(report, pid);
}

// A child on the given descriptors, ignoring SIGINT and SIGQUIT (the header says why).
pid_t cas_spawn_piped(const char *path, char *const argv[], int in_fd, int out_fd, int err_fd) {
    int report[2];
    pid_t pid = fork_with_report(report);
    if (pid < 0) return -1;
    if (pid == 0) {
        int err = 0;
        if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) err = errno;
        static const int defaults[] = {SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};
        static const int ignored[] = {SIGINT, SIGQUIT};
        exec_or_report(path, argv, report[1], err, defaults, COUNT(defaults), ignored, COUNT(ignored));
    }
    return await_exec_report(report, pid);
}

pid_t cas_wait_child(pid_t pid, int nohang, int *exit_code, int *term_signal) {
    int status = 0;
    pid_t r = waitpid(pid, &status, nohang ? WNOHANG : 0);
    if (r <= 0) return r;
    *exit_code = -1;
    *term_signal = 0;
    if (WIFEXITED(status)) *exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) *term_signal = WTERMSIG(status);
    return r;
}

const int CAS_NETLINK_KOBJECT_UEVENT = NETLINK_KOBJECT_UEVENT;

int cas_bind_netlink(int fd, uint32_t groups) {
    struct sockaddr_nl addr;
    memset(&addr, 0, sizeof(addr));
    addr.nl_family = AF_NETLINK;
    addr.nl_groups = groups;
    return bind(fd, (struct sockaddr *)&addr, sizeof(addr));
}

ssize_t cas_sendto_netlink(int fd, const void *buf, size_t len, uint32_t groups) {
    struct sockaddr_nl addr;
    memset(&addr, 0, sizeof(addr));
    addr.nl_family = AF_NETLINK;
    addr.nl_groups = groups;
    return sendto(fd, buf, len, 0, (struct sockaddr *)&addr, sizeof(addr));
}
