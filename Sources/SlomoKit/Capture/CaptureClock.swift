import Foundation
import SlomoCore

/// The clocks capture compares: CLOCK_MONOTONIC (V4L2's buffer clock, trigger events) and
/// CLOCK_REALTIME (wall time for reports), to the microsecond as V4L2 stamps buffers.
enum CaptureClock {
    static func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> Rational {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return time(ts)
    }

    /// The wall-clock time (CLOCK_REALTIME) of monotonic time `t`: the two clocks' difference,
    /// read back to back once per process (so the file and the report agree to the microsecond),
    /// added to `t`.
    static func wallTime(ofMonotonic t: Rational) -> Rational { t + wallOffset }
    private static let wallOffset: Rational = { let mono = now(CLOCK_MONOTONIC); return now(CLOCK_REALTIME) - mono }()

    /// A wall-clock time as ISO 8601 UTC with microseconds, as MP4/MOV/Matroska's `creation_time`.
    static func iso8601Micros(_ t: Rational) -> String {
        let micros = (t * Rational(1_000_000)).floor
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        let whole = f.string(from: Date(timeIntervalSince1970: TimeInterval(micros / 1_000_000)))
        let fraction = String(format: "%06lld", micros % 1_000_000)
        return whole.replacingOccurrences(of: "Z", with: ".\(fraction)Z")
    }

    /// A `timespec` as exact seconds, truncated to the microsecond.
    static func time(_ ts: timespec) -> Rational {
        Rational(Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000, 1_000_000)
    }
}
