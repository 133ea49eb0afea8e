extension AccessoryDecoder {
    /// `trace: {file, format, max_bytes, keep}`, or `nil` if absent or without a usable file
    /// (issues recorded).
    func decodeTrace(_ accessory: MappingReader) -> TraceSettings? {
        guard let reader = accessory.mapping("trace", accepted: ["file", "format", "max_bytes", "keep"]) else {
            return nil
        }
        guard reader.has("file") else {
            reader.errorHere("missing required key \"file\" (an absolute path for the trace file)")
            return nil
        }
        guard let file = reader.string("file", what: "an absolute path") else { return nil }
        var trace = TraceSettings(file: file)
        trace.format = reader.choice("format", TraceSettings.Format.self) ?? trace.format
        trace.maxBytes = reader.integer("max_bytes", Rules.traceMaxBytes) ?? trace.maxBytes
        trace.keep = reader.integer("keep", Rules.traceKeep) ?? trace.keep
        return trace
    }
}
