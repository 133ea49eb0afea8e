/// The wrapped condition without its dependency: it is evaluated, but never produces the
/// operation that could make it true ("only if already logged in; do not log in for this").
/// Exclusivity is kept. Loop thread only (like every condition).
public struct SilentCondition<Wrapped: OperationCondition>: OperationCondition {
    public let wrapped: Wrapped

    public init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    public var name: String { "Silent<\(wrapped.name)>" }
    public var isMutuallyExclusive: Bool { wrapped.isMutuallyExclusive }

    public func dependency(for operation: LoopOperation) -> LoopOperation? { nil }

    public func evaluate(for operation: LoopOperation, completion: @escaping (ConditionResult) -> Void) {
        wrapped.evaluate(for: operation, completion: completion)
    }
}
