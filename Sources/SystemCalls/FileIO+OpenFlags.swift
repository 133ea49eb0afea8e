import Glibc

extension FileIO {
    /// `open` flags for callers that do not import Glibc. Any thread (constants).
    public enum OpenFlag {
        public static let readOnly = O_RDONLY
        public static let writeOnly = O_WRONLY
        public static let readWrite = O_RDWR
        public static let nonBlocking = O_NONBLOCK
        /// Opening a terminal does not make it the process's controlling terminal.
        public static let noControllingTerminal = O_NOCTTY
    }
}
