/// One frame written by `slomo convert`, as `frames.csv`, `--json` and the files' own tags give it.
public struct LabFrameRow: Sendable, Equatable, Codable {
    /// Its place in the output, from 0.
    public var index: Int
    /// Its place in the source file, from 0.
    public var sourceIndex: Int
    /// Frames from the trigger frame (negative before it); the trigger frame is 0.
    public var fromTrigger: Int
    /// The frame's time on the recording's clock (seconds; `LabFrameTable.clock` says which).
    public var time: Rational
    /// `time` minus the trigger frame's.
    public var timeFromTrigger: Rational
    /// Until the next frame of the source (the last: until the recording's end).
    public var duration: Rational
    /// The camera driver's sequence number, where the recording says it exactly.
    public var sequence: Int64?

    public init(
        index: Int, sourceIndex: Int, fromTrigger: Int, time: Rational, timeFromTrigger: Rational, duration: Rational, sequence: Int64?
    ) {
        self.index = index
        self.sourceIndex = sourceIndex
        self.fromTrigger = fromTrigger
        self.time = time
        self.timeFromTrigger = timeFromTrigger
        self.duration = duration
        self.sequence = sequence
    }
}

/// The rows of the frames a conversion keeps, from the source's frame times (pure).
public struct LabFrameTable: Sendable, Equatable {
    /// Every source frame's time on the recording's clock, sorted.
    public var times: [Rational]
    /// Where the last source frame ends, on the same clock.
    public var end: Rational
    /// The trigger frame's index in the source (0, the first frame, when the recording names none).
    public var triggerFrame: Int
    /// The driver's sequence number of source frame 0, when every later frame's is that plus its index.
    public var firstSequence: Int64?

    public init(times: [Rational], end: Rational, triggerFrame: Int, firstSequence: Int64? = nil) {
        self.times = times
        self.end = end
        self.triggerFrame = triggerFrame
        self.firstSequence = firstSequence
    }

    /// The trigger frame's time: the first frame's when the trigger index lies outside the source.
    public var triggerTime: Rational { times.indices.contains(triggerFrame) ? times[triggerFrame] : times.first ?? .zero }

    /// The row of source frame `sourceIndex`, written as output frame `index`.
    public func row(index: Int, sourceIndex i: Int) -> LabFrameRow {
        let next = i + 1 < times.count ? times[i + 1] : end
        return LabFrameRow(
            index: index, sourceIndex: i, fromTrigger: i - triggerFrame, time: times[i], timeFromTrigger: times[i] - triggerTime,
            duration: next - times[i], sequence: firstSequence.map { $0 + Int64(i) })
    }

    /// The header of `frames.csv`.
    public static let csvHeader = "index,source_index,from_trigger,time_s,time_from_trigger_s,duration_s,sequence"

    /// `frames.csv`: a header line, then one line per row; times in seconds with 9 decimals
    /// (exact for the µs and ns clocks slomo records; `--json` has them as exact fractions), an
    /// empty `sequence` where it is not known.
    public static func csv(_ rows: [LabFrameRow]) -> String {
        var out = csvHeader + "\n"
        out.reserveCapacity(rows.count * 64)
        for r in rows {
            let seconds = [r.time, r.timeFromTrigger, r.duration].map { Seconds($0, decimals: 9).fixed }
            out += "\(r.index),\(r.sourceIndex),\(r.fromTrigger),\(seconds[0]),\(seconds[1]),\(seconds[2]),\(r.sequence.map(String.init) ?? "")\n"
        }
        return out
    }
}

extension Seconds {
    /// The value with exactly `decimals` decimals (trailing zeros kept, so a column lines up),
    /// computed exactly and rounded once to the nearest.
    public var fixed: String {
        var unit: Int64 = 1
        for _ in 0..<decimals { unit *= 10 }
        let scaled = (value * Rational(unit)).rounded(.nearest)
        let mag = scaled.magnitude
        let frac = String(mag % UInt64(unit))
        let whole = "\(scaled < 0 ? "-" : "")\(mag / UInt64(unit))"
        return decimals == 0 ? whole : whole + "." + String(repeating: "0", count: decimals - frac.count) + frac
    }
}
