import SystemCalls

/// The shared libraries an ELF64 little-endian executable names in its dynamic section
/// (`DT_NEEDED`), read from the file: what `ldd` starts from, without running the loader.
///
/// Threading: a value. Any thread.
struct ELFDynamic {
    let needed: [String]

    init(path: String) throws {
        let bytes = try FileIO.readFile(path, limit: 1 << 30)
        guard bytes.count >= 64, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46 else {
            throw HarnessError("\(path) is not an ELF file")
        }
        guard bytes[4] == 2, bytes[5] == 1 else { throw HarnessError("\(path) is not ELF64 little-endian") }
        func integer(_ offset: Int, _ size: Int) throws -> Int {
            guard offset >= 0, offset + size <= bytes.count else {
                throw HarnessError("\(path): ELF structure points past the end of the file")
            }
            var value: UInt64 = 0
            for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
            return Int(truncatingIfNeeded: value)
        }
        // Section headers: the SHT_DYNAMIC section and, through its sh_link, its string table.
        let sectionsAt = try integer(0x28, 8)
        let sectionSize = try integer(0x3A, 2)
        let sectionCount = try integer(0x3C, 2)
        var found: [String] = []
        for index in 0..<sectionCount {
            let header = sectionsAt + index * sectionSize
            guard try integer(header + 4, 4) == 6 else { continue }  // SHT_DYNAMIC
            let dynamicAt = try integer(header + 0x18, 8)
            let dynamicSize = try integer(header + 0x20, 8)
            let strings = sectionsAt + (try integer(header + 0x28, 4)) * sectionSize
            let stringsAt = try integer(strings + 0x18, 8)
            for entry in stride(from: dynamicAt, to: dynamicAt + dynamicSize, by: 16) {
                let tag = try integer(entry, 8)
                if tag == 0 { break }  // DT_NULL
                guard tag == 1 else { continue }  // DT_NEEDED
                var cursor = stringsAt + (try integer(entry + 8, 8))
                var name: [UInt8] = []
                while cursor < bytes.count, bytes[cursor] != 0 {
                    name.append(bytes[cursor])
                    cursor += 1
                }
                found.append(String(decoding: name, as: UTF8.self))
            }
        }
        needed = found
    }
}
