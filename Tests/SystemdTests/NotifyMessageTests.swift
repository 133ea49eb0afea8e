import Systemd
import Testing

@Suite("sd_notify message formats")
struct NotifyMessageTests {
    @Test("each assignment is one NAME=value line; + keeps them in one datagram, in order")
    func formats() {
        #expect(NotifyMessage.ready.description == "READY=1\n")
        #expect(NotifyMessage.stopping.description == "STOPPING=1\n")
        #expect(NotifyMessage.watchdog.description == "WATCHDOG=1\n")
        let combined = NotifyMessage.ready + .status("2 accessories ready; 0 clients")
        #expect(combined.description == "READY=1\nSTATUS=2 accessories ready; 0 clients\n")
        #expect(combined.bytes == Array("READY=1\nSTATUS=2 accessories ready; 0 clients\n".utf8))
    }

    @Test("a status stays on one line: newlines and control characters become spaces")
    func statusIsOneLine() {
        let m = NotifyMessage.status("line one\nREADY=1\r\tend\u{7F}")
        #expect(m.fields == [NotifyMessage.Field("STATUS", "line one READY=1  end ")])
        #expect(m.description.filter { $0 == "\n" }.count == 1)
        #expect(NotifyMessage.status("Grüße ✓").description == "STATUS=Grüße ✓\n")
    }

    @Test("RELOADING=1 carries MONOTONIC_USEC (Type=notify-reload needs it)")
    func reloading() {
        let m = NotifyMessage.reloading(monotonicMicroseconds: 123_456_789)
        #expect(m.description == "RELOADING=1\nMONOTONIC_USEC=123456789\n")
    }
}
