import Glibc

/// CPU seconds the calling thread has used (user + system). Main thread only.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// The CPU time of the measuring thread in the last run (main thread only).
nonisolated(unsafe) var lastCPUSeconds = 0.0
