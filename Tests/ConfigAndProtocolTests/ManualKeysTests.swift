import AccessoryConfig
import Foundation
import Testing

/// accessoryd.yaml(5) documents exactly the keys the decoder accepts. The decoder's keys are
/// found by asking it: a mapping given an unknown key answers "expected one of: …" with its
/// accepted keys, so the whole tree is explored from the top without a second list to keep.
@Suite("Manual: accessoryd.yaml(5) names every configuration key")
struct ManualKeysTests {
    static let probe = "zz_probe_key"

    /// A step into the tree: a key of a mapping, or an element of a list.
    enum Step {
        case key(String)
        case element
    }

    /// YAML that reaches `path` and puts `leaf` there (flow style, one line).
    static func yaml(_ path: [Step], leaf: String) -> String {
        var text = leaf
        for step in path.reversed() {
            switch step {
            case .key(let key): text = "{\(key): \(text)}"
            case .element: text = "[\(text)]"
            }
        }
        return text
    }

    static func keyPath(_ path: [Step], printed: Bool) -> String {
        var text = ""
        for step in path {
            switch step {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .element: text += printed ? "[0]" : "[]"
            }
        }
        return text
    }

    /// The keys of the mapping at `path`, or nil if there is none (the value is not a mapping
    /// with a closed set of keys).
    static func acceptedKeys(at path: [Step]) -> [String]? {
        let issues = ConfigurationLoader.check(yaml: yaml(path, leaf: "{\(probe): 1}"), file: "probe.yaml").issues
        let probePath = keyPath(path + [.key(probe)], printed: true)
        guard let issue = issues.first(where: { $0.keyPath == probePath && $0.message.hasPrefix("unknown key") }),
            let list = issue.message.range(of: "expected one of: ")
        else { return nil }
        return issue.message[list.upperBound...].split(separator: ", ").map(String.init)
    }

    /// Every key path whose value is not a mapping of known keys (`accessories[].serial.baud`).
    static func decoderLeaves(at path: [Step] = []) -> [String] {
        guard let keys = acceptedKeys(at: path) else { return [keyPath(path, printed: false)] }
        var leaves: [String] = []
        for key in keys {
            let child = path + [.key(key)]
            if acceptedKeys(at: child) != nil {
                leaves += decoderLeaves(at: child)
            } else if acceptedKeys(at: child + [.element]) != nil {
                leaves += decoderLeaves(at: child + [.element])
            } else {
                leaves.append(keyPath(child, printed: false))
            }
        }
        return leaves
    }

    /// The keys the page documents: its `.It Cm key.path` items.
    static func manualKeys() throws -> [String] {
        let url = repositoryRoot.appendingPathComponent("man/accessoryd.yaml.5")
        let page = try String(contentsOf: url, encoding: .utf8)
        return page.split(separator: "\n").compactMap { line in
            guard line.hasPrefix(".It Cm ") else { return nil }
            return String(line.dropFirst(7).split(separator: " ").first ?? "")
        }
    }

    @Test("the decoder is explored: known mappings, lists of mappings and leaves")
    func exploration() {
        let leaves = Self.decoderLeaves()
        #expect(leaves.contains("socket.path"))
        #expect(leaves.contains("accessories[].serial.baud"))
        #expect(leaves.contains("accessories[].simulate"))
        #expect(!leaves.contains { $0.contains(Self.probe) })
    }

    @Test("every decoder key is in the page, and every key in the page is the decoder's")
    func sameKeys() throws {
        let leaves = Set(Self.decoderLeaves())
        let documented = Set(try Self.manualKeys())
        // A leaf may be documented through its parts (accessories[].simulate.personality).
        let missing = leaves.filter { leaf in !documented.contains { $0 == leaf || $0.hasPrefix(leaf + ".") } }
        let unknown = documented.filter { key in !leaves.contains { $0 == key || key.hasPrefix($0 + ".") } }
        #expect(
            missing.isEmpty,
            "keys the decoder accepts and man/accessoryd.yaml.5 does not list: \(missing.sorted())"
        )
        #expect(
            unknown.isEmpty,
            "keys man/accessoryd.yaml.5 lists and the decoder does not accept: \(unknown.sorted())"
        )
    }
}
