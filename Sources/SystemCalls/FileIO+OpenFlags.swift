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
        public static let create = O_CREAT
        /// Every write goes to the end, whoever else writes the file.
        public static let append = O_APPEND
        /// A symbolic link as the last part of the path is refused (`ELOOP`), so that nobody can
        /// point a file name the program writes at another file.
        public static let noFollow = O_NOFOLLOW
    }
}
