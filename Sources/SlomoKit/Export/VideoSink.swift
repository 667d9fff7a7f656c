import SlomoCore
import SlomoFFmpeg

/// Export's sink: source pictures in, encoded packets in the muxer out. It turns a decoded frame
/// into the picture the output wants (a sensor mosaic coloured, an odd edge cropped, converted to
/// the working format), and an output frame into a packet (converted to the encoder's format,
/// turned upright when the display rotation goes into the pixels, encoded, muxed). After each
/// frame it calls `afterFrame` (the audio written up to the frame's end, progress).
final class VideoSink {
    let codec: String
    let pixelFormat: PixelFormat
    /// What choosing works in: the encoder's format, or 8-bit 4:2:0 for blending and minterpolate.
    let workFormat: PixelFormat
    let width: Int, height: Int
    /// "321x181 → 320x180" when the encoder refused an odd size.
    let cropped: String?
    /// Clockwise quarter turns applied to the pixels; nil: none (no rotation, or kept as the matrix).
    let pixelTurns: Int?
    /// `--size`: every picture is scaled to `width`×`height` (otherwise only an odd edge is cropped).
    let scales: Bool
    let stream: Int
    var afterFrame: ((Int64) throws -> Void)?
    /// `--burn-in`: the label drawn on each output frame, upright (after any turn).
    private var burnIn: (stage: BurnInStage, labels: BurnInLabels)?

    private let encoder: Encoder
    private let muxer: Muxer
    private let rotator: FilterGraph?
    private let mosaic: SensorMosaic?
    private let input: String
    private let scaler = Scaler(), outScaler = Scaler()
    private let turned = Frame(), packet = Packet()

    init(_ r: ExportRequest, timeline: MediaTimeline, muxer: Muxer, formatName: String) throws {
        self.muxer = muxer
        input = r.input
        codec = r.codec ?? VideoCodecChoice.defaultEncoder(container: formatName)
        let sourceDepth = timeline.info.pixelFormat.flatMap(PixelFormat.init(name:))?.bitDepth ?? 8
        pixelFormat = r.delivery.pixelFormat.flatMap(PixelFormat.init(name:)) ?? OutputPixelFormat.choose(codec: codec, sourceBitDepth: sourceDepth)
        switch r.frameBlend {
        case .none: workFormat = pixelFormat
        // the flow works on planar YUV at the output's own depth (10-bit in, 10-bit out)
        case .flow: workFormat = pixelFormat.planarYUV != nil ? pixelFormat : sourceDepth > 8 ? .yuv420p10 : (codec == "mjpeg" ? .yuvj420p : .yuv420p)
        case .blend, .motion: workFormat = codec == "mjpeg" ? .yuvj420p : .yuv420p
        }
        // a mirroring matrix is left as metadata: turning alone would show it the wrong way round
        let turns = timeline.info.mirrored ? nil : DisplayRotation.clockwiseQuarterTurns(timeline.info.rotation)
        pixelTurns = r.rotation == .pixels || (r.rotation == .auto && !muxer.storesDisplayMatrix) ? turns : nil
        // `--size` is the picture as it shows: back into the stored orientation when the picture
        // shows sideways, whether the pixels turn or the output keeps the display matrix
        let shownTurns = pixelTurns ?? (muxer.storesDisplayMatrix ? DisplayRotation.clockwiseQuarterTurns(timeline.info.rotation) : nil)
        let sideways = shownTurns.map { $0 % 2 == 1 } ?? false
        let info = timeline.info
        var target: (Int, Int)?
        if r.delivery.width != nil || r.delivery.height != nil {
            let (w, h) = r.delivery.size(source: sideways ? info.height : info.width, sideways ? info.width : info.height)
            target = sideways ? (h, w) : (w, h)
        }
        scales = target != nil
        let (encoder, w, h) = try Self.openEncoder(
            r, codec: codec, pixelFormat: pixelFormat, turns: pixelTurns,
            width: target?.0 ?? info.width, height: target?.1 ?? info.height, muxer: muxer)
        self.encoder = encoder
        width = w
        height = h
        cropped = !scales && (w != info.width || h != info.height) ? "\(info.width)x\(info.height) → \(w)x\(h)" : nil
        stream = try muxer.addStream(for: encoder)
        // `format`: transpose takes no 4:2:2 (ProRes), for which libavfilter converts; back to the encoder's format
        rotator = try pixelTurns.map { [pixelFormat] in
            try FilterGraph(
                width: w, height: h, pixelFormat: pixelFormat, timeBase: Rational(1, 1),
                description: DisplayRotation.filter(clockwiseQuarterTurns: $0) + ",format=\(pixelFormat)", threads: r.threads)
        }
        mosaic = SensorMosaic(pattern: timeline.cfaPattern)
    }

    /// The encoder at the source's size; odd sizes are kept where the encoder takes them (FFV1,
    /// 4:4:4…); where it refuses them (x264 and most 4:2:0 encoders), the last column/row is
    /// cropped off, never resampled.
    private static func openEncoder(
        _ r: ExportRequest, codec: String, pixelFormat: PixelFormat, turns: Int?,
        width: Int, height: Int, muxer: Muxer
    ) throws -> (Encoder, Int, Int) {
        var options: [String: String] = [:]
        if codec == "libx264" || codec == "libx265" {
            options["preset"] = r.preset ?? "medium"
            // a target bit rate is the rate control instead of the default CRF
            if r.delivery.bitRate == nil || r.crf != nil { options["crf"] = String(r.crf ?? (codec == "libx265" ? 28 : 23)) }
        } else if let crf = r.crf {
            options["crf"] = String(crf)
        }
        func open(_ w: Int, _ h: Int) throws -> Encoder {
            let sideways = turns.map { $0 % 2 == 1 } ?? false
            var s = VideoEncoderSettings(
                codec: codec, width: sideways ? h : w, height: sideways ? w : h, pixelFormat: pixelFormat, frameRate: r.frameRate,
                gopSize: r.delivery.gop, options: options, threads: r.threads)
            s.bitRate = r.delivery.bitRate
            return try Encoder(path: r.output, video: s, globalHeader: muxer.wantsGlobalHeader)
        }
        let odd = (width % 2 == 1 || height % 2 == 1) && pixelFormat.subsamplesChroma
        if !odd { return (try open(width, height), width, height) }
        // an odd size asked for (`--size`): kept where the encoder takes it, refused where it does not
        if let w = r.delivery.width, let h = r.delivery.height, w > 0, h > 0 {
            if !EncoderDefaults.refusesOddSizes(codec), let e = try? open(width, height) { return (e, width, height) }
            let down = "\(w & ~1)x\(h & ~1)", up = "\(w + w % 2)x\(h + h % 2)"
            throw SettingError(.size, "\(w)x\(h)", "\(codec) writes \(pixelFormat) at even sizes only: give \(down) or \(up) (--codec ffv1 keeps odd sizes)")
        }
        if !EncoderDefaults.refusesOddSizes(codec), let e = try? open(width, height) { return (e, width, height) }
        return (try open(width & ~1, height & ~1), width & ~1, height & ~1)
    }

    /// A decoded source frame as the working picture.
    func prepare(_ decoded: Frame) throws -> Frame {
        let f = try mosaic?.colour(decoded, input: input) ?? decoded
        if !scales && (f.width > width || f.height > height) { try f.cropBottomRight(toWidth: width, height: height) }
        if f.pixelFormat == workFormat && f.width == width && f.height == height { return f }
        return try scaler.convert(f, width: width, height: height, pixelFormat: workFormat)
    }

    /// Output frame `n`.
    func encode(_ frame: Frame, _ n: Int64) throws {
        var f = frame.pixelFormat == pixelFormat ? frame : try outScaler.convert(frame, width: width, height: height, pixelFormat: pixelFormat)
        if let g = rotator {
            // transpose / flips: one frame in, the same frame out, at once
            f.pts = n
            try g.push(f)
            guard case .got = try g.pull(into: turned), turned.pixelFormat == pixelFormat else {
                throw ExportError.rotationFailed(path: input, frame: n, pixelFormat: "\(pixelFormat)")
            }
            f = turned
        }
        if let b = burnIn { f = try b.stage.draw(f, label: b.labels.text(ofFrame: n), pts: n) }
        f.clearPictureType()
        f.pts = n
        while try !encoder.send(f) { try drain() }
        try drain()
        try afterFrame?(n)
    }

    /// Draws `labels` on every output frame from now on.
    func burnIn(_ labels: BurnInLabels, threads: Int) throws {
        let sideways = pixelTurns.map { $0 % 2 == 1 } ?? false
        let stage = try BurnInStage(
            labels.settings, width: sideways ? height : width, height: sideways ? width : height, pixelFormat: pixelFormat, threads: threads)
        burnIn = (stage, labels)
    }

    /// The encoder's last packets.
    func finish() throws {
        _ = try encoder.send(nil)
        try drain()
    }

    private func drain() throws {
        let tb = muxer.timeBase(ofStream: stream)
        while case .got = try encoder.receive(into: packet) {
            packet.streamIndex = stream
            packet.rescaleTimestamps(from: encoder.timeBase, to: tb)
            try muxer.write(packet)
        }
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
