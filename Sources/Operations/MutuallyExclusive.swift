/// Makes operations of one category run one at a time, across every queue that shares an
/// ``ExclusivityController`` (Advanced NSOperations' MutuallyExclusive). The category is the type
/// `Category` (`MutuallyExclusive<FirmwareUpdate>()`), optionally narrowed by a key
/// (`MutuallyExclusive<SharedBus>(key: "/dev/ttyUSB0")`).
///
/// Always satisfied; the waiting is done by the controller before conditions are evaluated.
/// Any thread (a value); called on the loop thread only.
public struct MutuallyExclusive<Category>: OperationCondition {
    public let name: String

    public init(key: String? = nil) {
        name = key.map { "MutuallyExclusive<\(Category.self)>:\($0)" } ?? "MutuallyExclusive<\(Category.self)>"
    }

    public var isMutuallyExclusive: Bool { true }

    public func evaluate(for operation: LoopOperation, completion: @escaping (ConditionResult) -> Void) {
        completion(.satisfied)
    }
}
