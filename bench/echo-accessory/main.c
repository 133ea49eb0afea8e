// echo-accessory: the accessory every target of compare-bench talks to. It opens a pty pair,
// puts the line in raw mode, publishes the slave (optionally as a symbolic link), prints
// `READY <slave path> <CLOCK_MONOTONIC ns>` and then writes back every byte it reads, as it
// reads it: a line comes back as the same line. Blocking read and write on the master, one
// thread, no framing of its own, so it adds as little as a program can to a round trip.
//
//   echo-accessory [--link PATH] [--tick-us N] [--baud N]
//
// With --baud it echoes no faster than a UART at N baud, 8N1 (N / 10 bytes a second, 256 bytes
// at a time, on an absolute schedule): a pty is a hundred times faster than any serial line, and
// this shows what a relay costs where the line, not the relay, sets the pace.
//
// With --tick-us it echoes nothing: it writes `T<CLOCK_MONOTONIC ns>\n` every N microseconds (on
// an absolute schedule), so a subscriber can tell how late the line reached it: how long bytes
// from an accessory wait for the daemon's device loop.
//
// SIGUSR1 is a replug: the old pty is closed (its slave hangs up), a new pty is made, the
// link is flipped to it atomically and a new READY line is printed with the time the new link
// appeared. SIGTERM or SIGINT end it; the link is removed.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t replugRequested = 0;
static volatile sig_atomic_t stopRequested = 0;

static void onSignal(int signal) {
    if (signal == SIGUSR1) {
        replugRequested = 1;
    } else {
        stopRequested = 1;
    }
}

static unsigned long long monotonicNanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

static void fail(const char *what) {
    fprintf(stderr, "echo-accessory: %s: %s\n", what, strerror(errno));
    exit(1);
}

// The pty: the master this program reads and writes, and a slave descriptor it keeps open so
// that the master never sees a hang-up while no client has the slave open.
struct Pty {
    int master;
    int keeper;
    char path[128];
};

static struct Pty openPty(void) {
    struct Pty pty;
    pty.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (pty.master < 0) fail("posix_openpt");
    if (grantpt(pty.master) != 0 || unlockpt(pty.master) != 0) fail("grantpt/unlockpt");
    if (ptsname_r(pty.master, pty.path, sizeof pty.path) != 0) fail("ptsname_r");
    pty.keeper = open(pty.path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (pty.keeper < 0) fail("open slave");
    struct termios settings;
    if (tcgetattr(pty.keeper, &settings) != 0) fail("tcgetattr");
    cfmakeraw(&settings);
    if (tcsetattr(pty.keeper, TCSANOW, &settings) != 0) fail("tcsetattr");
    return pty;
}

// Points `link` at `target` atomically: a temporary link renamed over the old one.
static void publish(const char *link, const char *target) {
    char temporary[4096];
    snprintf(temporary, sizeof temporary, "%s.tmp%d", link, (int)getpid());
    unlink(temporary);
    if (symlink(target, temporary) != 0) fail("symlink");
    if (rename(temporary, link) != 0) fail("rename");
}

// The time is taken just before the link appears (the rename), so "link appeared → ready" is
// never under-counted, whoever runs first afterwards.
static void announce(const struct Pty *pty, const char *link) {
    unsigned long long appearing = monotonicNanoseconds();
    if (link != NULL) publish(link, pty->path);
    printf("READY %s %llu\n", link != NULL ? link : pty->path, appearing);
    fflush(stdout);
}

// Writes all of `count` bytes; false when the pty went away or a signal asks for attention.
static int writeAll(int fd, const char *bytes, ssize_t count) {
    while (count > 0) {
        ssize_t written = write(fd, bytes, (size_t)count);
        if (written < 0) {
            if (errno == EINTR && !stopRequested && !replugRequested) continue;
            return 0;
        }
        bytes += written;
        count -= written;
    }
    return 1;
}

int main(int argc, char **argv) {
    const char *link = NULL;
    long tickMicroseconds = 0;
    long baud = 0;
    for (int index = 1; index < argc; index++) {
        if (strcmp(argv[index], "--link") == 0 && index + 1 < argc) {
            link = argv[++index];
        } else if (strcmp(argv[index], "--tick-us") == 0 && index + 1 < argc) {
            tickMicroseconds = strtol(argv[++index], NULL, 10);
            if (tickMicroseconds <= 0) tickMicroseconds = 1000;
        } else if (strcmp(argv[index], "--baud") == 0 && index + 1 < argc) {
            baud = strtol(argv[++index], NULL, 10);
            if (baud < 10) baud = 10;
        } else {
            fprintf(stderr, "usage: echo-accessory [--link PATH] [--tick-us N] [--baud N]\n");
            return 64;
        }
    }
    // No SA_RESTART: a blocked read returns EINTR so that the loop sees the request.
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGUSR1, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct Pty pty = openPty();
    announce(&pty, link);
    if (tickMicroseconds > 0) {
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        while (!stopRequested) {
            next.tv_nsec += tickMicroseconds * 1000;
            while (next.tv_nsec >= 1000000000) {
                next.tv_nsec -= 1000000000;
                next.tv_sec += 1;
            }
            if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0) continue;
            char line[32];
            int length = snprintf(line, sizeof line, "T%llu\n", monotonicNanoseconds());
            // A full pty (nobody reading) blocks the writer: the next ticks are late, not lost.
            writeAll(pty.master, line, length);
        }
        if (link != NULL) unlink(link);
        return 0;
    }
    static char buffer[65536];
    // --baud: when the line is next free (CLOCK_MONOTONIC ns); a chunk waits for it.
    unsigned long long lineFreeAt = 0;
    while (!stopRequested) {
        if (replugRequested) {
            replugRequested = 0;
            close(pty.keeper);
            close(pty.master);
            if (link != NULL) unlink(link);
            pty = openPty();
            announce(&pty, link);
            continue;
        }
        ssize_t count = read(pty.master, buffer, baud > 0 ? 256 : sizeof buffer);
        if (count < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EIO) continue;
            fail("read");
        }
        if (baud > 0) {
            unsigned long long now = monotonicNanoseconds();
            if (lineFreeAt < now) lineFreeAt = now;
            lineFreeAt += (unsigned long long)count * 10ULL * 1000000000ULL / (unsigned long long)baud;
            struct timespec until = {(time_t)(lineFreeAt / 1000000000ULL), (long)(lineFreeAt % 1000000000ULL)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR && !stopRequested) {}
        }
        writeAll(pty.master, buffer, count);
    }
    if (link != NULL) unlink(link);
    return 0;
}
