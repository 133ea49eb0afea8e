import AccessoryConfig
import Testing
import YAMLTree

/// The YAML reader (libyaml's parser, composed into ``Node`` trees): what the decoders rely on.
@Suite("YAMLTree: composing libyaml's events")
struct YAMLTreeTests {
    @Test("scalars keep their text, style and line; mappings keep their order")
    func tree() throws {
        let root = try #require(try YAML.compose(yaml: "b: 'two'\na: [1, \"x\"]\nc: |\n  text\n"))
        let mapping = try #require(root.mapping)
        #expect(mapping.keys.compactMap(\.string) == ["b", "a", "c"])
        #expect(mapping[0].value.scalar?.style == .singleQuoted)
        #expect(mapping[0].value.mark?.line == 1)
        let list = try #require(mapping[1].value.sequence)
        #expect(list.map(\.string) == ["1", "x"])
        #expect(list[0].scalar?.style == .plain && list[1].scalar?.style == .doubleQuoted)
        #expect(list[0].int == 1)
        #expect(mapping[2].value.string == "text\n" && mapping[2].value.scalar?.style == .literal)
        #expect(mapping[2].value.mark?.line == 3)
    }

    @Test("an empty text is no document; a second document is an error")
    func documents() throws {
        #expect(try YAML.compose(yaml: "") == nil)
        #expect(try YAML.compose(yaml: "# only a comment\n") == nil)
        #expect(throws: YAMLError.self) { try YAML.compose(yaml: "a: 1\n---\nb: 2\n") }
        #expect(errors("limits: {}\n---\nlog: {}\n").first?.hasPrefix("test.yaml:2: YAML syntax error:") == true)
    }

    @Test("an alias stands for its anchored node; an unknown one is an error with its line")
    func aliases() throws {
        let root = try #require(try YAML.compose(yaml: "a: &x [1, 2]\nb: *x\n"))
        #expect(root.mapping?[1].value.sequence?.map(\.string) == ["1", "2"])
        #expect(
            errors("limits: {max_clients: *nowhere}\n") == [
                #"test.yaml:1: YAML syntax error: found undefined alias "nowhere""#
            ]
        )
    }

    @Test("nesting deeper than the limit is refused, not followed down the stack")
    func depth() {
        let deep = String(repeating: "[", count: YAML.maxDepth + 1) + String(repeating: "]", count: YAML.maxDepth + 1)
        #expect(errors("log: " + deep + "\n").first?.contains("nested deeper than \(YAML.maxDepth) levels") == true)
        let fine = String(repeating: "[", count: 8) + String(repeating: "]", count: 8)
        #expect(errors("log: " + fine + "\n") == [#"test.yaml:1: log: expected a mapping, got a list"#])
    }

    @Test("repeated keys name every repeated key, at the first one's line")
    func duplicates() {
        #expect(
            errors("log: {}\nlimits: {}\nlog: {}\nlimits: {}\n") == [
                #"test.yaml:1: duplicate key "limits", "log" in one mapping (each key may appear once)"#
            ]
        )
    }
}
