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

    /// A `timespec` as exact seconds, truncated to the microsecond.
    static func time(_ ts: timespec) -> Rational {
        Rational(Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000, 1_000_000)
    }
}
