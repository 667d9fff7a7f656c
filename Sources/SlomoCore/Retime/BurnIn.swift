/// `--burn-in`: what is drawn into each output frame, and where. Pure: the settings, which source
/// frame an output frame is labelled with, and the label's text; drawing is SlomoKit's (drawtext).
public struct BurnInSettings: Sendable, Equatable {
    /// One line of the label each, in the order given.
    public enum Field: String, Sendable, CaseIterable {
        /// The source frame's number, counted from the trigger frame (else the first).
        case frame
        /// The source frame's time from the trigger frame in milliseconds (3 decimals), in microseconds.
        case ms, us
        /// The source's frame rate (its capture rate when the file records one).
        case rate
        /// The exposure the camera read back (`slomo_controls`), where the recording gives it.
        case exposure
        /// The wall-clock date and time (UTC) of the source frame, from the file's `creation_time`.
        case date
    }
    public enum Corner: String, Sendable, CaseIterable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }
    public var fields: [Field] = [.frame, .ms]
    public var corner = Corner.topLeft
    /// The text's height in pixels; nil: a twentieth of the picture's height, at least 16.
    public var size: Int?
    public init() {}

    public static let sizes = 8...512

    /// The settings from the option texts (`frame,ms`, `bottom-right`, `48`); nil fields: the default.
    public init(fields: String?, corner: String?, size: Int?) throws(SettingError) {
        if let fields {
            var list: [Field] = []
            for name in fields.split(separator: ",", omittingEmptySubsequences: false) {
                let n = name.trimmingCharacters()
                guard let f = Field(rawValue: n) else {
                    throw SettingError(.burnInFields, fields, "'\(n)' is not one of \(Self.names(Field.allCases.map(\.rawValue)))")
                }
                if !list.contains(f) { list.append(f) }
            }
            self.fields = list
        }
        if let corner {
            guard let c = Corner(rawValue: corner) else {
                throw SettingError(.burnInCorner, corner, "expected \(Self.names(Corner.allCases.map(\.rawValue)))")
            }
            self.corner = c
        }
        if let size {
            guard Self.sizes.contains(size) else {
                throw SettingError(.burnInSize, String(size), "expected \(Self.sizes.lowerBound)...\(Self.sizes.upperBound) pixels", quoted: false)
            }
            self.size = size
        }
    }

    static func names(_ list: [String]) -> String { list.dropLast().joined(separator: ", ") + " or " + list.last! }

    /// The text height for a picture `height` pixels high.
    public func textSize(pictureHeight height: Int) -> Int { size ?? Swift.max(16, height / 20) }
}

/// What a recording says about its frames for their labels: each frame's time on the recording's
/// own clock (a file slomo retimed before: its original timing), the frame counted as 0, the rate,
/// the exposure and the UTC time of time 0.
public struct BurnInSource: Sendable {
    public var times: [Rational]
    /// The trigger frame (`slomo_trigger_frame`), else 0: frame numbers and times count from it.
    public var originIndex: Int
    public var frameRate: Rational?
    /// The exposure's text (`1.000 ms`), nil where unknown.
    public var exposure: String?
    /// Seconds since 1970 UTC at time 0 of `times`, from `creation_time`.
    public var utcAtZero: Rational?

    public init(times: [Rational], originIndex: Int, frameRate: Rational? = nil, exposure: String? = nil, utcAtZero: Rational? = nil) {
        self.times = times
        self.originIndex = times.indices.contains(originIndex) ? originIndex : 0
        self.frameRate = frameRate
        self.exposure = exposure
        self.utcAtZero = utcAtZero
    }

    /// The label of source frame `k`: one line per field, in the settings' order.
    public func label(ofFrame k: Int, _ settings: BurnInSettings) -> String {
        let t = times.isEmpty ? .zero : times[k] - times[originIndex]
        return settings.fields.map { field -> String in
            switch field {
            case .frame: return "frame \(k - originIndex)"
            case .ms: return Self.decimal(t * Rational(1000), places: 3) + " ms"
            case .us: return "\((t * Rational(1_000_000)).rounded(.nearest)) us"
            case .rate: return frameRate.map { Self.decimal($0, places: $0.isInteger ? 0 : 3) + " fps" } ?? "rate ?"
            case .exposure: return exposure.map { "exp " + $0 } ?? "exp ?"
            case .date: return utcAtZero.map { UTCText.dateTime($0 + times[k], places: 3) } ?? "date ?"
            }
        }.joined(separator: "\n")
    }

    /// `x` with `places` decimals, rounded to nearest (exact, no Double).
    public static func decimal(_ x: Rational, places: Int) -> String {
        var unit: Int64 = 1
        for _ in 0..<places { unit *= 10 }
        let scaled = (x * Rational(unit)).rounded(.nearest)
        let sign = scaled < 0 ? "-" : "", m = scaled.magnitude
        let whole = m / UInt64(unit), frac = m % UInt64(unit)
        guard places > 0 else { return sign + String(whole) }
        let f = String(frac)
        return sign + String(whole) + "." + String(repeating: "0", count: places - f.count) + f
    }
}

/// Which source frame output frame `n` is labelled with: the one it shows. Holding (`--frame-blend
/// none`): the schedule's own frame (the last at or before the mapped time). A made frame (blend,
/// motion, flow) shows a mix of two: it is labelled with the source frame nearest its source time,
/// the earlier one at exactly halfway.
extension CFRSchedule {
    public func labelledFrameIndex(ofFrame n: Int64, sourceTimes times: [Rational], made: Bool) -> Int {
        let k = sourceFrameIndex(ofFrame: n, sourceTimes: times)
        guard made, k + 1 < times.count else { return k }
        let s = sourceTime(ofFrame: n)
        return s - times[k] > times[k + 1] - s ? k + 1 : k
    }
}

/// UTC seconds as text, with no time zone database.
public enum UTCText {
    /// `2026-11-28 05:25:55.123` (`places` decimals of the second, truncated toward earlier).
    public static func dateTime(_ seconds: Rational, places: Int) -> String {
        var unit: Int64 = 1
        for _ in 0..<places { unit *= 10 }
        let total = (seconds * Rational(unit)).floor
        let secs = floorDiv(total, unit), frac = total - secs * unit
        let days = floorDiv(secs, 86_400), rest = secs - days * 86_400
        // civil-from-days (Howard Hinnant's algorithm)
        let z = days + 719_468, era = floorDiv(z, 146_097), doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9, y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        var text = "\(y)-\(two(m))-\(two(d)) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))"
        if places > 0 {
            let f = String(frac)
            text += "." + String(repeating: "0", count: places - f.count) + f
        }
        return text
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}

extension BurnInSource {
    /// The exposure a recording's `slomo_controls` tag records as read back: V4L2's
    /// `exposure_time_absolute` (100 µs units) or GenICam's `ExposureTime`/`ExposureTimeAbs` (µs),
    /// as milliseconds; nil when it names none.
    public static func exposure(controls: String) -> String? {
        for item in controls.split(separator: ";") {
            let kv = item.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            let name = String(kv[0].drop { $0 == " " })
            let value = String(kv[1].prefix { $0 != " " })
            guard let v = try? Rational(parsing: value) else { continue }
            switch name {
            case "exposure_time_absolute": return decimal(v / Rational(10), places: 3) + " ms"
            case "ExposureTime", "ExposureTimeAbs": return decimal(v / Rational(1000), places: 3) + " ms"
            default: continue
            }
        }
        return nil
    }
}
