/// Frame accounting and interval statistics for a capture, computed from exact timestamps.
public struct CaptureStats: Sendable, Codable {
    public var framesCaptured: Int64 = 0
    /// Sequence-number gaps: frames the driver never delivered.
    public var droppedByDriver: Int64 = 0
    /// Frames slomo discarded because the writer queue was full.
    public var droppedBySlomo: Int64 = 0
    /// Repeated sequence numbers (a driver quirk; the frame is still written).
    public var repeatedSequence: Int64 = 0
    /// Frames delivered damaged (`FrameDamage`: flagged by the driver, incomplete, the wrong size): counted, not stored.
    public var driverErrors: Int64 = 0
    /// Of `driverErrors`: frames with packets missing, and frames of the wrong size (the warning
    /// names the kinds; the JSON keeps the one count).
    public var incompleteFrames: Int64 = 0
    public var wrongSizeFrames: Int64 = 0
    /// Raw frames with fewer bytes than the format needs (`bytesused` short): counted, not stored.
    public var shortFrames: Int64 = 0
    public var firstTimestamp: Rational?
    public var lastTimestamp: Rational?
    /// Every frame-to-frame interval, in microseconds (for percentiles and the plot).
    public var intervalsMicros: [Int64] = []
    private var lastSequence: UInt64?

    public init() {}

    /// Counts one frame delivered damaged.
    public mutating func damaged(_ d: FrameDamage) {
        driverErrors += 1
        switch d {
        case .flagged: break
        case .incomplete: incompleteFrames += 1
        case .sizeMismatch: wrongSizeFrames += 1
        }
    }

    /// How the damaged frames were damaged, for the report's warning.
    public var damageWords: String {
        let flagged = driverErrors - incompleteFrames - wrongSizeFrames
        let kinds = [
            (flagged, "flagged damaged by the driver (V4L2_BUF_FLAG_ERROR)"), (incompleteFrames, "incomplete (packets missing)"),
            (wrongSizeFrames, "of the wrong size"),
        ].filter { $0.0 > 0 }
        if kinds.count == 1 { return "\(driverErrors) frames \(kinds[0].1) were not stored" }
        return "\(driverErrors) damaged frames were not stored (" + kinds.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
    }

    /// Accounts one delivered frame (before any queue drop).
    /// `counter`: how the source numbers frames (a wrap is never a drop).
    public mutating func record(sequence: UInt64, timestamp: Rational, counter: FrameCounter = .v4l2) {
        if let last = lastSequence {
            if sequence == last { repeatedSequence += 1 } else { droppedByDriver += Int64(counter.lost(from: last, to: sequence)) }
        }
        lastSequence = sequence
        if let l = lastTimestamp {
            intervalsMicros.append(((timestamp - l) * Rational(1_000_000)).rounded(.nearest))
        }
        if firstTimestamp == nil { firstTimestamp = timestamp }
        lastTimestamp = timestamp
        framesCaptured += 1
    }

    public var duration: Rational {
        guard let a = firstTimestamp, let b = lastTimestamp else { return .zero }
        return b - a
    }

    /// (frames − 1) / (last − first): the rate frames really arrived at.
    public var achievedFrameRate: Rational? {
        guard framesCaptured > 1, duration.isPositive else { return nil }
        return Rational(framesCaptured - 1) / duration
    }

    /// The `p`th percentile of a sorted, non-empty list: the value at rank ⌊(n − 1)·p/100⌋ (no
    /// interpolation: a measured value). Every percentile slomo reports is this one.
    public static func percentile<T>(_ sorted: [T], _ p: Int) -> T { sorted[Swift.min(sorted.count - 1, (sorted.count - 1) * p / 100)] }

    /// Interval summary in microseconds: mean, p50, p99, max, and jitter as the standard deviation.
    public struct Intervals: Sendable, Codable, Equatable {
        public var meanMicros: Double
        public var p50Micros: Int64
        public var p99Micros: Int64
        public var maxMicros: Int64
        public var minMicros: Int64
        public var stddevMicros: Double
    }

    public var intervals: Intervals? {
        guard !intervalsMicros.isEmpty else { return nil }
        let sorted = intervalsMicros.sorted()
        func pct(_ p: Int) -> Int64 { Self.percentile(sorted, p) }
        let mean = Double(sorted.reduce(0, +)) / Double(sorted.count)
        let variance = sorted.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(sorted.count)
        return Intervals(
            meanMicros: (mean * 10).rounded() / 10, p50Micros: pct(50), p99Micros: pct(99),
            maxMicros: sorted.last!, minMicros: sorted.first!, stddevMicros: (variance.squareRoot() * 10).rounded() / 10)
    }

    enum CodingKeys: String, CodingKey {
        case framesCaptured, droppedByDriver, droppedBySlomo, repeatedSequence, driverErrors, shortFrames, firstTimestamp, lastTimestamp, intervalsMicros
    }
}
