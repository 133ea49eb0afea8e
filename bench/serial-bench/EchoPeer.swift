import Glibc
import SystemCalls

/// The far end of the benchmark: a thread doing plain blocking read/write on a pty master,
/// sending back every byte it reads. It ends when the slave side closes (the master read gives
/// `EIO`). Made and joined on the main thread; the thread itself touches only its descriptor.
final class EchoPeer: @unchecked Sendable {  // @unchecked: only the creating thread touches `thread`.
    let masterFD: CInt
    private var thread = pthread_t()

    /// Starts echoing on `masterFD` (made blocking here).
    init(masterFD: CInt) throws {
        self.masterFD = masterFD
        try FileIO.setNonBlocking(masterFD, false)
        let box = Unmanaged.passRetained(self)
        let rc = pthread_create(
            &thread,
            nil,
            { raw in
                let peer = Unmanaged<EchoPeer>.fromOpaque(raw!).takeRetainedValue()
                peer.run()
                return nil
            },
            box.toOpaque()
        )
        precondition(rc == 0, "pthread_create: \(rc)")
    }

    private func run() {
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(masterFD, buffer, size)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }  // EIO: the slave closed
            var done = 0
            while done < n {
                let w = write(masterFD, buffer + done, n - done)
                if w < 0 && errno == EINTR { continue }
                if w <= 0 { return }
                done += w
            }
        }
    }

    /// Waits for the thread (after the slave has been closed).
    func join() {
        pthread_join(thread, nil)
    }
}
