import CYAML

/// Composes YAML text into a ``Node`` tree with libyaml's event parser.
///
/// What it accepts is what the configuration and the simulator scripts always accepted: one
/// document (an empty text is no document: `nil`), anchors and aliases (an alias stands for a
/// copy of its anchored node, which must come earlier and be complete), and mappings whose
/// scalar keys are all different. Nesting is bounded so that hostile input cannot exhaust the
/// stack of the thread that reads it.
///
/// Threading: stateless. Any thread.
package enum YAML {
    /// The deepest nesting of mappings and sequences accepted.
    package static let maxDepth = 256

    /// The tree of the single document in `yaml`, or `nil` when the text holds no document.
    package static func compose(yaml: String) throws(YAMLError) -> Node? {
        var bytes = Array(yaml.utf8)
        if bytes.isEmpty { bytes = [0x0A] }  // libyaml wants a non-null input pointer
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<Node?, YAMLError> in
            guard let composer = Composer(buffer) else { return .failure(.reader(problem: "out of memory")) }
            defer { composer.close() }
            do throws(YAMLError) {
                return .success(try composer.document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// One composition: the parser over a buffer that outlives it, and the anchors seen so far.
///
/// Threading: confined to the ``YAML/compose(yaml:)`` call that creates it.
private final class Composer {
    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private var anchors: [String: Node] = [:]

    init?(_ buffer: UnsafeBufferPointer<UInt8>) {
        parser = .allocate(capacity: 1)
        guard yaml_parser_initialize(parser) == 1 else {
            parser.deallocate()
            return nil
        }
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
        yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
    }

    func close() {
        yaml_parser_delete(parser)
        parser.deallocate()
    }

    /// The event stream: STREAM-START, then no document or exactly one, then STREAM-END.
    func document() throws(YAMLError) -> Node? {
        _ = try next()  // STREAM-START
        let first = try next()
        guard case .documentStart = first.kind else { return nil }  // STREAM-END: an empty text
        let root = try node(from: try next(), depth: 0)
        _ = try next()  // DOCUMENT-END
        let after = try next()
        if case .documentStart = after.kind {
            throw .syntax(
                problem: "expected a single document in the stream, found another document",
                line: after.mark.line,
                context: nil,
                contextLine: nil
            )
        }
        return root
    }

    private func node(from event: Event, depth: Int) throws(YAMLError) -> Node {
        switch event.kind {
        case .alias(let name):
            guard let node = anchors[name] else {
                throw .syntax(
                    problem: "found undefined alias \"\(name)\"",
                    line: event.mark.line,
                    context: nil,
                    contextLine: nil
                )
            }
            return node
        case .scalar(let value, let style, let anchor):
            let node = Node.scalar(.init(value, style: style, mark: event.mark))
            if let anchor { anchors[anchor] = node }
            return node
        case .sequenceStart(let anchor):
            try checkDepth(depth, event)
            var nodes: [Node] = []
            while true {
                let item = try next()
                if case .sequenceEnd = item.kind { break }
                nodes.append(try node(from: item, depth: depth + 1))
            }
            let node = Node.sequence(.init(nodes, mark: event.mark))
            if let anchor { anchors[anchor] = node }
            return node
        case .mappingStart(let anchor):
            try checkDepth(depth, event)
            var pairs: [(key: Node, value: Node)] = []
            while true {
                let keyEvent = try next()
                if case .mappingEnd = keyEvent.kind { break }
                let key = try node(from: keyEvent, depth: depth + 1)
                let value = try node(from: try next(), depth: depth + 1)
                pairs.append((key, value))
            }
            try checkDuplicates(pairs)
            let node = Node.mapping(.init(pairs, mark: event.mark))
            if let anchor { anchors[anchor] = node }
            return node
        case .streamStart, .streamEnd, .documentStart, .documentEnd, .sequenceEnd, .mappingEnd:
            // libyaml's parser only hands out well-nested events; a node always starts here.
            throw .syntax(problem: "unexpected event", line: event.mark.line, context: nil, contextLine: nil)
        }
    }

    private func checkDepth(_ depth: Int, _ event: Event) throws(YAMLError) {
        guard depth < YAML.maxDepth else {
            throw .syntax(
                problem: "mappings and lists nested deeper than \(YAML.maxDepth) levels",
                line: event.mark.line,
                context: nil,
                contextLine: nil
            )
        }
    }

    /// Scalar keys repeated in one mapping: an error at the first repeated key's first line.
    private func checkDuplicates(_ pairs: [(key: Node, value: Node)]) throws(YAMLError) {
        var seen: [String: Int] = [:]
        var repeated: [String] = []
        var line = Int.max
        for (key, _) in pairs {
            guard case .scalar(let scalar) = key else { continue }
            if let first = seen[scalar.string] {
                if !repeated.contains(scalar.string) { repeated.append(scalar.string) }
                line = min(line, first)
            } else {
                seen[scalar.string] = scalar.mark?.line ?? 0
            }
        }
        if !repeated.isEmpty { throw .duplicateKeys(keys: repeated.sorted(), line: line) }
    }

    /// The next parser event, copied out of libyaml's storage (which is freed at once).
    private func next() throws(YAMLError) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw parserError() }
        defer { yaml_event_delete(&event) }
        return Event(event)
    }

    private func parserError() -> YAMLError {
        let problem = parser.pointee.problem.map { String(cString: $0) } ?? "unknown problem"
        switch parser.pointee.error {
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
            let context = parser.pointee.context.map { String(cString: $0) }
            return .syntax(
                problem: problem,
                line: Int(parser.pointee.problem_mark.line) + 1,
                context: context,
                contextLine: context == nil ? nil : Int(parser.pointee.context_mark.line) + 1
            )
        case YAML_MEMORY_ERROR:
            return .reader(problem: "out of memory")
        default:
            return .reader(problem: problem)
        }
    }
}

/// A parser event with its strings copied.
///
/// Threading: a value, confined to its ``Composer``.
private struct Event {
    enum Kind {
        case streamStart, streamEnd, documentStart, documentEnd
        case alias(String)
        case scalar(String, Node.Scalar.Style, anchor: String?)
        case sequenceStart(anchor: String?)
        case sequenceEnd
        case mappingStart(anchor: String?)
        case mappingEnd
    }

    let kind: Kind
    let mark: Node.Mark

    init(_ event: yaml_event_t) {
        mark = Node.Mark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
        switch event.type {
        case YAML_STREAM_START_EVENT: kind = .streamStart
        case YAML_DOCUMENT_START_EVENT: kind = .documentStart
        case YAML_DOCUMENT_END_EVENT: kind = .documentEnd
        case YAML_ALIAS_EVENT: kind = .alias(Self.text(event.data.alias.anchor) ?? "")
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let value = String(
                decoding: UnsafeBufferPointer(start: scalar.value, count: Int(scalar.length)),
                as: UTF8.self
            )
            kind = .scalar(value, Self.style(scalar.style), anchor: Self.text(scalar.anchor))
        case YAML_SEQUENCE_START_EVENT: kind = .sequenceStart(anchor: Self.text(event.data.sequence_start.anchor))
        case YAML_SEQUENCE_END_EVENT: kind = .sequenceEnd
        case YAML_MAPPING_START_EVENT: kind = .mappingStart(anchor: Self.text(event.data.mapping_start.anchor))
        case YAML_MAPPING_END_EVENT: kind = .mappingEnd
        default: kind = .streamEnd  // YAML_STREAM_END_EVENT (YAML_NO_EVENT is never returned on success)
        }
    }

    private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    private static func style(_ style: yaml_scalar_style_t) -> Node.Scalar.Style {
        switch style {
        case YAML_PLAIN_SCALAR_STYLE: .plain
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .any
        }
    }
}
