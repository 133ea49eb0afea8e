import AccessoryConfig
import Foundation
import Testing

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// All issues for `yaml` decoded as `test.yaml`.
func issues(_ yaml: String) -> [ConfigIssue] {
    ConfigurationLoader.check(yaml: yaml, file: "test.yaml").issues
}

/// The error-severity issues as printed.
func errors(_ yaml: String) -> [String] {
    issues(yaml).filter { $0.severity == .error }.map(\.description)
}

/// Decodes `yaml`, recording an issue if it has errors.
func decodeConfig(_ yaml: String) -> Configuration? {
    let (configuration, issues) = ConfigurationLoader.check(yaml: yaml, file: "test.yaml")
    if configuration == nil { Issue.record("unexpected errors: \(issues.map(\.description))") }
    return configuration
}

/// One accessory with `body` (indented by four spaces) appended after `name: a` and `path:`.
func accessory(_ body: String, source: String = "path: /dev/ttyUSB0") -> String {
    "accessories:\n  - name: a\n    \(source)\n" + body
}
