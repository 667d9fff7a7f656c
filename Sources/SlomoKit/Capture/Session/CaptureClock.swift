import Foundation
import SlomoCore
import SlomoSystem

/// The clocks capture compares: CLOCK_MONOTONIC (V4L2's buffer clock, trigger events) and
/// CLOCK_REALTIME (wall time for reports), to the microsecond as V4L2 stamps buffers.
enum CaptureClock {
    static func now(_ clock: clockid_t = Clock.monotonic) -> Rational {
        let t = Clock.now(clock)
        return time(seconds: t.seconds, nanoseconds: t.nanoseconds)
    }

    /// The wall-clock time (CLOCK_REALTIME) of monotonic time `t`: the two clocks' difference,
    /// read back to back once per process (so the file and the report agree to the microsecond),
    /// added to `t`.
    static func wallTime(ofMonotonic t: Rational) -> Rational { t + wallOffset }
    private static let wallOffset: Rational = {
        let mono = now(Clock.monotonic)
        return now(Clock.realTime) - mono
    }()

    /// A wall-clock time as ISO 8601 UTC with microseconds, as MP4/MOV/Matroska's `creation_time`.
    /// Formatted by hand with `gmtime_r`: it runs on the writer thread at the first frame, and
    /// Foundation's formatter loads ICU on first use (seconds under the test VM's emulation, while
    /// the sound card's buffer fills).
    static func iso8601Micros(_ t: Rational) -> String {
        let micros = Swift.max(0, (t * Rational(1_000_000)).floor)
        var seconds = time_t(micros / 1_000_000)
        var c = tm()
        gmtime_r(&seconds, &c)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: Swift.max(0, width - s.count)) + s
        }
        return "\(pad(Int64(c.tm_year) + 1900, 4))-\(pad(Int64(c.tm_mon) + 1, 2))-\(pad(Int64(c.tm_mday), 2))T"
            + "\(pad(Int64(c.tm_hour), 2)):\(pad(Int64(c.tm_min), 2)):\(pad(Int64(c.tm_sec), 2)).\(pad(micros % 1_000_000, 6))Z"
    }

    /// A kernel time (seconds, nanoseconds) as exact seconds, truncated to the microsecond.
    static func time(seconds: Int64, nanoseconds: Int64) -> Rational {
        Rational(seconds * 1_000_000 + nanoseconds / 1000, 1_000_000)
    }
}
