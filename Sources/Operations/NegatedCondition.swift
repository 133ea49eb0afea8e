/// Satisfied when the wrapped condition is not, and the other way round. The wrapped condition's
/// dependency and exclusivity are kept. Loop thread only (like every condition).
public struct NegatedCondition<Wrapped: OperationCondition>: OperationCondition {
    public let wrapped: Wrapped

    public init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    public var name: String { "Not<\(wrapped.name)>" }
    public var isMutuallyExclusive: Bool { wrapped.isMutuallyExclusive }

    public func dependency(for operation: LoopOperation) -> LoopOperation? {
        wrapped.dependency(for: operation)
    }

    public func evaluate(for operation: LoopOperation, completion: @escaping (ConditionResult) -> Void) {
        wrapped.evaluate(for: operation) { result in
            switch result {
            case .satisfied: completion(.failed(nil))
            case .failed: completion(.satisfied)
            }
        }
    }
}
