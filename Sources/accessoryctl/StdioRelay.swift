import Glibc
import SystemCalls

/// The byte relay of `dial-stdio`: standard input to the socket on a thread of its own,
/// the socket to standard output on the caller's thread, each a blocking read followed by the
/// write of what it got. A blocking read wakes as soon as bytes arrive, so a request crosses with
/// two system calls and no poll in between; it also reads any kind of input (a pipe, a socket, a
/// regular file), which epoll cannot watch.
///
/// The end of the input shuts down the socket's sending side (the daemon answers what it was
/// asked, then closes); the daemon closing the socket ends the relay, whatever the input does.
///
/// Threading: the caller's thread and one ``WorkerThread``; they share only the socket number.
enum StdioRelay {
    static let bufferSize = 65_536

    /// Relays until the daemon closes the socket. Returns nil then, or what failed.
    static func run(socket: consuming OwnedFD) -> String? {
        // A peer that went away is an error from write, not a signal that kills the relay.
        FileIO.ignoreSignal(SIGPIPE)
        do throws(SyscallError) {
            try FileIO.setNonBlocking(socket.rawValue, false)
            // Standard streams inherited non-blocking (set so by whoever shares them) would make
            // the blocking reads spin; they are made blocking, as most programs expect them.
            try? FileIO.setNonBlocking(0, false)
            try? FileIO.setNonBlocking(1, false)
        } catch {
            return "cannot set up the socket: \(error)"
        }
        let fd = socket.rawValue
        WorkerThread(name: "dial-stdin") {
            _ = copy(from: 0, to: fd)
            // End of input (or the daemon is gone): no more requests; the answers still flow.
            try? Socket.shutdownWriting(fd)
        }.detach()
        let result = copy(from: fd, to: 1)
        // The input thread may still be blocked reading standard input: the process exits
        // after this returns, and that ends it.
        _ = socket.release()
        switch result {
        case .ended, .writeFailed: return nil  // nobody reads standard output any more: done
        case .readFailed(let error): return "reading from accessoryd: \(error)"
        }
    }

    /// How a copy ended.
    enum CopyEnd {
        case ended
        case readFailed(SyscallError)
        case writeFailed(SyscallError)
    }

    /// Copies until the source ends or a call fails.
    static func copy(from source: CInt, to target: CInt) -> CopyEnd {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do throws(SyscallError) {
                guard case .processed(let n) = try FileIO.read(source, into: buffer) else { continue }
                count = n
            } catch {
                return .readFailed(error)
            }
            if count == 0 { return .ended }
            var offset = 0
            while offset < count {
                do throws(SyscallError) {
                    let chunk = UnsafeRawBufferPointer(rebasing: buffer[offset..<count])
                    guard case .processed(let n) = try FileIO.write(target, from: chunk) else { continue }
                    offset += n
                } catch {
                    return .writeFailed(error)
                }
            }
        }
    }
}
