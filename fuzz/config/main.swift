// libFuzzer target: the configuration decoder (YAML through libyaml and YAMLTree, then
// AccessoryConfig's typed decoding and validation), fed hostile file contents.
//
// Properties checked on every input: a configuration is returned exactly when no issue is an
// error; at most `maxIssues` issues plus the "N more" line; every issue names the file and a line
// inside it as YAML counts lines (or none). A broken property traps, which libFuzzer reports with the input.
//
// Threading: libFuzzer calls the entry point on one thread.
import AccessoryConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let file = "fuzz.yaml"
    let (configuration, issues) = ConfigurationLoader.check(bytes: bytes, file: file)
    let hasError = issues.contains { $0.severity == .error }
    precondition((configuration == nil) == hasError, "a configuration is returned exactly when there is no error")
    precondition(issues.count <= ConfigurationLoader.maxIssues + 1, "\(issues.count) issues")
    // YAML (and so every line number reported) counts LF, a lone CR and CRLF as line breaks,
    // and, in YAML 1.1 as libyaml reads it, NEL, LS and PS. Counting every LF, CR and the lead
    // byte of those characters bounds the number of lines from above.
    var lines = 1
    for byte in bytes where byte == 0x0A || byte == 0x0D || byte == 0xC2 || byte == 0xE2 { lines += 1 }
    for issue in issues {
        precondition(issue.file == file, "issue names another file: \(issue)")
        if let line = issue.line {
            precondition(line >= 1 && line <= lines + 1, "line \(line) outside a \(lines)-line file: \(issue)")
        }
        precondition(!issue.message.isEmpty, "an issue without a message")
    }
    return 0
}
