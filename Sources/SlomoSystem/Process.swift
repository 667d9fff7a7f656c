import CPOSIX
import Glibc

/// The process and its threads: identity, children, memory locking and scheduling.
public enum CurrentProcess {
    public static var id: Int32 { getpid() }

    /// A process with this id exists (`kill(pid, 0)`; one of another user's counts too).
    public static func exists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

    /// Keeps `count` bytes at `address` in RAM (`mlock`); when refused, raises RLIMIT_MEMLOCK (root
    /// may) and tries once more. Throws the first refusal's errno.
    public static func lockInMemory(_ address: UnsafeRawPointer, _ count: Int) throws(Errno) {
        if mlock(address, count) == 0 { return }
        let first = Errno.current
        var unlimited = rlimit(rlim_cur: rlim_t.max, rlim_max: rlim_t.max)  // RLIM_INFINITY
        guard setrlimit(__rlimit_resource_t(UInt32(CPOSIX_RLIMIT_MEMLOCK)), &unlimited) == 0,
            mlock(address, count) == 0
        else { throw first }
    }

    public static func unlock(_ address: UnsafeRawPointer, _ count: Int) { _ = munlock(address, count) }

    /// The calling thread on SCHED_FIFO at `priority` (capped at the system's maximum).
    public static func scheduleRealTime(priority: Int32) throws(Errno) -> Int32 {
        var param = sched_param()
        param.sched_priority = Swift.min(priority, sched_get_priority_max(Int32(SCHED_FIFO)))
        let rc = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param)
        guard rc == 0 else { throw Errno(rc) }
        return param.sched_priority
    }

    /// The calling thread's nice value (Linux applies `setpriority` to the calling thread only;
    /// threads it starts inherit it).
    public static func setNice(_ value: Int32) throws(Errno) {
        _ = try retryingInterrupts { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value) }
    }

    /// Names the calling thread as `ps -L`, `top -H` and /proc/self/task/*/comm show it (at most
    /// 15 bytes are kept).
    public static func nameThread(_ name: String) {
        _ = cposix_name_thread(String(decoding: name.utf8.prefix(15), as: UTF8.self))
    }

    /// Sleeps the calling thread (for pacing loops; never for waiting on an event).
    public static func sleep(microseconds: Int) {
        var asked = timespec(tv_sec: microseconds / 1_000_000, tv_nsec: microseconds % 1_000_000 * 1000)
        var left = timespec()
        while nanosleep(&asked, &left) == -1 && errno == EINTR { asked = left }
    }
}

/// The kernel's clocks, read as seconds and nanoseconds (the callers make them exact `Rational`s).
public enum Clock {
    public static let monotonic = CLOCK_MONOTONIC
    public static let realTime = CLOCK_REALTIME
    public static let threadCPUTime = CLOCK_THREAD_CPUTIME_ID

    /// `clock_gettime(clock)`.
    public static func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> (seconds: Int64, nanoseconds: Int64) {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return (Int64(ts.tv_sec), Int64(ts.tv_nsec))
    }

    /// `clock_gettime(clock)` in whole microseconds (the nanoseconds truncated).
    public static func microseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> Int64 {
        let t = now(clock)
        return t.seconds * 1_000_000 + t.nanoseconds / 1000
    }
}
