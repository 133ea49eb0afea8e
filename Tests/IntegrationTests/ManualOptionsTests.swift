import Glibc
import SystemCalls
import Testing

/// The man pages of the three programs list exactly the options their `--help` shows
/// (accessoryctl: the top level's and each command's), so that neither drifts from the other.
///
/// Threading: each test runs on its own test thread and owns the children it starts.
@Suite struct ManualOptionsTests {
    /// The repository's root, from this file's path (Tests/IntegrationTests/<file>).
    static let root: String = {
        var path = #filePath
        for _ in 0..<3 { path = BuiltProducts.parent(of: path) }
        return path
    }()

    /// `--long-option` words in `text`.
    static func longOptions(_ text: String) -> Set<String> {
        var found: Set<String> = []
        var word = ""
        for character in text + " " {
            if character.isLetter || character.isNumber || character == "-" {
                word.append(character)
                continue
            }
            if word.hasPrefix("--"), word.dropFirst(2).first?.isLetter == true {
                found.insert(String(word.dropFirst(2)).trimmingSuffixDashes())
            }
            word = ""
        }
        return found
    }

    /// The long options a page documents: `-word` arguments of mdoc's flag macro `Fl`, which
    /// run until the next macro (`.It Fl h , -help` documents `--help`).
    static func pageOptions(_ page: String) throws -> Set<String> {
        let text = FileIO.readText(root + "/man/" + page)
        guard !text.isEmpty else { throw HarnessError("man/\(page) is missing or empty") }
        func isMacro(_ word: Substring) -> Bool {
            (2...3).contains(word.count) && word.first!.isUppercase && word.dropFirst().allSatisfy(\.isLowercase)
        }
        var found: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix(".") {
            var inFlag = false
            for word in line.dropFirst().split(separator: " ") {
                if word == "Fl" {
                    inFlag = true
                } else if isMacro(word) {
                    inFlag = false
                } else if inFlag, word.hasPrefix("-"), word.dropFirst().first?.isLetter == true {
                    found.insert(String(word.dropFirst()))
                }
            }
        }
        return found
    }

    static func help(_ program: String, _ arguments: [String]) throws -> String {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let child = try ChildRun(
            label: "\(program) \(arguments)",
            executable: try BuiltProducts.executable(program),
            arguments: arguments,
            stdoutPath: folder.file("out"),
            stderrPath: folder.file("err")
        )
        guard child.wait(seconds: 20) != nil else {
            child.kill()
            throw HarnessError("\(program) \(arguments) did not finish within 20 s")
        }
        return child.stdout
    }

    /// The commands a `--help` lists under `SUBCOMMANDS:` (swift-argument-parser's layout: two
    /// spaces, the name, then its abstract; `(default)` after the default one).
    static func subcommands(_ help: String) -> [String] {
        var commands: [String] = []
        var inSection = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "SUBCOMMANDS:" {
                inSection = true
            } else if inSection {
                guard line.hasPrefix("  ") else { break }
                if let name = line.split(separator: " ").first, !line.hasPrefix("   ") { commands.append(String(name)) }
            }
        }
        return commands
    }

    /// The `.It Cm name` items of a page.
    static func pageCommands(_ page: String) -> Set<String> {
        var found: Set<String> = []
        for line in FileIO.readText(root + "/man/" + page).split(separator: "\n") where line.hasPrefix(".It Cm ") {
            if let name = line.dropFirst(7).split(separator: " ").first { found.insert(String(name)) }
        }
        return found
    }

    /// accessoryctl's page has an item for every command its `--help` lists (whose options the
    /// test below then compares).
    @Test func accessoryctlPageListsEveryCommand() throws {
        let commands = Self.subcommands(try Self.help("accessoryctl", ["--help"]))
        #expect(commands.contains("transact") && commands.contains("attach"), "\(commands)")
        let missing = Set(commands).subtracting(Self.pageCommands("accessoryctl.1")).subtracting(["help"])
        #expect(
            missing.isEmpty,
            "accessoryctl commands without an `.It Cm` item in man/accessoryctl.1: \(missing.sorted())"
        )
    }

    @Test(arguments: [
        ("accessoryd", "accessoryd.8"),
        ("accessory-sim", "accessory-sim.1"),
        ("accessoryctl", "accessoryctl.1"),
    ])
    func pageListsTheOptions(program: String, page: String) throws {
        let help = try Self.help(program, ["--help"])
        var shown = Self.longOptions(help)
        // Each command's options too (their `help` texts), and the commands those list.
        var commands = Self.subcommands(help).filter { $0 != "help" }.map { [$0] }
        var index = 0
        while index < commands.count && index < 100 {
            let text = try Self.help(program, ["help"] + commands[index])
            shown.formUnion(Self.longOptions(text))
            commands += Self.subcommands(text).filter { $0 != "help" }.map { commands[index] + [$0] }
            index += 1
        }
        #expect(shown.contains("help") && shown.contains("version"), "\(program) --help: \(shown.sorted())")
        // Offered by every program without being in its help text.
        shown.insert("generate-completion-script")
        let documented = try Self.pageOptions(page)
        let missing = shown.subtracting(documented)
        let unknown = documented.subtracting(shown)
        #expect(missing.isEmpty, "\(program): options not in man/\(page): \(missing.sorted())")
        #expect(unknown.isEmpty, "man/\(page) documents options \(program) does not have: \(unknown.sorted())")
    }
}

extension String {
    fileprivate func trimmingSuffixDashes() -> String {
        var text = self
        while text.hasSuffix("-") { text.removeLast() }
        return text
    }
}
