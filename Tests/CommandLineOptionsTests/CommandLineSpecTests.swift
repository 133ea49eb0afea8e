import Testing

@testable import CommandLineOptions

/// The daemon's option parser: what it accepts, what it refuses and how it says so.
///
/// Threading: each test runs on its own test thread; the spec is a value.
@Suite struct CommandLineSpecTests {
    static let spec = CommandLineSpec(
        program: "prog",
        abstract: "A program.",
        version: "prog 1.0",
        options: [
            .value("config", "file", completion: .file, help: "The configuration file."),
            .flag("check-config", help: "Check it."),
            .value("runtime-dir", "dir", completion: .directory, help: "The runtime directory."),
        ]
    )

    func parse(_ arguments: [String]) throws(CommandLineError) -> ParsedCommandLine {
        try Self.spec.parse(arguments)
    }

    func error(_ arguments: [String]) -> String? {
        do {
            _ = try parse(arguments)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func noArgumentsRunWithNothingSet() throws {
        #expect(try parse([]) == .run(OptionValues()))
    }

    @Test func valuesAsNextArgumentOrAfterEquals() throws {
        guard case .run(let a) = try parse(["--config", "/etc/a.yaml", "--check-config"]) else {
            Issue.record("not .run")
            return
        }
        #expect(a.value("config") == "/etc/a.yaml")
        #expect(a.isSet("check-config"))
        #expect(!a.isSet("config") && a.value("runtime-dir") == nil)
        guard case .run(let b) = try parse(["--runtime-dir=/run/x=y", "--config=--odd"]) else {
            Issue.record("not .run")
            return
        }
        #expect(b.value("runtime-dir") == "/run/x=y")
        #expect(b.value("config") == "--odd")
        #expect(!b.isSet("check-config"))
    }

    @Test func helpAndVersionWinWherever() throws {
        #expect(try parse(["--config", "x", "--help"]) == .help)
        #expect(try parse(["-h"]) == .help)
        #expect(try parse(["--bogus", "-h"]) == .help)
        #expect(try parse(["--version", "--check-config"]) == .version)
        #expect(try parse(["--version", "--help"]) == .help)
    }

    @Test func completionScriptShells() throws {
        #expect(try parse(["--generate-completion-script", "zsh"]) == .completionScript(.zsh))
        #expect(try parse(["--generate-completion-script=fish"]) == .completionScript(.fish))
        #expect(
            error(["--generate-completion-script", "tcsh"])
                == "'--generate-completion-script' takes bash, zsh or fish, not 'tcsh'"
        )
    }

    @Test func missingValues() {
        #expect(error(["--config"]) == "'--config' needs a value: --config <file>")
        #expect(error(["--config", "--check-config"]) == "'--config' needs a value: --config <file>")
        #expect(error(["--config="]) == "'--config' needs a value: --config <file>")
    }

    @Test func flagsTakeNoValue() {
        #expect(error(["--check-config=yes"]) == "'--check-config' is a flag: it takes no value")
    }

    @Test func givenTwiceIsAnError() {
        #expect(error(["--config", "a", "--config=b"]) == "'--config' is given twice")
        #expect(error(["--check-config", "--check-config"]) == "'--check-config' is given twice")
    }

    @Test func unknownOptionsAreNamedWithASuggestion() {
        #expect(error(["--confg", "x"]) == "unknown option '--confg' (did you mean '--config'?)")
        #expect(error(["--check-conf"]) == "unknown option '--check-conf' (did you mean '--check-config'?)")
        #expect(error(["--xyzzy"]) == "unknown option '--xyzzy'")
        #expect(error(["-c"]) == "unknown option '-c'")
        #expect(error(["--"]) == "unknown option '--'")
    }

    @Test func argumentsThatAreNotOptionsAreRefused() {
        #expect(error(["a.yaml"]) == "unexpected argument 'a.yaml': prog takes options only")
        #expect(error(["--check-config", "-"]) == "unexpected argument '-': prog takes options only")
    }

    @Test func helpListsEveryVisibleOptionWithItsValue() {
        let help = Self.spec.helpText
        #expect(help.hasPrefix("OVERVIEW: A program.\n"))
        for line in ["--config <file>", "--check-config", "--runtime-dir <dir>", "--version", "-h, --help"] {
            #expect(help.contains(line), "\(line) not in\n\(help)")
        }
        #expect(!help.contains("generate-completion-script"))
        #expect(Self.spec.usage == "USAGE: prog [--config <file>] [--check-config] [--runtime-dir <dir>]")
    }

    @Test func helpWrapsAtEightyColumns() {
        let long = CommandLineSpec(
            program: "p",
            abstract: String(repeating: "word ", count: 40),
            version: "p 1",
            options: [.flag("a-rather-long-option-name", help: String(repeating: "help ", count: 30))]
        )
        let lines = long.helpText.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(lines)")
        #expect(lines.contains("  --a-rather-long-option-name"))
        #expect(lines.filter { $0.hasPrefix(String(repeating: " ", count: 26) + "help") }.count >= 3)
    }

    @Test func completionScriptsNameEveryOptionAndItsValues() {
        let bash = Self.spec.completionScript(for: .bash)
        #expect(!bash.hasPrefix("#!"))
        #expect(bash.contains("--config) COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;"))
        #expect(bash.contains("--runtime-dir) COMPREPLY=( $(compgen -d -- \"$cur\") ); return ;;"))
        #expect(
            bash.contains(
                "compgen -W \"--config --check-config --runtime-dir --generate-completion-script --version -h --help\""
            )
        )
        #expect(bash.contains("complete -F _prog prog"))

        let zsh = Self.spec.completionScript(for: .zsh)
        #expect(zsh.hasPrefix("#compdef prog\n"))
        #expect(zsh.contains("'--config[The configuration file.]:file:_files'"))
        #expect(zsh.contains("'--runtime-dir[The runtime directory.]:dir:_files -/'"))
        #expect(zsh.contains("'(-h --help)'{-h,--help}'[Show help information.]'"))
        #expect(
            zsh.contains(
                "'--generate-completion-script[Print a completion script for bash, zsh or fish.]:shell:(bash zsh fish)'"
            )
        )

        let fish = Self.spec.completionScript(for: .fish)
        #expect(fish.contains("complete -c prog -l config -r -F -d 'The configuration file.'"))
        #expect(fish.contains("complete -c prog -l check-config -d 'Check it.'"))
        #expect(fish.contains("complete -c prog -s h -l help -d 'Show help information.'"))
        #expect(fish.contains("complete -c prog -l generate-completion-script -x -a 'bash zsh fish'"))
    }

    @Test func helpTextsAreQuotedForTheShells() {
        let spec = CommandLineSpec(
            program: "p",
            abstract: "",
            version: "p 1",
            options: [.flag("odd", help: "It's [odd]: really. Second sentence.")]
        )
        #expect(spec.completionScript(for: .zsh).contains("'--odd[It'\\''s \\[odd\\]\\: really.]'"))
        #expect(spec.completionScript(for: .fish).contains("-l odd -d 'It\\'s [odd]: really.'"))
    }

    @Test func editDistance() {
        #expect(CommandLineOptions.editDistance("", "abc") == 3)
        #expect(CommandLineOptions.editDistance("abc", "") == 3)
        #expect(CommandLineOptions.editDistance("confg", "config") == 1)
        #expect(CommandLineOptions.editDistance("kitten", "sitting") == 3)
    }
}
