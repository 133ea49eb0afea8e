import AccessoryConfig
import Testing

@testable import AccessoryCore

/// The name a view's pty is kept under across a restart: made of every setting by name, so it
/// stays the same from one release to the next (the name of a view as the daemon wrote it must
/// be found by the next daemon, possibly a newer one) and changes with any setting.
///
/// Threading: a pure value test; any thread.
@Suite struct ViewKeptNameTests {
    static let view = ViewSettings(pty: "gps", mode: .monitor, group: .name("dialout"), perm: 0o640)

    @Test func theTextTheNameIsMadeOfListsEverySettingByName() {
        #expect(
            DeviceDescriptorStoreName.identity(of: Self.view)
                == "pty=gps mode=monitor owner=- group=name:dialout perm=640 buffer_bytes=65536 idle_ms=-"
        )
        #expect(DeviceDescriptorStoreName.forView(accessory: "gps", settings: Self.view).hasPrefix("view.gps."))
    }

    @Test func anyChangedSettingGivesAnotherName() {
        let name = DeviceDescriptorStoreName.forView(accessory: "gps", settings: Self.view)
        var changes: [ViewSettings] = []
        for index in 0..<7 {
            var v = Self.view
            switch index {
            case 0: v.pty = "gps2"
            case 1: v.mode = .shared
            case 2: v.owner = .id(1000)
            case 3: v.group = .id(20)
            case 4: v.perm = 0o660
            case 5: v.bufferBytes = 4096
            default: v.idleMs = 500
            }
            changes.append(v)
        }
        for changed in changes {
            #expect(DeviceDescriptorStoreName.forView(accessory: "gps", settings: changed) != name, "\(changed)")
        }
    }
}
