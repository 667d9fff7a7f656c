import Foundation
import SlomoCore
import SlomoFFmpeg

/// What export and retime need to know about an input before touching its packets: the video
/// stream, its time origin (the first frame's pts), its duration, and any earlier slomo retime.
struct MediaTimeline {
    var path: String
    var video: Int
    var audio: Int?
    var info: StreamInfo
    /// Absolute time of the first video frame: map source time 0.
    var origin: Rational
    /// Duration of the current file's video (first frame to end of last).
    var duration: Rational
    var frameRate: Rational?
    /// Sorted presentation times of every video packet, relative to `origin`.
    var frameTimes: [Rational]
    /// Every video packet's (pts, dts) in stream ticks and its keyframe flag, in file order; dts nil
    /// where the container stored none (Matroska).
    var packetTimes: [(pts: Int64, dts: Int64?, key: Bool)]
    /// The map an earlier slomo retime stored (original timing → this file), if any.
    var previousMap: RetimeMap?
    /// The original recording's constant frame rate, when an earlier slomo retime recorded it.
    var originalFrameRate: Rational?
    /// Signs of a damaged or truncated input, one sentence each (empty when none were seen): the
    /// export and retime go on with what is there and report these.
    var damage: [String] = []
    /// A capture's raw sensor samples stored undebayered (gray, `slomo_cfa_pattern`): the pattern.
    var cfaPattern: String?
    /// A phone's slow-motion recording: the rate it was captured at (`com.android.capture.fps`).
    var captureRate: CaptureRate?
    /// The recording's trigger frame (`slomo_trigger_frame`), an index of `frameTimes`; nil when it names none.
    var triggerFrame: Int?
    /// The container's metadata, for `captureRate` once the frame rate is known.
    private var containerMetadata: [String: String] = [:]

    static let retimeKey = SlomoTag.retime.rawValue

    /// A map as the `slomo_retime` tag: JSON with its keys sorted, so the same export writes the
    /// same bytes every run (a checksum can compare or cache outputs).
    static func retimeTag(_ map: RetimeMap) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(map), as: UTF8.self)
    }

    /// Reads packets like `Demuxer.readPacket`, except that a read error once packets have been read
    /// (a truncated or damaged file) ends the input there, noted in `damage`, instead of failing the job.
    final class Reader {
        let demuxer: Demuxer
        private(set) var damage: [String]
        init(_ demuxer: Demuxer, damage: [String] = []) {
            self.demuxer = demuxer
            self.damage = damage
        }
        func next(into p: Packet, after read: Int) throws(FFmpegError) -> Bool {
            // through a Result: a `catch where` on a typed throw crashes Swift 6.3's AllocBoxToStack
            switch Result(catching: { () throws(FFmpegError) in try demuxer.readPacket(into: p) }) {
            case .success(let more): return more
            case .failure(let e) where read > 0:
                // a second pass over the file meets the timeline's read error again: said once
                let sign = "reading stopped after \(read) video packets: \(e.text)"
                if !damage.contains(sign) { damage.append(sign) }
                return false
            case .failure(let e): throw e
            }
        }
    }

    init(path: String) throws {
        self.path = path
        try MediaInput.checkInput(path)
        let d = try MediaInput.openInput(path)
        guard let v = d.bestStream(.video) else {
            throw d.bestStream(.audio) != nil ? MediaError.soundOnly(path: path) : MediaError.noVideoStream(path: path, operation: nil)
        }
        video = v
        audio = d.bestStream(.audio)
        info = d.streamInfo(video)
        // A damaged sample description leaves the stream without a codec (found by mutated media):
        // nothing can decode or store it.
        guard info.codecName != "unknown", info.codecName != "none" else {
            throw MediaError.damaged(path: path, "open: the video stream's codec is unknown (its sample description is damaged)")
        }
        guard info.width > 0, info.height > 0 else {
            throw MediaError.damaged(path: path, "open: the video stream has no picture size (\(info.width)x\(info.height)): its header is damaged")
        }
        let slomo = Dictionary(d.metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        cfaPattern = slomo[SlomoTag.cfaPattern.rawValue].flatMap { PixelFormat.bayer($0, sixteenBit: false) != nil ? $0.uppercased() : nil }
        containerMetadata = d.metadata
        d.keepOnly(streams: [video])
        let scan = try MediaTimeline.scan(d, video: video, path: path)
        packetTimes = scan.packets
        let pts = scan.pts, first = scan.pts[0], lastEnd = scan.lastEnd
        var damage = scan.damage
        if let t = MediaInput.truncatedIndex(declared: info.declaredFrameCount, present: Int64(scan.packets.count)) { damage.insert(t, at: 0) }
        let tb = info.timeBase
        origin = Rational(ticks: first, timeBase: tb)
        let measured = FrameRateMeasurement(pts: pts, timeBase: tb, nominal: info.realFrameRate)
        frameRate = measured.rate ?? info.realFrameRate
        captureRate = CaptureRate(metadata: containerMetadata, storedFrameRate: frameRate)
        // a constant rate the time base cannot hold exactly (60 fps in Matroska's 1 ms)
        let grid = measured.onNominalGrid ? measured.rate.flatMap { (Rational.one / $0 / tb).isInteger ? nil : $0 } : nil
        gridRate = grid
        frameTimes = pts.map { MediaTimeline.time(ofTicks: $0 - first, timeBase: tb, grid: grid) }
        if let jump = MediaTimeline.implausibleGap(frameTimes) {
            throw MediaError.damaged(
                path: path,
                "open: the video's timestamps jump \(Seconds(jump.gap, decimals: 3)) s after frame \(jump.index) "
                    + "(\(Seconds(frameTimes[jump.index], decimals: 3)) s), over an hour and 100,000 times its usual frame interval: damaged timestamps")
        }
        // end of the last frame: its duration, else one nominal frame interval
        var end = Rational(ticks: lastEnd - first, timeBase: tb)
        if end <= frameTimes.last!, let fr = frameRate { end = frameTimes.last! + Rational.one / fr }
        duration = Swift.max(end, frameTimes.last! + Rational(ticks: 1, timeBase: tb))
        // a container that declares more than the video holds (Matroska's duration, MP4's header)
        if damage.isEmpty, let t = MediaInput.truncatedData(kind: "video", end: duration, declared: d.duration) { damage.append(t) }
        self.damage = damage
        triggerFrame = slomo[SlomoTag.triggerFrame.rawValue].flatMap { Int($0) }.flatMap { frameTimes.indices.contains($0) ? $0 : nil }
        if let map = MediaTimeline.storedMap(slomo[MediaTimeline.retimeKey], duration: duration) {
            previousMap = map
            // snapping is only for time bases too coarse to hold the original times (Matroska's 1 ms)
            if info.timeBase > Rational(1, 10_000) {
                originalFrameRate = slomo[SlomoTag.sourceFrameRate.rawValue].flatMap { try? Rational(parsing: $0) }
            }
        }
    }

    /// The video stream's packets read through: presentation times sorted (at least one, spanning
    /// less than 2^63 ticks), each packet's (pts, dts, keyframe) in file order, where the last one ends, and
    /// the damage the reader found (corrupt packets counted).
    static func scan(_ d: Demuxer, video: Int, path: String) throws
        -> (pts: [Int64], packets: [(pts: Int64, dts: Int64?, key: Bool)], lastEnd: Int64, damage: [String])
    {
        var pts: [Int64] = []
        var packets: [(pts: Int64, dts: Int64?, key: Bool)] = []
        var lastEnd: Int64 = .min
        let p = Packet()
        var corrupt = 0
        let reader = Reader(d)
        while try reader.next(into: p, after: packets.count) {
            guard p.streamIndex == video, let t = p.pts ?? p.dts else { continue }
            packets.append((t, p.dts, p.isKeyframe))
            // a pre-roll frame an edit list hides is copied by retime but is no frame of the video
            if p.isDiscarded { continue }
            pts.append(t)
            lastEnd = Swift.max(lastEnd, t + p.duration)
            if p.isCorrupt { corrupt += 1 }
        }
        pts.sort()
        guard pts.first != nil else { throw MediaError.noFrames(path: path) }
        // every packet, hidden ones too: retime copies them all
        let low = packets.lazy.map(\.pts).min()!, high = packets.lazy.map(\.pts).max()!
        guard !high.subtractingReportingOverflow(low).overflow else {
            throw MediaError.damaged(path: path, "open: the video's timestamps span more than 2^63 ticks (\(low) to \(high)): damaged timestamps")
        }
        var damage = reader.damage
        if corrupt > 0 { damage.append("\(corrupt) video packets are marked corrupt") }
        return (pts, packets, lastEnd, damage)
    }

    /// An earlier slomo retime's map stored in the file (JSON), when it still fits the file:
    /// a retime's map ends where the file ends; a capture's runs past the recording and is cut there.
    static func storedMap(_ json: String?, duration: Rational) -> RetimeMap? {
        guard let json, let stored = try? JSONDecoder().decode(RetimeMap.self, from: Data(json.utf8)) else { return nil }
        guard let map = stored.target.end == duration ? stored : stored.clipped(targetEnd: Swift.min(duration, stored.target.end)) else { return nil }
        return abs((map.target.duration - duration).doubleValue) < 0.05 ? map : nil
    }

    /// The constant frame rate whose exact grid the timestamps are, rounded to a time base too
    /// coarse to hold it (Matroska's 1 ms: 60 fps is stored as 0, 17, 33, 50 ms…), as
    /// `FrameRateMeasurement` found; nil otherwise. Frame times, and every time read through
    /// `time(ofTicks:)`, are then the exact grid times, so that a 60 fps MKV's frame 1 is at 1/60 s,
    /// not 17 ms (which the schedule would treat as after 1/60 s and show frame 0 twice).
    let gridRate: Rational?

    /// The origin in this stream's ticks (to the nearest tick): what every tick time is taken from.
    func originTicks() throws(RationalError) -> Int64 { try origin.ticks(in: info.timeBase, rounding: .nearest) }

    /// Time of a timestamp in this stream's ticks, relative to the origin (see `gridRate`).
    func time(ofTicks ticks: Int64, originTicks: Int64) -> Rational {
        MediaTimeline.time(ofTicks: ticks - originTicks, timeBase: info.timeBase, grid: gridRate)
    }

    /// `ticks` as seconds; on `grid`'s nearest point when it is within a tick of it (the tolerance
    /// `FrameRateMeasurement` accepted), so decode timestamps and frame ends snap too.
    private static func time(ofTicks ticks: Int64, timeBase tb: Rational, grid: Rational?) -> Rational {
        let t = Rational(ticks: ticks, timeBase: tb)
        guard let fps = grid else { return t }
        let snapped = t.roundedToGrid(rate: fps)
        return (snapped - t).magnitude <= tb ? snapped : t
    }

    /// The original-timing time of a frame at `t` on this file's timeline. When the original was
    /// constant-rate, the result snaps to its frame grid: containers with coarse time bases (Matroska's
    /// 1 ms) rounded the retimed times, and the grid recovers the exact original time.
    func originalTime(_ t: Rational) -> Rational {
        guard let prev = previousMap else { return t }
        let o = prev.sourceTime(forTarget: t)
        guard let fps = originalFrameRate, fps.isPositive else { return o }
        let snapped = o.roundedToGrid(rate: fps)
        return (snapped - o).magnitude * Rational(4) < Rational.one / fps ? snapped : o
    }

    /// Resolves the user's spec. With an earlier slomo retime and `fromOriginal`, the spec is read
    /// on the original timeline and the result maps *this file's* times (previous⁻¹ then new).
    /// Returns (map for this file's timeline, map from the original timing to store in the output).
    func resolve(_ spec: RetimeSpec, fromOriginal: Bool) throws(FileRetimeError) -> (current: RetimeMap, stored: RetimeMap) {
        switch resolveMaps(spec, fromOriginal: fromOriginal) {
        case .success(let maps): return maps
        case .failure(let e): throw FileRetimeError(path, e)
        }
    }

    /// `resolve`, then the map the audio's time-pitch algorithm really plays when the output has
    /// audio: zero-latency snaps its rates (0.3 plays at 1/2), and the video follows the snapped map
    /// so that both stay in sync; the stored map follows too. Rate/range errors name the input.
    func resolve(_ spec: RetimeSpec, fromOriginal: Bool, pitch: String, audio: Bool, realTime: Bool = false) throws -> (current: RetimeMap, stored: RetimeMap) {
        var spec = spec
        if realTime {
            guard let c = captureRate else {
                throw ExportError.noCaptureRate(path: path, keys: CaptureRate.keys)
            }
            spec = c.fileSpec(spec)
        }
        let (current, stored) = try resolve(spec, fromOriginal: fromOriginal)
        guard audio, self.audio != nil else { return (current, stored) }
        let algorithm = try TimePitchAlgorithm(parsing: pitch)
        if let curve = spec.curve {
            // a curve's rates lie between its keys' rates: the keys say where it leaves a range
            for (i, k) in curve.keys.enumerated() {
                do { try algorithm.validate(k.rate) } catch {
                    throw AudioFailure(
                        error.code, subject: path, operation: "\(algorithm) audio",
                        cause:
                            "\(Setting.curve) '\(curve.text)': key point \(i + 1) (\(k.time)\(k.time.isSeconds ? " s" : "")): \(error.subject): \(error.cause)")
                }
            }
        }
        let played: RetimeMap
        do { played = try algorithm.playedMap(current) } catch {
            throw error.concerning(path, algorithm: algorithm)
        }
        if played == current { return (current, stored) }
        if fromOriginal, let prev = previousMap {
            do { return (played, try prev.then(played)) } catch { throw FileRetimeError(path, error) }
        }
        return (played, played)
    }

    private func resolveMaps(_ spec: RetimeSpec, fromOriginal: Bool) -> Result<(current: RetimeMap, stored: RetimeMap), RetimeError> {
        Result { () throws(RetimeError) in
            if fromOriginal, let prev = previousMap {
                let originalRate = frameRate.map { $0 * prev.target.duration / prev.source.duration }
                let m = try spec.resolve(duration: prev.source.duration, frameRate: originalRate)
                return (try prev.inverted().then(m), m)
            }
            let m = try spec.resolve(duration: duration, frameRate: frameRate, curveNodes: spec.glides ? frameTimes : nil)
            return (m, m)
        }
    }
}

extension MediaTimeline {
    /// A gap between two frames over an hour long and over 100,000 median frame intervals: not a
    /// pause (a screen recording's static minutes stay far below both) but a damaged timestamp (a
    /// mutated MP4 fragment time put one frame 2.4 hours after the others, and `play` waited for
    /// it). Nil when there is none.
    static func implausibleGap(_ times: [Rational]) -> (index: Int, gap: Rational)? {
        guard times.count >= 3 else { return nil }
        var gaps: [Rational] = []
        for (a, b) in zip(times.dropFirst(), times) {
            guard let g = try? a.checkedSubtracting(b) else { return (gaps.count, Rational(Int64.max)) }
            gaps.append(g)
        }
        let widest = gaps.indices.max { gaps[$0] < gaps[$1] }!
        let gap = gaps[widest]
        guard gap > Rational(3600) else { return nil }
        gaps.sort()
        guard let bound = try? gaps[gaps.count / 2].checkedMultiplying(Rational(100_000)) else { return (widest, gap) }
        return gap > bound ? (widest, gap) : nil
    }
}

/// Chooses an output time base in which every mapped timestamp is exact when possible.
enum OutputTimeBase {
    /// The least common multiple of the denominators (a time base of 1/lcm represents all
    /// `times` exactly), or nil when it would not fit FFmpeg's 32-bit rationals.
    static func exact(for times: some Sequence<Rational>, and more: [Rational] = [], atLeast minimum: Int64 = 1000) -> Rational? {
        var l: Int64 = 1
        func absorb(_ t: Rational) -> Bool {
            let d = t.denominator
            let g = gcd(l, d)
            let (m, o) = (l / g).multipliedReportingOverflow(by: d)
            guard !o, m <= Int64(Int32.max) else { return false }
            l = m
            return true
        }
        for t in times { guard absorb(t) else { return nil } }
        for t in more { guard absorb(t) else { return nil } }
        // a coarse exact base (e.g. 1/240) is fine, but give muxers room: scale up to >= minimum
        var scaled = l
        while scaled < minimum { scaled *= 2 }
        return scaled <= Int64(Int32.max) ? Rational(1, scaled) : Rational(1, l)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 { b == 0 ? a : gcd(b, a % b) }
}
