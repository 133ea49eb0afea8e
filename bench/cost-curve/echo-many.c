// echo-many: the accessories of the cost curve, all in one process so that a thousand of them
// cost the machine one epoll loop rather than a thousand programs. It opens N pty pairs, puts
// each line in raw mode, publishes slave i as the symbolic link PREFIX<i>, prints `READY N` once
// every link exists, and then writes back every byte it reads on a master, as it reads it.
//
//   echo-many --count N --link PREFIX [--tick-ms MS]
//
// With --tick-ms it echoes nothing and, every MS milliseconds on an absolute schedule, writes an
// NMEA-shaped GGA sentence on every pty whose first field is the CLOCK_MONOTONIC time in
// nanoseconds: a GPS at 1000/MS Hz whose sentences tell a subscriber how late they reached it.
//
// Each master keeps a slave descriptor open, so it never sees a hang-up while the daemon has
// the slave closed. SIGTERM or SIGINT end it; the links are removed. Single-threaded.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stopRequested = 0;

static void onSignal(int signal) {
    (void)signal;
    stopRequested = 1;
}

static void fail(const char *what) {
    fprintf(stderr, "echo-many: %s: %s\n", what, strerror(errno));
    exit(1);
}

static unsigned long long monotonicNanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

// Opens one pty pair in raw mode; returns the master (non-blocking) and keeps the slave open.
static int openPty(const char *link) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) fail("posix_openpt");
    const char *slavePath = ptsname(master);
    if (slavePath == NULL) fail("ptsname");
    int keeper = open(slavePath, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (keeper < 0) fail("open slave");
    struct termios mode;
    if (tcgetattr(keeper, &mode) != 0) fail("tcgetattr");
    cfmakeraw(&mode);
    if (tcsetattr(keeper, TCSANOW, &mode) != 0) fail("tcsetattr");
    unlink(link);
    if (symlink(slavePath, link) != 0) fail("symlink");
    return master;
}

int main(int argc, char **argv) {
    int count = 1;
    long tickMs = 0;
    const char *prefix = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--count") == 0) count = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--link") == 0) prefix = argv[i + 1];
        else if (strcmp(argv[i], "--tick-ms") == 0) tickMs = atol(argv[i + 1]);
    }
    if (prefix == NULL || count < 1) {
        fprintf(stderr, "usage: echo-many --count N --link PREFIX [--tick-ms MS]\n");
        return 2;
    }
    // Two descriptors a pty: raise the soft limit to the hard one.
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
    signal(SIGTERM, onSignal);
    signal(SIGINT, onSignal);
    signal(SIGPIPE, SIG_IGN);
    int *masters = calloc((size_t)count, sizeof(int));
    char (*links)[256] = calloc((size_t)count, 256);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    if (masters == NULL || links == NULL || epoll < 0) fail("setup");
    for (int i = 0; i < count; i++) {
        snprintf(links[i], 256, "%s%d", prefix, i);
        masters[i] = openPty(links[i]);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (unsigned)i};
        if (epoll_ctl(epoll, EPOLL_CTL_ADD, masters[i], &event) != 0) fail("epoll_ctl");
    }
    printf("READY %d\n", count);
    fflush(stdout);

    unsigned long long period = (unsigned long long)tickMs * 1000000ull;
    unsigned long long nextTick = monotonicNanoseconds() + period;
    struct epoll_event events[256];
    char buffer[4096];
    while (!stopRequested) {
        int timeout = -1;
        if (period > 0) {
            unsigned long long now = monotonicNanoseconds();
            if (now >= nextTick) {
                char sentence[160];
                int length = snprintf(sentence, sizeof sentence,
                                      "$GPGGA,%llu,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n", now);
                for (int i = 0; i < count; i++) (void)write(masters[i], sentence, (size_t)length);
                while (nextTick <= now) nextTick += period;
            }
            timeout = (int)((nextTick - now) / 1000000ull) + 1;
        }
        int ready = epoll_wait(epoll, events, 256, timeout);
        if (ready < 0) {
            if (errno == EINTR) continue;
            fail("epoll_wait");
        }
        for (int e = 0; e < ready; e++) {
            int master = masters[events[e].data.u32];
            ssize_t got = read(master, buffer, sizeof buffer);
            if (got <= 0 || period > 0) continue;  // a tick source discards what it is sent
            ssize_t done = 0;
            while (done < got) {
                ssize_t wrote = write(master, buffer + done, (size_t)(got - done));
                if (wrote < 0) {
                    if (errno == EAGAIN || errno == EINTR) continue;
                    break;
                }
                done += wrote;
            }
        }
    }
    for (int i = 0; i < count; i++) unlink(links[i]);
    return 0;
}
