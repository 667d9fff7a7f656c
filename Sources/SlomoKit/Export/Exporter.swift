import Foundation
import SlomoCore
import SlomoFFmpeg

/// `slomo export`: decode, apply the retime map, encode at a constant frame rate.
public struct ExportRequest: Sendable {
    public enum FrameBlend: String, Sendable, CaseIterable { case none, blend, motion }
    /// What export does with a source's display rotation (a phone held upright records sideways
    /// pixels and a display matrix). `auto`: keep the matrix where the container stores it (MP4,
    /// MOV; no pixel work), else turn the pixels upright. `pixels`: always turn the pixels (for
    /// consumers that ignore the matrix, as many vision tools do). `metadata`: never touch the
    /// pixels (Matroska then plays unrotated, with a warning).
    public enum Rotation: String, Sendable, CaseIterable { case auto, pixels, metadata }
    public var input: String
    public var output: String
    public var spec: RetimeSpec
    public var frameRate = Rational(30)
    public var pitch = "spectral"
    public var audio = true
    /// `--audio-codec`: `auto` (the source's codec where possible, else AAC) or a name from
    /// `AudioCodecChoice.named`.
    public var audioCodec = "auto"
    /// The video encoder; nil: libx264, or libvpx-vp9 for WebM (which holds only VP8/VP9/AV1).
    public var codec: String?
    public var preset: String? = nil
    public var crf: Int? = nil
    public var frameBlend = FrameBlend.none
    public var rotation = Rotation.auto
    public var overwrite = false
    public var fromOriginal = true
    /// `--real-time`: the spec's rates are relative to real time (a phone's capture rate metadata).
    public var realTime = false
    /// Skip decoding frames that nothing shows and nothing references.
    public var skipUnneeded = true
    /// Decoder and encoder threads (0 = FFmpeg's choice: all cores).
    public var threads = 0
    /// Stored as `slomo_job` metadata so a batch re-run can tell a finished output from another.
    public var jobKey: String?
    public init(input: String, output: String, spec: RetimeSpec) {
        self.input = input; self.output = output; self.spec = spec
    }
}

public struct ExportReport: Codable, Sendable {
    public var input: String
    public var output: String
    public var outputFrames: Int64
    public var frameRate: Rational
    public var outputDuration: Rational
    public var sourceFrames: Int
    /// Source packets sent to the decoder / left undecoded because no output frame shows them.
    public var decodedPackets: Int
    public var skippedPackets: Int
    /// Output frames that repeat the previous source frame because the source has fewer frames.
    public var repeatedFrames: Int64
    /// Output frames whose source frame could not be decoded (the previous one was shown).
    public var missingFrames: Int64
    public var audioFrames: Int64?
    /// The encoder that wrote the video (`libx264`, `libvpx-vp9`…).
    public var videoCodec: String?
    /// The encoder that wrote the audio (`aac`, `flac`…), nil without audio.
    public var audioCodec: String?
    /// The source's display rotation in degrees when the output container cannot store it
    /// (Matroska, WebM, NUT) and the pixels were not turned: the output plays unrotated.
    public var rotationDropped: Double?
    /// Clockwise degrees (90, 180, 270) the pixels were turned to show the source upright; the
    /// output then carries no display rotation.
    public var rotationApplied: Int?
    /// Set when the encoder refused the source's odd size: "321x181 → 320x180" (last column/row
    /// cropped off, nothing resampled).
    public var cropped: String?
    /// Signs of a damaged or truncated input, one sentence each: the export went on with what
    /// decodes (empty when the input was whole).
    public var damage: [String]
    public var elapsedSeconds: Double
    public var encodeFps: Double
}

public enum Exporter {
    /// Progress: (output frames done, total).
    public static func export(_ r: ExportRequest, progress: ((Int64, Int64) -> Void)? = nil) throws -> ExportReport {
        let started = DispatchTime.now()
        try MediaInput.checkInput(r.input)
        let formatName = try ContainerFormat.forOutput(r.output, webm: true)
        guard r.frameRate.isPositive, r.frameRate <= Rational(1000), r.frameRate.denominator <= 1_000_000 else {
            throw SimpleFailure("--fps \(r.frameRate): output frame rate must be in (0, 1000]", .usage)
        }
        let timeline = try MediaTimeline(path: r.input)
        let (map, stored) = try timeline.resolve(r.spec, fromOriginal: r.fromOriginal, pitch: r.pitch, audio: r.audio, realTime: r.realTime)
        let schedule = CFRSchedule(map: map, frameRate: r.frameRate)
        let total = schedule.frameCount
        let times = timeline.frameTimes
        // Which source frame each output frame shows; with blending, also the one after it.
        let shown = (0..<total).map { schedule.sourceFrameIndex(ofFrame: $0, sourceTimes: times) }
        // per source frame: one byte (needed) and one tick count, not hash tables — an hour at 30 fps
        // is 108,000 frames, and memory should not grow with the input (Docs/Reliability.md, long runs)
        var needed = [Bool](repeating: r.frameBlend == .motion, count: times.count)   // motion looks at neighbours
        for k in shown { needed[k] = true }
        if r.frameBlend == .blend { for k in shown where k + 1 < times.count { needed[k + 1] = true } }
        let tb = timeline.info.timeBase
        let originTicks = try timeline.origin.ticks(in: tb, rounding: .nearest)
        let frameTicks = try times.map { originTicks + (try $0.ticks(in: tb, rounding: .nearest)) }   // sorted, as `times`
        /// The frame whose pts is exactly `p` (the last of equal ones), by binary search.
        func indexOfPTS(_ p: Int64) -> Int? {
            var lo = 0, hi = frameTicks.count
            while lo < hi { let mid = (lo + hi) / 2; if frameTicks[mid] <= p { lo = mid + 1 } else { hi = mid } }
            return lo > 0 && frameTicks[lo - 1] == p ? lo - 1 : nil
        }
        let disposable = DisposableFrames(codecName: timeline.info.codecName, intraOnly: timeline.info.intraOnly,
                                          extradata: timeline.info.extradata)

        // Output.
        let out = try OutputFile(path: r.output, overwrite: r.overwrite)
        let muxer = try Muxer(path: out.temporaryPath, formatName: formatName, name: r.output)
        let codec = r.codec ?? (formatName == "webm" ? "libvpx-vp9" : "libx264")
        var options: [String: String] = [:]
        if codec == "libx264" || codec == "libx265" {
            options["preset"] = r.preset ?? "medium"
            options["crf"] = String(r.crf ?? (codec == "libx265" ? 28 : 23))
        } else if let crf = r.crf {
            options["crf"] = String(crf)
        }
        let sourceDepth = timeline.info.pixelFormat.flatMap(PixelFormat.init(name:))?.bitDepth ?? 8
        let pixelFormat = OutputPixelFormat.choose(codec: codec, sourceBitDepth: sourceDepth)
        // frame blending and minterpolate work in 8-bit 4:2:0; their frames are converted at the encoder
        let workFormat: PixelFormat = r.frameBlend == .none ? pixelFormat : (codec == "mjpeg" ? .yuvj420p : .yuv420p)
        // the display rotation: kept as the matrix, or applied to the pixels (quarter turns only)
        // (a mirroring matrix is left as metadata: turning alone would show it the wrong way round)
        let turns = timeline.info.mirrored ? nil : DisplayRotation.clockwiseQuarterTurns(timeline.info.rotation)
        // the quarter turns applied to the pixels; nil: none (no rotation, or kept as the matrix)
        let pixelTurns = r.rotation == .pixels || (r.rotation == .auto && !muxer.storesDisplayMatrix) ? turns : nil
        // odd sizes are kept where the encoder takes them (FFV1, 4:4:4…); where it refuses them (x264
        // and most 4:2:0 encoders), the last column/row is cropped off, never resampled
        func openEncoder(_ w: Int, _ h: Int) throws -> Encoder {
            let sideways = pixelTurns.map { $0 % 2 == 1 } ?? false
            return try Encoder(path: r.output, video: VideoEncoderSettings(
                codec: codec, width: sideways ? h : w, height: sideways ? w : h, pixelFormat: pixelFormat, frameRate: r.frameRate,
                options: options, threads: r.threads), globalHeader: muxer.wantsGlobalHeader)
        }
        var width = timeline.info.width, height = timeline.info.height
        let odd = (width % 2 == 1 || height % 2 == 1) && pixelFormat.subsamplesChroma
        let venc: Encoder
        if !odd {
            venc = try openEncoder(width, height)
        } else if !EncoderDefaults.refusesOddSizes(codec), let e = try? openEncoder(width, height) {
            venc = e
        } else {
            width &= ~1; height &= ~1
            venc = try openEncoder(width, height)
        }
        let cropped = width != timeline.info.width || height != timeline.info.height
            ? "\(timeline.info.width)x\(timeline.info.height) → \(width)x\(height)" : nil
        let vOut = try muxer.addStream(for: venc)
        let demuxer = try MediaInput.openInput(r.input)
        muxer.copySideData(from: demuxer, stream: timeline.video, to: vOut, displayMatrix: pixelTurns == nil)
        // `format`: transpose takes no 4:2:2 (ProRes), for which libavfilter converts; back to the encoder's format
        let rotator = try pixelTurns.map {
            try FilterGraph(width: width, height: height, pixelFormat: pixelFormat, timeBase: Rational(1, 1),
                            description: DisplayRotation.filter(clockwiseQuarterTurns: $0) + ",format=\(pixelFormat)", threads: r.threads)
        }
        let audioWriter = try RetimedOutput.finishHeader(muxer, demuxer: demuxer, timeline: timeline, map: map, stored: stored,
                                                         input: r.input, output: r.output, command: "export", audio: r.audio,
                                                         pitch: r.pitch, audioCodec: r.audioCodec, jobKey: r.jobKey)
        let vTB = muxer.timeBase(ofStream: vOut)
        let packet = Packet()
        func drainVideo() throws {
            while case .got = try venc.receive(into: packet) {
                packet.streamIndex = vOut
                packet.rescaleTimestamps(from: venc.timeBase, to: vTB)
                try muxer.write(packet)
            }
        }

        // Emission: output frames in order, each from the held source frame (and the next, for blends).
        let scaler = Scaler()
        var next: Int64 = 0
        var repeated: Int64 = 0, missing: Int64 = 0
        var lastShownIndex = -1
        let outScaler = Scaler()
        let mosaic = SensorMosaic(pattern: timeline.cfaPattern)
        func prepare(_ decoded: Frame) throws -> Frame {
            let f = try mosaic?.colour(decoded, input: r.input) ?? decoded
            if f.width > width || f.height > height { try f.cropBottomRight(toWidth: width, height: height) }
            if f.pixelFormat == workFormat && f.width == width && f.height == height { return f }
            return try scaler.convert(f, width: width, height: height, pixelFormat: workFormat)
        }
        let turned = Frame()
        func encode(_ frame: Frame, _ n: Int64) throws {
            var f = frame.pixelFormat == pixelFormat ? frame : try outScaler.convert(frame, width: width, height: height, pixelFormat: pixelFormat)
            if let g = rotator {
                // transpose / flips: one frame in, the same frame out, at once
                f.pts = n
                try g.push(f)
                guard case .got = try g.pull(into: turned), turned.pixelFormat == pixelFormat else {
                    throw SimpleFailure("\(r.input): export: rotating frame \(n) gave no \(pixelFormat) frame", .software)
                }
                f = turned
            }
            f.clearPictureType()
            f.pts = n
            while try !venc.send(f) { try drainVideo() }
            try drainVideo()
            try audioWriter?.write(upTo: schedule.targetTime(ofFrame: n + 1))
            progress?(n + 1, total)
        }
        /// Emits every output frame that shows source frame `k` or earlier, from `held` (index k).
        func emit(upTo k: Int, held: Frame, heldIndex: Int, after: (frame: Frame, index: Int)?) throws {
            var prepared: Frame?
            while next < total && shown[Int(next)] <= k {
                if shown[Int(next)] != heldIndex { missing += 1 }
                if shown[Int(next)] == lastShownIndex { repeated += 1 }
                lastShownIndex = shown[Int(next)]
                let base = try prepared ?? prepare(held)
                prepared = base
                if r.frameBlend == .blend, let a = after, heldIndex + 1 == a.index {
                    let s = schedule.sourceTime(ofFrame: next)
                    let t0 = times[heldIndex], t1 = times[a.index]
                    let w = Swift.max(.zero, Swift.min(.one, (s - t0) / (t1 - t0)))
                    if w.isZero { try encode(base, next) } else {
                        try encode(try FrameBlender.blend(base, try prepare(a.frame), weight: w), next)
                    }
                } else {
                    // a fresh reference per output frame: the encoder may still hold the last one
                    try encode(try base.reference(), next)
                }
                next += 1
            }
        }

        // Motion interpolation: source frames go in at their *target* times, libavfilter's
        // minterpolate produces frames at exactly n/fps on the output timeline.
        let filterTB = Rational(1, 1_000_000)
        var motion: FilterGraph?
        if r.frameBlend == .motion {
            motion = try FilterGraph(width: width, height: height, pixelFormat: workFormat, timeBase: filterTB,
                                     description: "minterpolate=fps=\(r.frameRate):mi_mode=mci:mc_mode=aobmc:me_mode=bidir:vsbmc=1",
                                     threads: r.threads)
        }
        var lastMotionPTS: Int64 = .min
        var lastPushed: Frame?
        func pullMotion() throws {
            guard let g = motion else { return }
            while true {
                let out = Frame()
                guard case .got = try g.pull(into: out), let p = out.pts else { return }
                let n = (Rational(ticks: p, timeBase: g.outputTimeBase) * r.frameRate).rounded(.nearest)
                guard n == next, next < total else { continue }
                try encode(out, next)
                lastShownIndex = shown[Int(next)]
                next += 1
            }
        }
        func pushMotion(_ f: Frame, index k: Int) throws {
            guard let g = motion else { return }
            let target = try map.targetTime(forSource: times[k]).ticks(in: filterTB, rounding: .nearest)
            guard target > lastMotionPTS else { return }
            lastMotionPTS = target
            let p = try prepare(f)
            let c = p === f ? try f.reference() : p
            c.pts = target
            lastPushed = c
            try g.push(c)
            try pullMotion()
        }

        demuxer.keepOnly(streams: [timeline.video])
        let decoder = try demuxer.makeDecoder(stream: timeline.video, threads: r.threads)
        var held: (frame: Frame, index: Int)?
        var decoded = 0, skipped = 0, undecodable = 0
        func receiveAll() throws {
            while true {
                let f = Frame()
                guard let got = try decoder.receiveUnlessDamaged(into: f) else {
                    undecodable += 1   // a damaged frame (threaded decoders report it here): shown as missing
                    continue
                }
                guard case .got = got else { return }
                guard let p = f.bestEffortTimestamp, let k = indexOfPTS(p) ?? nearestIndex(p) else { continue }
                if motion != nil { try pushMotion(f, index: k); continue }
                if let h = held {
                    if k <= h.index { continue }              // out-of-order duplicate
                    try emit(upTo: k - 1, held: h.frame, heldIndex: h.index, after: (f, k))
                }
                held = (f, k)
            }
        }
        func nearestIndex(_ p: Int64) -> Int? {
            let t = timeline.time(ofTicks: p, originTicks: originTicks)
            return times.isEmpty ? nil : CFRSchedule.frameIndex(at: t, in: times)
        }
        var read = 0
        let reader = MediaTimeline.Reader(demuxer, damage: timeline.damage)
        while try reader.next(into: packet, after: read) {
            guard packet.streamIndex == timeline.video else { continue }
            read += 1
            if r.skipUnneeded, let p = packet.pts, let k = indexOfPTS(p), !needed[k],
               packet.withBytes({ disposable.isDisposable($0) }) {
                skipped += 1
                continue
            }
            decoded += 1
            do { while try !decoder.send(packet) { try receiveAll() } } catch let e as FFmpegError where e.isInvalidData {
                undecodable += 1   // damaged packet: its frame is reported as missing
                continue
            }
            try receiveAll()
            if next >= total { break }
        }
        _ = try? decoder.send(nil)
        try receiveAll()
        if let g = motion {
            try g.push(nil)
            try pullMotion()
            // minterpolate ends before its last input: show the last source frame to the end of the schedule
            while next < total, let last = lastPushed { try encode(try last.reference(), next); repeated += 1; next += 1 }
        }
        if let h = held { try emit(upTo: Int.max, held: h.frame, heldIndex: h.index, after: nil) }
        guard next == total else {
            throw SimpleFailure("\(r.input): export: no decodable video frames", .dataError)
        }
        let damage = reader.damage + [MediaInput.undecodable(undecodable)].compactMap { $0 }
        _ = try venc.send(nil)
        try drainVideo()
        try audioWriter?.finish()
        try muxer.finish()
        try out.commit()
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        var report = ExportReport(
            input: r.input, output: r.output, outputFrames: total, frameRate: r.frameRate, outputDuration: map.target.duration,
            sourceFrames: times.count, decodedPackets: decoded, skippedPackets: skipped, repeatedFrames: repeated,
            missingFrames: missing, audioFrames: audioWriter?.framesWritten, cropped: cropped, damage: damage, elapsedSeconds: elapsed,
            encodeFps: elapsed > 0 ? Double(total) / elapsed : 0)
        report.videoCodec = codec
        report.audioCodec = audioWriter?.encoder.codecName
        report.rotationDropped = pixelTurns == nil ? RetimedOutput.droppedRotation(timeline.info.rotation, muxer: muxer) : nil
        report.rotationApplied = pixelTurns.map { $0 * 90 }
        return report
    }
}

/// A display matrix's rotation as whole quarter turns.
enum DisplayRotation {
    /// The clockwise quarter turns (1…3) that show pixels stored with `rotation` (FFmpeg's
    /// `av_display_rotation_get`: degrees counter-clockwise) upright, as the ffmpeg CLI's
    /// autorotation does; nil for none, or for an angle that is not within 1° of a right angle.
    static func clockwiseQuarterTurns(_ rotation: Double?) -> Int? {
        guard let r = rotation, r.isFinite else { return nil }
        var theta = (-r).truncatingRemainder(dividingBy: 360)
        if theta < 0 { theta += 360 }
        let k = (theta / 90).rounded()
        guard abs(theta - k * 90) < 1 else { return nil }
        let turns = Int(k) % 4
        return turns == 0 ? nil : turns
    }

    /// libavfilter's description of the turn.
    static func filter(clockwiseQuarterTurns turns: Int) -> String {
        switch turns {
        case 1: return "transpose=clock"
        case 2: return "hflip,vflip"
        default: return "transpose=cclock"
        }
    }
}

/// The encoder's pixel format for an export: the first of 4:2:0, 4:2:2, 4:4:4 that the encoder
/// takes, at 10 bits when the source has more than 8 (a 10-bit phone clip stays 10-bit with x264,
/// x265, VP9, AV1, FFV1; ProRes gets 4:2:2 10-bit, the only kind it takes), else 8 bits.
enum OutputPixelFormat {
    static func choose(codec: String, sourceBitDepth: Int) -> PixelFormat {
        if codec == "mjpeg" { return .yuvj420p }
        let supported = Encoder.pixelFormats(codec: codec)
        let deep: [PixelFormat] = [.yuv420p10, .yuv422p10, .yuv444p10], shallow: [PixelFormat] = [.yuv420p, .yuv422p, .yuv444p]
        let order = sourceBitDepth > 8 ? deep + shallow : shallow + deep
        return order.first { supported.contains($0) } ?? supported.first ?? .yuv420p
    }
}

/// Linear blend of two 8-bit planar frames of the same format and size.
enum FrameBlender {
    static func blend(_ a: Frame, _ b: Frame, weight: Rational) throws -> Frame {
        let out = try Frame(width: a.width, height: a.height, pixelFormat: a.pixelFormat)
        let w = Int((weight * Rational(256)).rounded(.nearest))
        let planes = [(a.width, a.height), ((a.width + 1) / 2, (a.height + 1) / 2), ((a.width + 1) / 2, (a.height + 1) / 2)]
        for (i, (pw, ph)) in planes.enumerated() {
            a.withPlane(i) { pa, sa in
                b.withPlane(i) { pb, sb in
                    out.withPlane(i) { po, so in
                        for y in 0..<ph {
                            let ra = pa + y * sa, rb = pb + y * sb, ro = po + y * so
                            for x in 0..<pw { ro[x] = UInt8((Int(ra[x]) * (256 - w) + Int(rb[x]) * w + 128) >> 8) }
                        }
                    }
                }
            }
        }
        return out
    }
}
