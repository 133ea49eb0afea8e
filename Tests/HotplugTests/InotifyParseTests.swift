import SystemCalls
import Testing

@Suite("inotify records")
struct InotifyParseTests {
    /// One `struct inotify_event` as the kernel lays it out: four 32-bit fields in host order,
    /// then the name NUL-padded to `len` bytes.
    static func record(wd: Int32, mask: Inotify.Mask, cookie: UInt32, name: String, padTo len: Int) -> [UInt8] {
        var out: [UInt8] = []
        for field in [UInt32(bitPattern: wd), mask.rawValue, cookie, UInt32(len)] {
            out += withUnsafeBytes(of: field) { Array($0) }
        }
        let bytes = Array(name.utf8)
        return out + bytes + [UInt8](repeating: 0, count: len - bytes.count)
    }

    @Test("records split with their padded names; a truncated last record is dropped")
    func parse() {
        let a = Self.record(wd: 1, mask: [.movedFrom], cookie: 7, name: "x.tmp-1", padTo: 16)
        let b = Self.record(wd: 1, mask: [.movedTo], cookie: 7, name: "x", padTo: 16)
        let c = Self.record(wd: 2, mask: [.deleteSelf], cookie: 0, name: "", padTo: 0)
        let events = (a + b + c + b.prefix(20)).withUnsafeBytes { Inotify.parse($0) }
        #expect(
            events == [
                .init(watch: 1, mask: .movedFrom, cookie: 7, name: "x.tmp-1"),
                .init(watch: 1, mask: .movedTo, cookie: 7, name: "x"),
                .init(watch: 2, mask: .deleteSelf),
            ]
        )
    }
}
