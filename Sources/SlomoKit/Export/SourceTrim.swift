import SlomoCore

/// `--start` and `--end`: the part of the source an export keeps, in source time (seconds,
/// hh:mm:ss.sss) or frames (`f90`: the 91st frame's own time, exact for a variable rate too).
/// The output shows exactly the source from `start` (the frame there, or the one on screen then)
/// to `end`, through the speed map; its first frame is the one `start` maps to.
public struct SourceTrim: Sendable, Equatable {
    public var start: TimePoint?
    public var end: TimePoint?
    public init(start: TimePoint? = nil, end: TimePoint? = nil) {
        self.start = start
        self.end = end
    }
    public var isEmpty: Bool { start == nil && end == nil }

    /// Parses the two options' texts (nil: not given).
    public static func parse(start: String?, end: String?) throws(SettingError) -> SourceTrim {
        func point(_ text: String?, _ setting: Setting) throws(SettingError) -> TimePoint? {
            guard let text else { return nil }
            do { return try TimePoint(parsing: Substring(text)) } catch {
                throw SettingError(setting, text, "expected seconds, hh:mm:ss.sss, a frame number like f90, or from the trigger t-0.1 or f-50")
            }
        }
        return SourceTrim(start: try point(start, .start), end: try point(end, .end))
    }

    /// The kept source range on the timeline (0 = the first frame) and its image on the output
    /// timeline; nil when neither is given. A start at or past the end, or past the media, is refused.
    func window(timeline: MediaTimeline, map: RetimeMap) throws(SettingError) -> (source: TimeRange, target: TimeRange)? {
        guard !isEmpty else { return nil }
        func seconds(_ p: TimePoint, _ setting: Setting) throws(SettingError) -> Rational {
            try SourceTrim.seconds(p, setting, timeline: timeline)
        }
        // a time from the trigger before the first frame keeps from the first frame
        let s = Rational.max(.zero, try start.map { p throws(SettingError) in try seconds(p, .start) } ?? .zero)
        let e = try end.map { p throws(SettingError) in try seconds(p, .end) } ?? timeline.duration
        guard s < timeline.duration else {
            throw SettingError(.start, start?.description ?? "", "past the end of the media (\(Seconds(timeline.duration)) s)")
        }
        guard e > s else { throw SettingError(.end, end?.description ?? "", "not after --start (\(Seconds(s)) s)") }
        let end = Rational.min(e, timeline.duration)
        return (TimeRange(start: s, end: end), TimeRange(start: map.targetTime(forSource: s), end: map.targetTime(forSource: end)))
    }
}

extension SourceTrim {
    /// A point's time on `timeline` (0 = the first frame): `f90` is that frame's own time; `f-50`
    /// the frame 50 before the trigger; `t-0.1` the trigger frame's time less 0.1 s.
    static func seconds(_ p: TimePoint, _ setting: Setting, timeline: MediaTimeline) throws(SettingError) -> Rational {
        let times = timeline.frameTimes
        func frame(_ n: Int64, _ what: String) throws(SettingError) -> Rational {
            guard n >= 0, n < Int64(times.count) else {
                throw SettingError(setting, p.description, "\(what)\(timeline.path) has \(times.count) frames (f0…f\(times.count - 1))")
            }
            return times[Int(n)]
        }
        func trigger() throws(SettingError) -> Int {
            guard let t = timeline.triggerFrame else {
                throw SettingError(
                    setting, p.description,
                    "\(timeline.path) names no trigger frame (no \(SlomoTag.triggerFrame.rawValue) tag or stored trigger): use seconds or a frame number like f90"
                )
            }
            return t
        }
        switch p {
        case .frame(let n): return try frame(n, "")
        case .framesFromTrigger(let n):
            let t = try trigger()
            return try frame(Int64(t) + n, "the trigger is f\(t); ")
        case .fromTrigger(let s): return times[try trigger()] + s
        case .seconds:
            do { return try p.resolve(frameRate: timeline.frameRate) } catch { throw SettingError(setting, p.description, "\(error)") }
        }
    }
}

/// An output's audio from target time `skip` for `length` frames: the trimmed part of a retimed
/// track, on an output timeline that starts at 0.
final class TrimmedAudio: RetimedAudio {
    private let base: any RetimedAudio
    private var toSkip: Int64
    private var left: Int64
    let totalFrames: Int64
    var sampleRate: Int { base.sampleRate }
    var channels: Int { base.channels }
    var channelLayout: String? { base.channelLayout }

    init(_ base: any RetimedAudio, skip: Int64, length: Int64) {
        self.base = base
        toSkip = Swift.max(0, Swift.min(skip, base.totalFrames))
        totalFrames = Swift.max(0, Swift.min(length, base.totalFrames - toSkip))
        left = totalFrames
    }

    func read(maxFrames: Int) throws -> [[Float]]? {
        while toSkip > 0 {
            guard let b = try base.read(maxFrames: Int(Swift.min(Int64(1 << 16), toSkip))) else {
                toSkip = 0
                break
            }
            toSkip -= Int64(b[0].count)
            if toSkip < 0 {  // read past the cut: keep the tail
                let keep = Int(-toSkip)
                toSkip = 0
                let tail = b.map { Array($0.suffix(keep)).prefix(Int(left)) }.map(Array.init)
                left -= Int64(tail[0].count)
                return tail
            }
        }
        guard left > 0, let b = try base.read(maxFrames: Int(Swift.min(Int64(maxFrames), left))) else { return nil }
        left -= Int64(b[0].count)
        return b
    }
}
