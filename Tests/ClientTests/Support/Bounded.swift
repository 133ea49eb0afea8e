import AccessoryClient
import SystemCalls
import Testing

/// A wait that took too long.
///
/// Threading: a value. Any thread.
struct TimedOut: Error, CustomStringConvertible {
    var seconds: Double
    var description: String { "still waiting after \(seconds) s" }
}

/// Runs `body` and returns its result, or throws ``TimedOut`` after `seconds` without waiting
/// for it (a hung call cannot hang the test). Any thread.
func bounded<T: Sendable>(
    _ seconds: Double = 10,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    typealias Outcome = Result<T, any Error>
    let waiter = Locked<CheckedContinuation<Outcome, Never>?>(nil)
    let tasks = Locked<[Task<Void, Never>]>([])
    let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
        waiter.withLock { $0 = continuation }
        let finish: @Sendable (Outcome) -> Void = { outcome in
            waiter.withLock { slot in
                defer { slot = nil }
                return slot
            }?.resume(returning: outcome)
        }
        let work = Task {
            do { finish(.success(try await body())) } catch { finish(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: .seconds(seconds))
            finish(.failure(TimedOut(seconds: seconds)))
        }
        tasks.withLock { $0 = [work, timer] }
    }
    for task in tasks.withLock({ $0 }) { task.cancel() }
    return try outcome.get()
}

/// The `ClientError` `body` throws, or nil if it succeeds (another error is recorded as an
/// issue). Any thread.
func clientError(_ body: () async throws -> Void) async -> ClientError? {
    do {
        try await body()
        return nil
    } catch let error as ClientError {
        return error
    } catch {
        Issue.record("expected a ClientError, got \(error)")
        return nil
    }
}
