import IOLoop
import SystemCalls

/// The one background loop thread that reads and writes every connection's socket in this
/// process (started on first use, then lives as long as the process, like a runtime's I/O
/// thread). Waiting calls are resumed from it.
///
/// Threading: any thread.
enum ClientLoop {
    static let shared: Result<IOLoop, SyscallError> = Result { () throws(SyscallError) -> IOLoop in
        try IOLoop.spawn(name: "accessoryclient")
    }
}
