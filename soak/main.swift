// soak: accessoryd under sustained random load with faults. Many clients do random
// transact/write/read/subscribe/lock/cancel on echo accessories while clients are killed,
// requests cancelled and accessories unplugged and replugged; the invariants are checked as
// the responses arrive and at the end, and the totals printed.
//
//   swift build --product accessoryd && swift build --product soak && .build/debug/soak --seconds 60
//
// Threading: everything runs on the main thread (one IOLoop); the daemon is a child process,
// started and stopped by its pid.
import Glibc
import SystemCalls

func products(_ options: Options) -> String {
    let me = (try? FileIO.readLink("/proc/self/exe")) ?? CommandLine.arguments[0]
    return options.products ?? Files.folder(of: me)
}

FileIO.ignoreSignal(SIGPIPE)
do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    let daemon = options.daemon ?? products(options) + "/accessoryd"
    guard access(daemon, X_OK) == 0 else {
        throw SoakError("\(daemon) is not built (swift build --product accessoryd), or pass --daemon PATH")
    }
    Output.line("soak: daemon \(daemon), seed \(options.seed)")
    let soak = try Soak(options: options)
    let started = Clock.seconds()
    let passed = try soak.run(daemonExecutable: daemon)
    Output.line("")
    soak.world.report.printTotals()
    Output.line("")
    Output.line("elapsed \(Int(Clock.seconds() - started)) s; \(passed ? "PASSED" : "FAILED")")
    exit(passed ? 0 : 1)
} catch {
    Output.error("soak: \(error)")
    exit(2)
}
