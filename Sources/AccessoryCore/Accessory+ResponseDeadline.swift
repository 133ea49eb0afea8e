import IOLoop

extension Accessory {
    /// Makes the accessory's one deadline timer (``ResponseDeadline``) fire no later than `due`,
    /// the instant the executing request (the ``claimant``) gives up waiting. Device loop only.
    func watchResponseDeadline(_ due: LoopInstant) {
        responseDeadline.watch(due)
    }
}
