import ControlProtocol
import JSONCodec

/// A JSON object as readable `key: value` lines: nested objects flattened to dotted keys
/// (`counters.bytes_in`), arrays of plain values joined with commas, other arrays indexed
/// (`frames[0].data`), `null` shown as `-`, values aligned.
///
/// Threading: stateless. Any thread.
enum KeyValueText {
    static func lines(_ object: JSONObject) -> [String] {
        var pairs: [(String, String)] = []
        flatten(.object(object), prefix: "", into: &pairs)
        let width = pairs.map(\.0.count).max() ?? 0
        return pairs.map { key, value in
            key + ":" + String(repeating: " ", count: width - key.count + 1) + value
        }
    }

    private static func flatten(_ value: JSONValue, prefix: String, into pairs: inout [(String, String)]) {
        switch value {
        case .object(let object) where !object.isEmpty:
            for member in object {
                flatten(member.value, prefix: prefix.isEmpty ? member.key : prefix + "." + member.key, into: &pairs)
            }
        case .array(let elements) where elements.contains(where: isContainer):
            for (index, element) in elements.enumerated() {
                flatten(element, prefix: "\(prefix)[\(index)]", into: &pairs)
            }
        default:
            pairs.append((prefix, plain(value)))
        }
    }

    private static func isContainer(_ value: JSONValue) -> Bool {
        switch value {
        case .object, .array: true
        default: false
        }
    }

    private static func plain(_ value: JSONValue) -> String {
        switch value {
        case .null: "-"
        case .string(let text): FrameText.escaped(text)
        case .array(let elements): elements.isEmpty ? "-" : elements.map(plain).joined(separator: ", ")
        default: value.description
        }
    }
}
