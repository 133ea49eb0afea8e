import IOLoop

extension Accessory {
    /// Makes the accessory's one deadline timer fire no later than `due`, the instant the
    /// executing request (the ``claimant``) gives up waiting. Device loop only.
    ///
    /// Why one timer and not one per request: a request usually ends long before its deadline,
    /// and scheduling and cancelling a timer for each cost a fifth of a request's instructions
    /// (bench/profile/request-profile.py). The timer is moved only to an earlier instant; when
    /// it fires early (the request it was set for has ended), it looks at the request executing
    /// then and re-arms for that one's deadline. With a steady timeout that is one wake-up per
    /// timeout period while busy, none while idle.
    func watchResponseDeadline(_ due: LoopInstant) {
        if let t = deadlineTimer, t.isValid, t.deadline <= due { return }
        deadlineTimer?.cancel()
        deadlineTimer = loop.scheduleTimer(at: due, repeating: nil, modes: [.common]) { [link] in
            link.accessory?.deadlineTimerFired()
        }
    }

    private func deadlineTimerFired() {
        deadlineTimer = nil
        guard let request = claimant, let due = request.deadline else { return }
        if loop.now >= due {
            request.deadlinePassed()
        } else {
            watchResponseDeadline(due)
        }
    }
}
