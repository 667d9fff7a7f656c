import Foundation
import SlomoSystem

/// The calling thread's scheduling: real time for the threads that must never wait (a camera's,
/// a sound card's), a raised nice value for the ones that must never be in their way (encoders,
/// the preview). Linux applies `setpriority` to the calling thread only; threads it starts inherit it.
enum ThreadPriority {
    /// SCHED_FIFO 50 where allowed (root, CAP_SYS_NICE, an rtprio limit), else nice −10, else
    /// nothing; says which.
    static func raise() -> String {
        let refusal: Errno
        do throws(Errno) { return "SCHED_FIFO \(try CurrentProcess.scheduleRealTime(priority: 50))" } catch { refusal = error }
        if nice(-10) { return "nice -10 (SCHED_FIFO refused: \(refusal.words))" }
        return "normal (SCHED_FIFO and nice refused: \(refusal.words); run as root or grant CAP_SYS_NICE)"
    }

    /// nice +10; says which.
    static func lower() -> String { nice(10) ? "nice 10" : "normal" }

    /// Sets the calling thread's nice value; false when refused.
    @discardableResult
    static func nice(_ value: Int32) -> Bool { (try? CurrentProcess.setNice(value)) != nil }
}
