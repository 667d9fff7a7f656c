import Foundation

/// The calling thread's scheduling: real time for the threads that must never wait (a camera's,
/// a sound card's), a raised nice value for the ones that must never be in their way (encoders,
/// the preview). Linux applies `setpriority` to the calling thread only; threads it starts inherit it.
enum ThreadPriority {
    /// SCHED_FIFO 50 where allowed (root, CAP_SYS_NICE, an rtprio limit), else nice −10, else
    /// nothing; says which.
    static func raise() -> String {
        var param = sched_param()
        param.sched_priority = Swift.min(50, sched_get_priority_max(Int32(SCHED_FIFO)))
        let rc = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param)
        if rc == 0 { return "SCHED_FIFO \(param.sched_priority)" }
        if nice(-10) { return "nice -10 (SCHED_FIFO refused: \(String(cString: strerror(rc))))" }
        return "normal (SCHED_FIFO and nice refused: \(String(cString: strerror(rc))); run as root or grant CAP_SYS_NICE)"
    }

    /// nice +10; says which.
    static func lower() -> String { nice(10) ? "nice 10" : "normal" }

    /// Sets the calling thread's nice value; false when refused.
    @discardableResult
    static func nice(_ value: Int32) -> Bool { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, value) == 0 }
}
