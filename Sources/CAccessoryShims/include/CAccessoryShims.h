// CAccessoryShims: the Linux interfaces that Swift's Glibc module does not export.
//
// Everything here is a thin, allocation-free wrapper or a constant. Swift code never calls
// these directly; it goes through the SystemCalls module, which adds errno handling.
#ifndef C_ACCESSORY_SHIMS_H
#define C_ACCESSORY_SHIMS_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/inotify.h>
#include <sys/file.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

// MARK: - epoll / eventfd / timerfd / signalfd

static const uint32_t CAS_EPOLLIN = EPOLLIN;
static const uint32_t CAS_EPOLLOUT = EPOLLOUT;
static const uint32_t CAS_EPOLLERR = EPOLLERR;
static const uint32_t CAS_EPOLLHUP = EPOLLHUP;
static const uint32_t CAS_EPOLLRDHUP = EPOLLRDHUP;
static const int CAS_EPOLL_CLOEXEC = EPOLL_CLOEXEC;
static const int CAS_EFD_CLOEXEC = EFD_CLOEXEC;
static const int CAS_EFD_NONBLOCK = EFD_NONBLOCK;
static const int CAS_TFD_CLOEXEC = TFD_CLOEXEC;
static const int CAS_TFD_NONBLOCK = TFD_NONBLOCK;
static const int CAS_TFD_TIMER_ABSTIME = TFD_TIMER_ABSTIME;
static const int CAS_SFD_CLOEXEC = SFD_CLOEXEC;
static const int CAS_SFD_NONBLOCK = SFD_NONBLOCK;

// epoll_event is packed on x86_64; these accessors keep Swift away from the packing.
int cas_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
int cas_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int maxevents, int timeout_ms);

int cas_timerfd_settime_abs(int fd, uint64_t deadline_ns);
int cas_timerfd_disarm(int fd);
uint64_t cas_monotonic_now_ns(void);

int cas_signalfd(int fd, const int *signals, int count, int flags);
int cas_sigprocmask_block(const int *signals, int count);
int cas_sigprocmask_unblock(const int *signals, int count);

int cas_accept4(int fd, int flags);
int cas_set_thread_name(const char *name);
/// pthread_clockjoin_np on CLOCK_MONOTONIC: 0 once `thread` ended, ETIMEDOUT at `deadline_ns`.
int cas_thread_join_until(pthread_t thread, uint64_t deadline_ns);
/// pthread_tryjoin_np: 0 if the thread had ended (it is joined now), EBUSY if it still runs.
int cas_thread_try_join(pthread_t thread);
int cas_pipe2(int fds[2], int flags);
int cas_flock(int fd, int op);
int cas_eventfd(unsigned int initval, int flags);

// MARK: - termios2 (custom baud rates through BOTHER)

typedef struct cas_termios {
    uint32_t c_iflag;
    uint32_t c_oflag;
    uint32_t c_cflag;
    uint32_t c_lflag;
    uint8_t c_line;
    uint8_t c_cc[19];
    uint32_t c_ispeed;
    uint32_t c_ospeed;
} cas_termios;

int cas_tcgets2(int fd, cas_termios *t);
int cas_tcsets2(int fd, const cas_termios *t);
/// Drain output then apply (TCSETSW2).
int cas_tcsetsw2(int fd, const cas_termios *t);

extern const uint32_t CAS_CBAUD;
extern const uint32_t CAS_BOTHER;
extern const uint32_t CAS_CBAUDEX;
extern const uint32_t CAS_CMSPAR;
extern const uint32_t CAS_CRTSCTS;
/// Input-speed bits of c_cflag (CBAUD << IBSHIFT); zero means "same as output".
extern const uint32_t CAS_CIBAUD;
extern const int CAS_VMIN;
extern const int CAS_VTIME;

// Modem lines and other ioctls.
int cas_ioctl_int(int fd, unsigned long request, int *value);
int cas_ioctl_none(int fd, unsigned long request);
int cas_ioctl_arg(int fd, unsigned long request, unsigned long arg);
extern const unsigned long CAS_TIOCEXCL;
extern const unsigned long CAS_TIOCNXCL;
extern const unsigned long CAS_TIOCGEXCL;
extern const unsigned long CAS_TIOCMGET;
extern const unsigned long CAS_TIOCMSET;
extern const unsigned long CAS_TIOCMBIS;
extern const unsigned long CAS_TIOCMBIC;
extern const unsigned long CAS_TIOCSBRK;
extern const unsigned long CAS_TIOCCBRK;
extern const unsigned long CAS_TCSBRK;
extern const unsigned long CAS_TCFLSH;
extern const unsigned long CAS_FIONREAD;
extern const unsigned long CAS_TIOCOUTQ;
extern const unsigned long CAS_TIOCSERGETLSR;
extern const int CAS_TIOCSER_TEMT;

/// A serial driver's interrupt counters (`TIOCGICOUNT`'s `struct serial_icounter_struct`): the
/// fields read.
typedef struct {
    int rx;
    int frame;
    int parity;
    int overrun;
    int buf_overrun;
    int brk;
} cas_icount;

/// `ioctl(fd, TIOCGICOUNT)`, the counters copied to `out`; -1 with errno on failure.
int cas_tiocgicount(int fd, cas_icount *out);
extern const int CAS_TIOCM_DTR;
extern const int CAS_TIOCM_RTS;
extern const int CAS_TIOCM_CTS;
extern const int CAS_TIOCM_DSR;
extern const int CAS_TIOCM_CD;
extern const int CAS_TIOCM_RI;

// MARK: - pseudo-terminals

/// Opens a new pty master (O_RDWR|O_NOCTTY|O_CLOEXEC|O_NONBLOCK as flags ask), grants and
/// unlocks it, and writes the slave's path into `name`. Returns the master fd or -1 with errno.
int cas_openpt(int flags, char *name, size_t namelen);

// MARK: - sockets

/// RFCOMM address as the kernel wants it (struct sockaddr_rc from <bluetooth/rfcomm.h>,
/// declared here so that libbluetooth-dev is not needed).
typedef struct __attribute__((packed)) cas_sockaddr_rc {
    uint16_t rc_family;
    uint8_t rc_bdaddr[6];
    uint8_t rc_channel;
} cas_sockaddr_rc;

static const int CAS_AF_BLUETOOTH = 31;
static const int CAS_BTPROTO_RFCOMM = 3;
static const int CAS_SOCK_NONBLOCK = SOCK_NONBLOCK;
static const int CAS_SOCK_CLOEXEC = SOCK_CLOEXEC;
static const int CAS_SOCK_STREAM = SOCK_STREAM;
static const int CAS_SOCK_DGRAM = SOCK_DGRAM;

int cas_connect_rfcomm(int fd, const uint8_t bdaddr[6], uint8_t channel);
int cas_bind_unix(int fd, const char *path, int abstract);
int cas_connect_unix(int fd, const char *path, int abstract);
ssize_t cas_sendto_unix(int fd, const void *buf, size_t len, const char *path, int abstract);
/// ptsname_r(): the slave path of the pty master `fd`.
int cas_ptsname(int fd, char *name, size_t namelen);
/// sendmsg() of one datagram to a Unix address with `nfds` (1 ... 16) descriptors attached
/// (SCM_RIGHTS): how a service hands descriptors to systemd's store.
ssize_t cas_sendto_unix_with_fds(int fd, const void *buf, size_t len, const char *path, int abstract,
                                 const int *fds, int nfds);
/// recvmsg() of one datagram, the descriptors attached to it (close-on-exec: at most `max_fds`
/// are kept in `fds`, any more are closed; their count in `*nfds`) and, with SO_PASSCRED, the
/// sender's pid and uid (else `*pid` is -1).
ssize_t cas_recv_with_fds(int fd, void *buf, size_t len, int *fds, int max_fds, int *nfds, pid_t *pid, uid_t *uid);
int cas_peercred(int fd, pid_t *pid, uid_t *uid, gid_t *gid);
int cas_so_error(int fd, int *error);
int cas_set_int_sockopt(int fd, int level, int name, int value);
/// send() with MSG_NOSIGNAL: a peer that went away gives EPIPE, never SIGPIPE.
ssize_t cas_send_nosignal(int fd, const void *buf, size_t len);
/// read(2) and write(2) without glibc's cancellation-point bookkeeping.
ssize_t cas_read(int fd, void *buf, size_t len);
ssize_t cas_write(int fd, const void *buf, size_t len);
/// recvmsg() of one datagram into `buf`; when the socket has SO_PASSCRED and the kernel attached
/// SCM_CREDENTIALS, `*pid` and `*uid` are the sender's, else `*pid` is -1. Returns the byte count
/// (the datagram is truncated to `len`), or -1 with errno.
ssize_t cas_recv_with_credentials(int fd, void *buf, size_t len, pid_t *pid, uid_t *uid);

// MARK: - netlink (uevents: the udev monitor's transport; the test sender of udev messages)

static const int CAS_AF_NETLINK = AF_NETLINK;
static const int CAS_SOCK_RAW = SOCK_RAW;
extern const int CAS_NETLINK_KOBJECT_UEVENT;
/// Binds a netlink socket to a kernel-chosen port id, listening to the groups in `groups`.
int cas_bind_netlink(int fd, uint32_t groups);
/// Sends one datagram to the multicast `groups` of a netlink family (port id 0).
ssize_t cas_sendto_netlink(int fd, const void *buf, size_t len, uint32_t groups);

// MARK: - child processes (tests and tools that start the built executables)

/// Starts `path` with `argv` (NULL-terminated) and the caller's environment. If `stdout_fd` >= 0
/// it becomes the child's standard output. The child gets an empty signal mask and default
/// dispositions for SIGTERM, SIGINT, SIGHUP and SIGPIPE. Returns the pid, or -1 with errno.
pid_t cas_spawn(const char *path, char *const argv[], int stdout_fd);
// As cas_spawn, but the child gets `death_signal` when the thread that started it ends
// (PR_SET_PDEATHSIG, checked against a parent that died first). fork + execve; -1 and errno
// (the child's exec errno included) on failure.
pid_t cas_spawn_tied(const char *path, char *const argv[], int stdout_fd, int death_signal);
// A helper program driven through its standard streams (the client's `ssh`): `in_fd`, `out_fd`
// and `err_fd` (each >= 0) become its 0, 1 and 2; SIGINT and SIGQUIT are ignored in it (a
// terminal's Ctrl-C is for the program that started it, which decides what it means: ssh keeps
// an inherited SIGINT ignored), SIGTERM, SIGHUP, SIGPIPE and SIGCHLD are at their defaults, the
// signal mask is empty. It stays in the caller's process group, so that ssh can still ask for a
// passphrase or a host-key confirmation on the terminal. fork + execve with the caller's
// environment; -1 and errno (the child's exec errno included) on failure.
pid_t cas_spawn_piped(const char *path, char *const argv[], int in_fd, int out_fd, int err_fd);
/// waitpid for one child. Returns the pid when it ended (then exactly one of `exit_code` >= 0 or
/// `term_signal` > 0 is set), 0 when `nohang` and it is still running, -1 with errno.
pid_t cas_wait_child(pid_t pid, int nohang, int *exit_code, int *term_signal);

// MARK: - TCP on loopback, and the owner of its peer's socket (inet.c)

static const int CAS_AF_INET = AF_INET;
static const int CAS_AF_INET6 = AF_INET6;
/// Binds `fd` (AF_INET or AF_INET6, per `family`) to `addr` (4 or 16 bytes, network order) and
/// `port`, with SO_REUSEADDR (a restart may bind while old connections linger in TIME_WAIT) and,
/// for IPv6, IPV6_V6ONLY. 0 or -1 with errno.
int cas_bind_inet(int fd, int family, const uint8_t *addr, uint16_t port);
/// The socket's own (`peer` 0) or its peer's (`peer` 1) address: `*family`, 4 or 16 bytes into
/// `addr` (room for 16), `*port`. 0 or -1 with errno.
int cas_inet_name(int fd, int peer, int *family, uint8_t *addr, uint16_t *port);
/// Connects `fd` to `addr`:`port` (tests). 0 or -1 with errno (EINPROGRESS for a non-blocking
/// socket).
int cas_connect_inet(int fd, int family, const uint8_t *addr, uint16_t port);
static const int CAS_NETLINK_SOCK_DIAG = 4;
/// Writes into `buf` (room for `cap`) the NETLINK_SOCK_DIAG request for the one TCP socket whose
/// local end is `src`:`sport` and remote end `dst`:`dport`. Returns the length, or -1 if `cap`
/// is too small.
int cas_inet_diag_request(uint8_t *buf, size_t cap, int family, const uint8_t *src, uint16_t sport,
                          const uint8_t *dst, uint16_t dport, uint32_t seq);
/// Reads one netlink answer to that request: 1 and `*uid` for the socket's record, 0 for
/// NLMSG_DONE or no record in `buf`, a negative errno for NLMSG_ERROR (ENOENT: no such socket).
int cas_inet_diag_uid(const uint8_t *buf, size_t len, uint32_t seq, uint32_t *uid);

// A mutex on a futex word (0 free, 1 held, 2 held with waiters; the classic three-state lock).
// Uncontended, lock and unlock are one atomic instruction each, where pthread_mutex_lock and
// _unlock cost about 110 instructions through their calls and checks. The atomics are compiled
// here, so ThreadSanitizer (which instruments this file too) sees the acquire and release.
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline void cas_futex_lock(uint32_t *word) {
    uint32_t expected = 0;
    if (__atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
    // Held: mark it contended, and sleep until a release finds it so.
    uint32_t seen = expected == 2 ? 2 : __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    while (seen != 0) {
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        seen = __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE);
    }
}

static inline void cas_futex_unlock(uint32_t *word) {
    if (__atomic_fetch_sub(word, 1, __ATOMIC_RELEASE) != 1) {
        // There may be sleepers: free it and wake one.
        __atomic_store_n(word, 0, __ATOMIC_RELEASE);
        syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

#endif
