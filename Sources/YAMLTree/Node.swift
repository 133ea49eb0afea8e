/// A composed YAML node: what the configuration and script decoders walk. Aliases are resolved
/// while composing (an alias is the node its anchor names), so a tree holds scalars, mappings and
/// sequences only. Tags are not kept: the decoders type values by key, not by tag.
///
/// Threading: a value. Any thread.
package enum Node: Sendable {
    case scalar(Scalar)
    case mapping(Mapping)
    case sequence(Sequence)

    /// Where a node starts in the text (1-based line).
    ///
    /// Threading: a value. Any thread.
    package struct Mark: Sendable, Equatable {
        package let line: Int
        package let column: Int

        package init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    /// A scalar as written: its text (escapes and folding applied) and its quoting style.
    ///
    /// Threading: a value. Any thread.
    package struct Scalar: Sendable {
        /// How a scalar was written. `any` is never produced by the parser; it is kept for scalars
        /// built in code.
        package enum Style: Sendable, Equatable {
            case any, plain, singleQuoted, doubleQuoted, literal, folded
        }

        package let string: String
        package let style: Style
        package let mark: Mark?

        package init(_ string: String, style: Style = .plain, mark: Mark? = nil) {
            self.string = string
            self.style = style
            self.mark = mark
        }
    }

    /// A mapping's key/value pairs in file order (duplicates are refused while composing).
    ///
    /// Threading: a value. Any thread.
    package struct Mapping: Sendable, RandomAccessCollection {
        package let pairs: [(key: Node, value: Node)]
        package let mark: Mark?

        package init(_ pairs: [(key: Node, value: Node)], mark: Mark? = nil) {
            self.pairs = pairs
            self.mark = mark
        }

        package var startIndex: Int { pairs.startIndex }
        package var endIndex: Int { pairs.endIndex }
        package subscript(position: Int) -> (key: Node, value: Node) { pairs[position] }

        package var keys: [Node] { pairs.map(\.key) }
        package var values: [Node] { pairs.map(\.value) }
    }

    /// A sequence's elements in file order.
    ///
    /// Threading: a value. Any thread.
    package struct Sequence: Sendable, RandomAccessCollection {
        package let nodes: [Node]
        package let mark: Mark?

        package init(_ nodes: [Node], mark: Mark? = nil) {
            self.nodes = nodes
            self.mark = mark
        }

        package var startIndex: Int { nodes.startIndex }
        package var endIndex: Int { nodes.endIndex }
        package subscript(position: Int) -> Node { nodes[position] }
    }
}

extension Node {
    /// Where the node starts, if it came from text.
    package var mark: Mark? {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .mapping(let mapping): mapping.mark
        case .sequence(let sequence): sequence.mark
        }
    }

    package var scalar: Scalar? {
        if case .scalar(let scalar) = self { return scalar }
        return nil
    }

    package var mapping: Mapping? {
        if case .mapping(let mapping) = self { return mapping }
        return nil
    }

    package var sequence: Sequence? {
        if case .sequence(let sequence) = self { return sequence }
        return nil
    }

    /// A scalar's text, whatever its style.
    package var string: String? { scalar?.string }

    /// A scalar that is a decimal integer (optional sign, digits only, quoted or not).
    package var int: Int? {
        guard let text = string else { return nil }
        var digits = Substring(text)
        let negative = digits.first == "-"
        if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(digits) else {
            return nil
        }
        return negative ? -value : value
    }
}
