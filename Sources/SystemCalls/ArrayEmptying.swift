extension Array {
    /// Removes every element and keeps the storage, like `removeAll(keepingCapacity: true)`, but
    /// from the end, one at a time: that one is a generic `replaceSubrange`, about 250
    /// instructions even for one element, and the daemon's loop, framer and output queue empty
    /// their small arrays on every request. O(count). Whatever thread owns the array.
    @inlinable
    public mutating func emptyKeepingCapacity() {
        while popLast() != nil {}
    }
}
