import Foundation
import SlomoCore
import SlomoFFmpeg

/// `slomo probe`'s report. Keys are stable and documented in Docs/JSON.md.
public struct ProbeReport: Codable, Sendable {
    public struct Container: Codable, Sendable {
        public var format: String
        public var formatLongName: String
        public var duration: Rational?
        public var durationSeconds: Double?
        public var bitRate: Int64
        public var metadata: [String: String]
    }

    public struct Stream: Codable, Sendable {
        public var index: Int
        public var kind: String
        public var codec: String
        public var codecLongName: String
        public var timeBase: Rational
        // video
        public var width: Int?
        public var height: Int?
        public var pixelFormat: String?
        /// The container's declared rate (`r_frame_rate`).
        public var nominalFrameRate: Rational?
        /// The container's average rate (`avg_frame_rate`).
        public var averageFrameRate: Rational?
        /// Measured from packet timestamps: exact when they follow a constant rate.
        public var measuredFrameRate: Rational?
        public var measuredFps: Double?
        /// True when timestamp deltas differ by more than one time-base tick.
        public var variableFrameRate: Bool?
        public var frameIntervalMin: Rational?
        public var frameIntervalMax: Rational?
        public var frameCount: Int64?
        public var rotation: Double?
        // audio
        public var sampleRate: Int?
        public var channels: Int?
        public var channelLayout: String?
        public var sampleFormat: String?
        public var sampleCount: Int64?
        // both
        public var start: Rational?
        public var duration: Rational?
        public var durationSeconds: Double?
        public var packetCount: Int64
        public var corruptPackets: Int64
        public var metadata: [String: String]
    }

    public struct FrameEntry: Codable, Sendable {
        /// Presentation time in seconds, exact (`pts × time base`).
        public var pts: String
        public var ptsTicks: Int64?
        public var seconds: Double?
        public var keyframe: Bool
        /// The frame index painted by `slomo generate`, or null.
        public var calibrationIndex: Int?

        enum CodingKeys: String, CodingKey { case pts, ptsTicks, seconds, keyframe, calibrationIndex }

        /// `calibrationIndex` is always present: null when the frame carries no code.
        public func encode(to encoder: any Swift.Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(pts, forKey: .pts)
            try c.encodeIfPresent(ptsTicks, forKey: .ptsTicks)
            try c.encodeIfPresent(seconds, forKey: .seconds)
            try c.encode(keyframe, forKey: .keyframe)
            try c.encode(calibrationIndex, forKey: .calibrationIndex)
        }
    }

    public var path: String
    public var container: Container
    public var streams: [Stream]
    /// `slomo.*` metadata (capture fps, retime map...) when the file was written by slomo.
    public var slomo: [String: String]?
    public var frames: [FrameEntry]?
    /// Frames that failed to decode (with `--frames`).
    public var decodeErrors: Int?
    /// Signs of a damaged or truncated file, one sentence each (empty when none were seen).
    public var damage: [String]
    /// A phone's slow-motion recording (`com.android.capture.fps`): the capture rate, the stored
    /// rate and the speed the file plays at against real time. Absent otherwise.
    public var slowMotion: SlowMotion?

    public struct SlowMotion: Codable, Sendable {
        public var captureFrameRate: Rational
        public var captureFps: Double
        public var storedFrameRate: Rational
        /// storedFrameRate / captureFrameRate (1/8: a 240 fps capture stored at 30 fps).
        public var realTimeSpeed: Rational
        public var source: String
    }
}

/// Reads files for `slomo probe`.
public enum Prober {
    /// Opens `path`, reads every packet (for counts and measured rates) and, with `frames`,
    /// decodes the best video stream and reads each frame's calibration code.
    public static func probe(path: String, frames: Bool = false) throws -> ProbeReport {
        try MediaInput.checkInput(path)
        let demuxer = try MediaInput.openInput(path)
        let infos = demuxer.streams
        var ptsLists = Array(repeating: [Int64](), count: infos.count)
        var packetCounts = Array(repeating: Int64(0), count: infos.count)
        var corrupt = Array(repeating: Int64(0), count: infos.count)
        var lastEnd = Array(repeating: Int64?.none, count: infos.count)
        let packet = Packet()
        while try demuxer.readPacket(into: packet) {
            let i = packet.streamIndex
            packetCounts[i] += 1
            if packet.isCorrupt { corrupt[i] += 1 }
            // (a pre-roll packet an edit list hides is decoded, never shown: no frame of the stream)
            if let p = packet.pts ?? packet.dts, !packet.isDiscarded {
                if infos[i].kind == .video { ptsLists[i].append(p) }
                let end = p + packet.duration
                lastEnd[i] = Swift.max(lastEnd[i] ?? end, end)
            }
        }
        var streams: [ProbeReport.Stream] = []
        for s in infos {
            streams.append(
                describe(
                    s, pts: ptsLists[s.index].sorted(), packets: packetCounts[s.index],
                    corrupt: corrupt[s.index], end: lastEnd[s.index]))
        }
        let meta = demuxer.metadata
        // Matroska upper-cases tag names: slomo's keys are matched and reported in lower case.
        let slomoMeta = Dictionary(
            meta.filter { $0.key.lowercased().hasPrefix("slomo") }.map { ($0.key.lowercased(), $0.value) },
            uniquingKeysWith: { a, _ in a })
        var report = ProbeReport(
            path: path,
            container: .init(
                format: demuxer.formatName, formatLongName: demuxer.formatLongName,
                duration: demuxer.duration, durationSeconds: demuxer.duration.map(display),
                bitRate: demuxer.bitRate, metadata: meta),
            streams: streams, slomo: slomoMeta.isEmpty ? nil : slomoMeta, damage: [])
        report.damage = damage(of: report, declared: infos.map(\.declaredFrameCount))
        let video = streams.first { $0.kind == "video" }
        if let c = CaptureRate(metadata: meta, storedFrameRate: video?.measuredFrameRate ?? video?.nominalFrameRate) {
            report.slowMotion = .init(
                captureFrameRate: c.captureFrameRate, captureFps: display(c.captureFrameRate),
                storedFrameRate: c.storedFrameRate, realTimeSpeed: c.realTimeSpeed, source: c.source)
        }
        if frames {
            guard let v = demuxer.bestStream(.video) else {
                throw MediaError.noVideoStream(path: path, operation: "probe \(Setting.frames)")
            }
            let (entries, errors) = try decodeFrames(path: path, stream: v, timeBase: infos[v].timeBase)
            report.frames = entries
            report.decodeErrors = errors
            if let sign = MediaInput.undecodable(errors) { report.damage.append(sign) }
        }
        return report
    }

    /// Truncation and corruption, judged from what was really read against what the headers declare.
    static func damage(of r: ProbeReport, declared: [Int64?]) -> [String] {
        var out: [String] = []
        for s in r.streams {
            // (the index counts every packet, an edit list's hidden pre-roll too)
            if s.kind == "video", s.frameCount != nil, let t = MediaInput.truncatedIndex(declared: declared[s.index], present: s.packetCount) { out.append(t) }
            if s.kind == "video" || s.kind == "audio", let t = MediaInput.truncatedData(kind: s.kind, end: s.duration, declared: r.container.duration) {
                out.append(t)
            }
            if s.corruptPackets > 0 { out.append("\(s.corruptPackets) corrupt \(s.kind) packets") }
        }
        return out
    }

    static func display(_ r: Rational) -> Double { (r.doubleValue * 1e6).rounded() / 1e6 }

    static func describe(_ s: StreamInfo, pts: [Int64], packets: Int64, corrupt: Int64, end: Int64?) -> ProbeReport.Stream {
        var out = ProbeReport.Stream(
            index: s.index, kind: s.kind.rawValue, codec: s.codecName, codecLongName: s.codecLongName,
            timeBase: s.timeBase, packetCount: packets, corruptPackets: corrupt, metadata: s.metadata)
        let start = s.startTicks ?? pts.first
        out.start = start.map { Rational(ticks: $0, timeBase: s.timeBase) }
        if let start, let end, end > start {
            out.duration = Rational(ticks: end - start, timeBase: s.timeBase)
        } else if let d = s.durationTicks {
            out.duration = Rational(ticks: d, timeBase: s.timeBase)
        }
        out.durationSeconds = out.duration.map(display)
        switch s.kind {
        case .video:
            out.width = s.width
            out.height = s.height
            out.pixelFormat = s.pixelFormat
            // libavformat guesses r_frame_rate = 1/time base for variable-rate MP4s (a capture's 1000000):
            // that is no nominal rate at all
            out.nominalFrameRate = s.realFrameRate.flatMap { $0 * s.timeBase == .one ? nil : $0 }
            out.averageFrameRate = s.averageFrameRate
            out.frameCount = Int64(pts.count)
            out.rotation = s.rotation
            let m = FrameRateMeasurement(pts: pts, timeBase: s.timeBase, nominal: s.realFrameRate)
            out.measuredFrameRate = m.rate
            out.measuredFps = m.rate.map(display)
            out.variableFrameRate = m.variable
            out.frameIntervalMin = m.minInterval
            out.frameIntervalMax = m.maxInterval
        case .audio:
            out.sampleRate = s.sampleRate
            out.channels = s.channels
            out.channelLayout = s.channelLayout
            out.sampleFormat = s.sampleFormat
            if let d = out.duration, s.sampleRate > 0 { out.sampleCount = (d * Rational(Int64(s.sampleRate))).rounded(.nearest) }
        default: break
        }
        return out
    }

    static func decodeFrames(path: String, stream: Int, timeBase: Rational) throws -> ([ProbeReport.FrameEntry], Int) {
        let demuxer = try MediaInput.openInput(path)
        demuxer.keepOnly(streams: [stream])
        let decoder = try demuxer.makeDecoder(stream: stream)
        let packet = Packet(), frame = Frame(), scaler = Scaler()
        var entries: [ProbeReport.FrameEntry] = []
        var errors = 0

        func drain() throws {
            while true {
                let r: CodecReceive
                do { r = try decoder.receive(into: frame) } catch {
                    errors += 1
                    continue
                }
                guard case .got = r else { return }
                entries.append(try entry(frame, timeBase: timeBase, scaler: scaler))
            }
        }
        while try demuxer.readPacket(into: packet) {
            guard packet.streamIndex == stream else { continue }
            do {
                while try !decoder.send(packet) { try drain() }
            } catch { errors += 1 }
            try drain()
        }
        _ = try? decoder.send(nil)
        try drain()
        entries.sort { ($0.ptsTicks ?? .min) < ($1.ptsTicks ?? .min) }
        return (entries, errors)
    }

    static func entry(_ frame: Frame, timeBase: Rational, scaler: Scaler) throws -> ProbeReport.FrameEntry {
        let ticks = frame.bestEffortTimestamp
        let t = ticks.map { Rational(ticks: $0, timeBase: timeBase) }
        return ProbeReport.FrameEntry(
            pts: t?.description ?? "unknown", ptsTicks: ticks, seconds: t.map(display),
            keyframe: frame.isKeyframe, calibrationIndex: try calibrationIndex(frame, scaler: scaler))
    }

    /// Reads the calibration code from a decoded frame (converting to 8-bit grey when needed).
    public static func calibrationIndex(_ frame: Frame, scaler: Scaler) throws -> Int? {
        let f =
            frame.pixelFormat.hasEightBitLumaPlane
            ? frame : try scaler.convert(frame, width: frame.width, height: frame.height, pixelFormat: .gray)
        return f.withPlane(0) { p, stride in
            CalibrationCode.read(luma: UnsafePointer(p), width: f.width, height: f.height, stride: stride)
        }
    }
}

/// Frame rate measured from timestamps, not from header fields.
public struct FrameRateMeasurement: Sendable {
    public var rate: Rational?
    public var variable: Bool?
    public var minInterval: Rational?
    public var maxInterval: Rational?
    /// Every timestamp is the nominal rate's ideal time (first + i / nominal) rounded to the time
    /// base, within a tick: `rate` is then exactly the nominal rate.
    public var onNominalGrid = false

    /// `pts` sorted, in `timeBase` ticks. The stream is constant-rate when every delta is within one
    /// tick of the mean delta. If every timestamp is the nominal rate's ideal time rounded to the
    /// time base, the measured rate is exactly the nominal rate; otherwise it is (N-1)/(last-first).
    public init(pts: [Int64], timeBase: Rational, nominal: Rational?) {
        // a span past 2^63 ticks (a damaged fragment time near Int64.min, found by mutate-media.py)
        // is not a rate: nothing measured
        guard pts.count >= 2, let first = pts.first, let last = pts.last, last > first,
            !last.subtractingReportingOverflow(first).overflow
        else { return }
        var minD = Int64.max, maxD = Int64.min
        for i in 1..<pts.count {
            let d = pts[i] - pts[i - 1]
            minD = Swift.min(minD, d)
            maxD = Swift.max(maxD, d)
        }
        minInterval = Rational(ticks: minD, timeBase: timeBase)
        maxInterval = Rational(ticks: maxD, timeBase: timeBase)
        let meanTicks = Rational(last - first, Int64(pts.count - 1))
        variable = !(Rational(minD) > meanTicks - Rational(1) && Rational(maxD) < meanTicks + Rational(1))
        let average = Rational(Int64(pts.count - 1)) / Rational(ticks: last - first, timeBase: timeBase)
        rate = average
        if let nominal, nominal.isPositive, variable == false {
            let start = Rational(ticks: first, timeBase: timeBase)
            let matches = pts.enumerated().allSatisfy { i, p in
                guard let ideal = try? start.checkedAdding(try Rational(Int64(i)).checkedDividing(nominal)),
                    let t = try? ideal.ticks(in: timeBase, rounding: .nearest)
                else { return false }
                let (d, o) = t.subtractingReportingOverflow(p)
                return !o && abs(d) <= 1
            }
            if matches {
                rate = nominal
                onNominalGrid = true
            }
        }
    }
}
