import Glibc
import SystemCalls
import YAMLTree

extension SimulatorScript {
    /// Reads and parses a script file (format in ``SimulatorScript``). Any thread.
    package static func load(path: String) throws(SimulatorError) -> SimulatorScript {
        let text: String
        do throws(SyscallError) {
            text = try readWholeFile(path)
        } catch {
            throw .script(file: path, line: 0, message: "cannot read: \(error)")
        }
        return try parse(text, file: path)
    }

    /// Parses script text; `file` names it in errors. Any thread.
    package static func parse(_ yaml: String, file: String = "<script>") throws(SimulatorError) -> SimulatorScript {
        let root: Node?
        do throws(YAMLError) {
            root = try YAML.compose(yaml: yaml)
        } catch {
            throw .script(file: file, line: error.line ?? 0, message: "not valid YAML: \(error)")
        }
        let p = ScriptParser(file: file)
        guard let root else { throw p.error(nil, "the script is empty") }
        return try p.script(root)
    }

    private static func readWholeFile(_ path: String) throws(SyscallError) -> String {
        let fd = try FileIO.open(path, flags: O_RDONLY)
        var bytes: [UInt8] = []
        while true {
            guard let chunk = try FileIO.read(fd.rawValue, max: 65_536) else { continue }
            if chunk.isEmpty { break }
            bytes += chunk
            if bytes.count > 4 << 20 { throw SyscallError(.read, .fileTooLarge) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Turns a YAML node tree into a ``SimulatorScript``, with file:line errors. Any thread.
private struct ScriptParser {
    let file: String

    func error(_ node: Node?, _ message: String) -> SimulatorError {
        .script(file: file, line: node?.mark?.line ?? 0, message: message)
    }

    func script(_ root: Node) throws(SimulatorError) -> SimulatorScript {
        if root.sequence != nil { return SimulatorScript(steps: try steps(root)) }
        guard let mapping = root.mapping else { throw error(root, "expected a list of steps or a mapping") }
        var script = SimulatorScript(steps: [])
        var sawSteps = false
        for (key, value) in mapping {
            switch key.string ?? "" {
            case "steps":
                script.steps = try steps(value)
                sawSteps = true
            case "mode":
                guard let m = value.string.flatMap(SimulatorScript.Mode.init(rawValue:)) else {
                    throw error(value, "mode must be rules or sequence")
                }
                script.mode = m
            case "terminator":
                guard let t = value.string.flatMap(LineTerminator.init(rawValue:)), t != .none else {
                    throw error(value, "terminator must be lf, crlf, cr or any")
                }
                script.terminator = t
            case "reply_terminator":
                guard let s = value.string else { throw error(value, "reply_terminator must be a string") }
                script.replyTerminator = Array(s.utf8)
            case "unmatched":
                script.unmatched = try lines(value, key: "unmatched")
            default:
                throw error(key, "unknown key \"\(key.string ?? "?")\"")
            }
        }
        if !sawSteps { throw error(root, "missing key \"steps\"") }
        return script
    }

    func steps(_ node: Node) throws(SimulatorError) -> [SimulatorScript.Step] {
        guard let list = node.sequence else { throw error(node, "steps must be a list") }
        var out: [SimulatorScript.Step] = []
        for item in list { out.append(try step(item)) }
        if out.isEmpty { throw error(node, "the script has no steps") }
        return out
    }

    func step(_ node: Node) throws(SimulatorError) -> SimulatorScript.Step {
        guard let mapping = node.mapping else { throw error(node, "a step must be a mapping with expect and send") }
        var expect: String?
        var send: [String]?
        var delay = Duration.zero
        for (key, value) in mapping {
            switch key.string ?? "" {
            case "expect":
                guard let s = value.string else { throw error(value, "expect must be a string") }
                if s.isEmpty { throw error(value, "expect is empty") }
                expect = s
            case "send":
                send = try lines(value, key: "send")
            case "delay_ms":
                guard let ms = value.int, ms >= 0 else { throw error(value, "delay_ms must be a whole number ≥ 0") }
                delay = .milliseconds(ms)
            default:
                throw error(key, "unknown key \"\(key.string ?? "?")\" in a step (expect, send, delay_ms)")
            }
        }
        guard let expect else { throw error(node, "a step needs expect") }
        return SimulatorScript.Step(expect: expect, send: send, delay: delay, line: node.mark?.line ?? 0)
    }

    func lines(_ node: Node, key: String) throws(SimulatorError) -> [String] {
        if let list = node.sequence {
            var out: [String] = []
            for item in list {
                guard let s = item.string else { throw error(item, "\(key) must be a string or a list of strings") }
                out.append(s)
            }
            return out
        }
        guard let s = node.string else { throw error(node, "\(key) must be a string or a list of strings") }
        return [s]
    }
}
