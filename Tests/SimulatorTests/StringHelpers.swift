extension String {
    /// The string with a trailing `a` replaced by `b` (unchanged if it does not end with `a`).
    func replacingLast(_ a: String, with b: String) -> String {
        guard hasSuffix(a) else { return self }
        return String(dropLast(a.count)) + b
    }

    /// Splits on a separator string, keeping empty pieces out.
    func components(_ separator: String) -> [String] {
        split(separator: separator).map(String.init)
    }
}
