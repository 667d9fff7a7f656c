import Glibc
import Synchronization

/// The process's signals, owned by the application: it calls ``own()`` once at the start of `main`
/// (the command line, a sample, a test runner) and nothing in the library installs a handler.
/// One handler serves every signal slomo uses:
///
/// - SIGINT, SIGTERM: raise ``interrupt``, pass SIGINT on to the child processes registered with
///   ``trackChild(_:)`` (a batch's jobs), and then either leave the stop to the run (after
///   ``interruptsStopTheRun()``: a capture finishes its file, a batch its report) or remove the
///   partial outputs registered with ``registerPartial(_:shownAs:)``, say which on stderr and exit
///   with 130.
/// - SIGUSR1: the instant it arrived (CLOCK_MONOTONIC, taken in the handler) goes into a pipe that
///   ``userSignalTimes`` reads, so none is lost or merged (`--trigger signal`).
///
/// The handler only makes async-signal-safe calls (an atomic store, `kill`, `unlink`, `write`,
/// `clock_gettime`, `_exit`) on tables prepared in advance, and keeps `errno` as it found it.
public enum ProcessSignals {
    /// Raised by SIGINT and SIGTERM.
    public static let interrupt = StopToken()
    private static let stopsTheRun = Atomic<Int32>(0)
    private static let stoppedBy = Atomic<Int32>(0)
    private static let owned = Atomic<Int32>(0)
    nonisolated(unsafe) private static var timesWrite: Int32 = -1
    nonisolated(unsafe) private static var timesRead: Int32 = -1

    /// Installs the one handler (once; later calls do nothing) and unblocks the signals: a parent
    /// (a test runner, a job scheduler, a script's interpreter) may hand them over blocked.
    public static func own() {
        guard owned.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        // every table the handler reads exists before the handler does
        _ = interrupt.isRaised
        _ = stopsTheRun.load(ordering: .relaxed)
        _ = stoppedBy.load(ordering: .relaxed)
        Children.prepare()
        Partials.prepare()
        var fds: [Int32] = [0, 0]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            timesRead = fds[0]
            timesWrite = fds[1]
        }
        let handler: @convention(c) (Int32) -> Void = { sig in
            let saved = errno
            if sig == SIGUSR1 {
                var ts = timespec()
                clock_gettime(CLOCK_MONOTONIC, &ts)
                _ = withUnsafeBytes(of: &ts) { write(ProcessSignals.timesWrite, $0.baseAddress, $0.count) }
            } else {
                _ = ProcessSignals.stoppedBy.compareExchange(expected: 0, desired: sig, ordering: .relaxed)
                ProcessSignals.interrupt.raise()
                Children.signalAll()
                if ProcessSignals.stopsTheRun.load(ordering: .relaxed) == 0 { Partials.removeAllAndExit() }
            }
            errno = saved
        }
        var set = sigset_t()
        sigemptyset(&set)
        for sig in [SIGINT, SIGTERM, SIGUSR1] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(sig, &action, nil)
            sigaddset(&set, sig)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The signal that raised ``interrupt`` first (SIGINT or SIGTERM), nil before one came.
    public static var stoppingSignal: Int32? {
        let s = stoppedBy.load(ordering: .relaxed)
        return s == 0 ? nil : s
    }

    /// Whether the application owns the signals (``own()`` was called).
    public static var isOwned: Bool { owned.load(ordering: .acquiring) != 0 }

    /// From now on SIGINT/SIGTERM only raise ``interrupt`` (and reach the children): the running
    /// work stops on its own, cleanly. Before this they remove partial outputs and exit with 130.
    public static func interruptsStopTheRun() { stopsTheRun.store(1, ordering: .releasing) }

    /// A closed pipe no longer ends the process: writing to it fails with EPIPE where it happens
    /// (a batch child gone before it read its request; a preview reader gone).
    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// The read end of the SIGUSR1 pipe: one `timespec` (CLOCK_MONOTONIC) per signal. Nil unless owned.
    public static var userSignalTimes: FileDescriptor? { timesRead < 0 ? nil : FileDescriptor(rawValue: timesRead) }

    /// Empties the SIGUSR1 pipe (signals from before a session are not its own).
    public static func discardUserSignals() {
        guard timesRead >= 0 else { return }
        var stale = timespec()
        while withUnsafeMutableBytes(of: &stale, { read(timesRead, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// The next SIGUSR1's instant (seconds, nanoseconds on CLOCK_MONOTONIC), waiting up to
    /// `milliseconds`; nil when none came.
    public static func nextUserSignal(milliseconds: Int32) -> (seconds: Int64, nanoseconds: Int64)? {
        guard let fd = userSignalTimes, fd.waitForInput(milliseconds: milliseconds) else { return nil }
        var ts = timespec()
        let n = withUnsafeMutableBytes(of: &ts) { read(timesRead, $0.baseAddress, $0.count) }
        guard n == MemoryLayout<timespec>.size else { return nil }
        return (Int64(ts.tv_sec), Int64(ts.tv_nsec))
    }

    /// A child process the interrupt is passed on to (SIGINT), until ``untrackChild(_:)``.
    public static func trackChild(_ pid: Int32) { Children.track(pid) }
    public static func untrackChild(_ pid: Int32) { Children.untrack(pid) }

    /// A partial output the interrupt removes (unless the run stops on its own), shown as `name`
    /// in the line that says so; until ``unregisterPartial(_:)``.
    public static func registerPartial(_ path: String, shownAs name: String) { Partials.shared.register(path, name) }
    public static func unregisterPartial(_ path: String) { Partials.shared.unregister(path) }
}

/// The children an interrupt reaches: a fixed table of pids the handler reads without a lock.
enum Children {
    static let capacity = 256
    nonisolated(unsafe) static let pids: UnsafeMutablePointer<pid_t> = {
        let p = UnsafeMutablePointer<pid_t>.allocate(capacity: capacity)
        p.initialize(repeating: 0, count: capacity)
        return p
    }()
    static let lock = Mutex<Void>(())

    static func prepare() {
        _ = pids
        lock.withLock { _ in }
    }

    static func signalAll() {
        var i = 0
        while i < capacity {
            if pids[i] > 0 { kill(pids[i], SIGINT) }
            i += 1
        }
    }

    static func track(_ pid: pid_t) {
        lock.withLock { _ in
            for i in 0..<capacity where pids[i] == 0 {
                pids[i] = pid
                return
            }
        }
    }

    static func untrack(_ pid: pid_t) {
        lock.withLock { _ in for i in 0..<capacity where pids[i] == pid { pids[i] = 0 } }
    }
}
