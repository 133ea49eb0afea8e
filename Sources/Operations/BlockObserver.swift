/// An observer made of closures. Loop thread only (called there; built anywhere).
public struct BlockObserver: OperationObserver {
    private let didStart: ((LoopOperation) -> Void)?
    private let didProduce: ((LoopOperation, LoopOperation) -> Void)?
    private let didFinish: ((LoopOperation, [any Error]) -> Void)?

    public init(
        didStart: ((LoopOperation) -> Void)? = nil,
        didProduce: ((_ operation: LoopOperation, _ produced: LoopOperation) -> Void)? = nil,
        didFinish: ((_ operation: LoopOperation, _ errors: [any Error]) -> Void)? = nil
    ) {
        self.didStart = didStart
        self.didProduce = didProduce
        self.didFinish = didFinish
    }

    public func operationDidStart(_ operation: LoopOperation) { didStart?(operation) }

    public func operation(_ operation: LoopOperation, didProduce newOperation: LoopOperation) {
        didProduce?(operation, newOperation)
    }

    public func operationDidFinish(_ operation: LoopOperation, errors: [any Error]) {
        didFinish?(operation, errors)
    }
}
