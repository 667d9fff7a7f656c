import Glibc

/// The file-system calls SlomoKit makes: each one throws `Errno` and retries EINTR.
public enum Files {
    /// Identity and kind of a file (`stat`).
    public struct Status: Sendable, Equatable {
        public var device: UInt64
        public var inode: UInt64
        public var isRegular: Bool
        public var isDirectory: Bool
    }

    /// `stat(2)`: follows links.
    public static func status(_ path: String) throws(Errno) -> Status {
        var st = stat()
        _ = try retryingInterrupts { stat(path, &st) }
        return Status(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino),
            isRegular: st.st_mode & S_IFMT == S_IFREG, isDirectory: st.st_mode & S_IFMT == S_IFDIR)
    }

    /// True when both names reach one existing file (same device and inode: links and `./` too).
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        guard let x = try? status(a), let y = try? status(b) else { return false }
        return x.device == y.device && x.inode == y.inode
    }

    /// The caller may create files in `directory` (`access(W_OK)`).
    public static func isWritable(_ directory: String) -> Bool { access(directory, W_OK) == 0 }

    /// The numbered nodes `/dev/PREFIXN` (`video`, `gpiochip`), in the order of their numbers.
    public static func numberedDevices(_ prefix: String) -> [String] {
        guard let dir = opendir("/dev") else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(prefix), let n = Int(name.dropFirst(prefix.count)), n >= 0 { numbers.append(n) }
        }
        return numbers.sorted().map { "/dev/\(prefix)\($0)" }
    }

    /// `rename(2)`: atomic within one file system.
    public static func rename(_ from: String, to: String) throws(Errno) {
        _ = try retryingInterrupts { Glibc.rename(from, to) }
    }

    /// `unlink(2)`.
    public static func remove(_ path: String) throws(Errno) {
        _ = try retryingInterrupts { unlink(path) }
    }
}

/// An open file descriptor, closed by `close()` (not by deinit: a descriptor is a value here, as
/// the kernel's is a number).
public struct FileDescriptor: Sendable, Equatable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardError = FileDescriptor(rawValue: 2)

    /// Opens an existing file for reading (`O_RDONLY | O_CLOEXEC`).
    public static func openForReading(_ path: String) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC) })
    }

    /// Creates a new file only its owner can read and write (`O_CREAT | O_EXCL`, mode 0600 from the
    /// first instant: a secret is never readable by others, even briefly), writes `bytes`, closes it.
    public static func createPrivate(_ path: String, bytes: [UInt8]) throws(Errno) {
        let fd = try retryingInterrupts { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        defer { _ = Glibc.close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { b in Glibc.write(fd, b.baseAddress! + done, b.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno(errno)
            }
            done += n
        }
        _ = try retryingInterrupts { fsync(fd) }
    }

    /// Creates (or truncates) a file for writing (`O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC`, mode 0644
    /// less the umask).
    public static func createForWriting(_ path: String) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) })
    }

    /// `pwrite(2)` of all of `bytes` at `offset`, through short writes and interrupts.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(Errno) {
        var done = 0
        while done < bytes.count {
            let n = Glibc.pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw Errno(errno)
            }
            done += n
        }
    }

    /// `fdatasync(2)`: the file's data (and the metadata needed to read it) reach the disk.
    public func dataSync() throws(Errno) { _ = try retryingInterrupts { fdatasync(rawValue) } }

    public func close() { _ = Glibc.close(rawValue) }

    /// Waits up to `milliseconds` (-1: for ever) until a read would not block. False on timeout.
    public func waitForInput(milliseconds: Int32) -> Bool {
        var p = pollfd(fd: rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, milliseconds) > 0
    }

    /// `read(2)` into `buffer`: the bytes read, 0 at the end of input.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try retryingInterrupts { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Whether this descriptor is a terminal.
    public var isTerminal: Bool { isatty(rawValue) != 0 }
}
