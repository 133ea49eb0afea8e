/// The release of accessoryd, accessoryctl and accessory-sim: the one place it is written.
/// The Makefile reads `number` from this file for the Debian package's version.
///
/// Threading: constants. Any thread.
public enum AccessoryVersion {
    public static let number = "0.2.0"

    /// What `PROGRAM --version` prints: `accessoryd 0.2.0`.
    public static func line(_ program: String) -> String { program + " " + number }
}
