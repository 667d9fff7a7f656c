import Foundation
import SlomoTestSupport
import Testing
import SlomoCore
import SlomoFFmpeg
@testable import SlomoKit

/// Export and retime proven with calibration clips: every output frame says which source frame it is.
@Suite struct ExportRetimeTests {
    static func clip(
        _ dir: TemporaryDirectory, fps: Int64 = 240, seconds: Rational = Rational(1), name: String = "src.mp4",
        codec: GenerateRequest.VideoCodec = .h264
    ) throws -> String {
        var r = GenerateRequest(output: dir.file(name), frameRate: Rational(fps), duration: seconds, width: 320, height: 180)
        r.codec = codec
        r.audio = false
        _ = try Generator.generate(r)
        return r.output
    }

    func indices(_ path: String) throws -> [Int?] {
        try Prober.probe(path: path, frames: true).frames?.map(\.calibrationIndex) ?? []
    }

    /// The source frame each output frame must show, straight from the schedule (240 fps source).
    func expected(_ spec: RetimeSpec, duration: Rational, sourceFPS: Rational, frames: Int64, fps: Rational = Rational(30)) throws -> [Int?] {
        let s = CFRSchedule(map: try spec.resolve(duration: duration, frameRate: sourceFPS), frameRate: fps)
        return (0..<s.frameCount).map { Int(s.sourceFrameIndex(ofFrame: $0, sourceFrameRate: sourceFPS, sourceFrameCount: frames)) }
    }

    @Test(arguments: [Rational(1), Rational(1, 2), Rational(1, 8)])
    func exportShowsTheScheduledSourceFrames(rate: Rational) throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        let spec = RetimeSpec(rate: rate)
        let r = try Exporter.export(ExportRequest(input: src, output: dir.file("out.mp4"), spec: spec))
        let want = try expected(spec, duration: Rational(1), sourceFPS: Rational(240), frames: 240)
        #expect(r.outputFrames == Int64(want.count))
        #expect(try indices(r.output) == want)
        let v = try #require(try Prober.probe(path: r.output).streams.first)
        #expect(v.measuredFrameRate == Rational(30) && v.variableFrameRate == false)
        #expect(v.frameCount == Int64(want.count))
    }

    @Test func mixedSegmentsAndRamps() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir, seconds: Rational(2))
        let spec = RetimeSpec(
            rate: .one,
            segments: [
                try SegmentSpec(parsing: "0.25-0.5@1/4"),
                try SegmentSpec(parsing: "1-1.75@1/8:1/8", allowRamp: true),
            ])
        let r = try Exporter.export(ExportRequest(input: src, output: dir.file("mixed.mkv"), spec: spec))
        #expect(try indices(r.output) == (try expected(spec, duration: Rational(2), sourceFPS: Rational(240), frames: 480)))
    }

    @Test func skippingUndecodedFramesChangesNothingButWork() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        var all = ExportRequest(input: src, output: dir.file("all.mp4"), spec: RetimeSpec())
        all.skipUnneeded = false
        let a = try Exporter.export(all)
        let s = try Exporter.export(ExportRequest(input: src, output: dir.file("skip.mp4"), spec: RetimeSpec()))
        // decoding stops once the last output frame is known (frame 233 proves 232 is the last one shown)
        #expect(a.skippedPackets == 0 && a.decodedPackets >= 233)
        #expect(s.skippedPackets > 0 && s.decodedPackets + s.skippedPackets <= 240 && s.decodedPackets < a.decodedPackets)
        #expect(try indices(a.output) == indices(s.output))
        // intra-only sources: only the frames shown are decoded (1 in 8 at rate 1)
        let mj = try Self.clip(dir, name: "mj.mov", codec: .mjpeg)
        let m = try Exporter.export(ExportRequest(input: mj, output: dir.file("mj-out.mp4"), spec: RetimeSpec()))
        #expect(m.decodedPackets == 30 && m.skippedPackets == 210)
        #expect(try indices(m.output) == (0..<30).map { Optional($0 * 8) })
    }

    @Test func slowerThanTheSourceRepeatsOrBlends() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir, fps: 60, seconds: Rational(1, 2))
        let spec = RetimeSpec(rate: Rational(1, 4))  // needs 120 fps of source for 30 fps out
        let plain = try Exporter.export(ExportRequest(input: src, output: dir.file("rep.mp4"), spec: spec))
        #expect(plain.repeatedFrames == 30)  // 60 outputs from 30 source frames
        #expect(try indices(plain.output) == (0..<60).map { Optional($0 / 2) })
        var b = ExportRequest(input: src, output: dir.file("blend.mp4"), spec: spec)
        b.frameBlend = .blend
        _ = try Exporter.export(b)
        let blended = try indices(b.output)
        // even output frames sit exactly on source frames; odd ones are 50/50 blends (no readable code)
        #expect(blended.enumerated().filter { $0.offset % 2 == 0 }.map(\.element) == (0..<30).map { Optional($0) })
        #expect(blended.enumerated().filter { $0.offset % 2 == 1 && $0.offset < 58 }.allSatisfy { $0.element == nil })
        // motion interpolation (libavfilter minterpolate): same grid, new in-between pictures
        var m = ExportRequest(input: src, output: dir.file("motion.mp4"), spec: spec)
        m.frameBlend = .motion
        let mr = try Exporter.export(m)
        #expect(mr.outputFrames == 60)
        let moved = try indices(m.output)
        #expect(moved.count == 60)
        #expect(moved.enumerated().filter { $0.offset % 2 == 0 }.map(\.element) == (0..<30).map { Optional($0) })
        // (minterpolate ends one source interval early; the last source frame is held there)
        #expect(moved.enumerated().filter { $0.offset % 2 == 1 && $0.offset < 56 }.allSatisfy { $0.element == nil })
    }

    @Test func retimeCopiesPacketsBitForBitWithExactTimes() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        let spec = RetimeSpec(segments: [try SegmentSpec(parsing: "0.25-0.5@1/4")])
        let r = try Retimer.retime(RetimeRequest(input: src, output: dir.file("r.mp4"), spec: spec))
        #expect(r.videoPackets == 240 && !r.timestampsRounded)
        #expect(r.outputDuration == Rational(7, 4))
        let (a, ta) = try packets(src), (b, tb) = try packets(r.output)
        #expect(a.map(\.hash) == b.map(\.hash))  // payloads identical, same order
        let map = try spec.resolve(duration: Rational(1), frameRate: Rational(240))
        #expect(zip(a, b).allSatisfy { x, y in map.targetTime(forSource: Rational(ticks: x.pts, timeBase: ta)) == Rational(ticks: y.pts, timeBase: tb) })
        // decoded frames: same indices, now at the retimed times
        #expect(try indices(r.output) == (0..<240).map { Optional($0) })
        let p = try Prober.probe(path: r.output)
        #expect(p.streams[0].variableFrameRate == true)
        #expect(p.streams[0].averageFrameRate == Rational(240) / Rational(7, 4))
        #expect(p.slomo?["slomo_retime"] != nil)
    }

    @Test func secondRetimeStartsFromTheOriginalTiming() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        let first = try Retimer.retime(
            RetimeRequest(
                input: src, output: dir.file("r1.mkv"),
                spec: RetimeSpec(segments: [try SegmentSpec(parsing: "0-0.5@1/2")])))
        #expect(first.outputDuration == Rational(3, 2))
        let spec2 = RetimeSpec(segments: [try SegmentSpec(parsing: "0.5-1@1/4")])
        let second = try Retimer.retime(RetimeRequest(input: first.output, output: dir.file("r2.mp4"), spec: spec2))
        // read on the original timing: 0.5 s at 1 + 0.5 s at 1/4 = 2.5 s (not 1.5 s + ...)
        #expect(second.outputDuration == Rational(5, 2))
        let (_, tb) = try packets(second.output)
        let map2 = try spec2.resolve(duration: Rational(1), frameRate: Rational(240))
        let times = try packets(second.output).0.map { Rational(ticks: $0.pts, timeBase: tb) }.sorted()
        // the MKV in the middle rounded times to 1 ms; the original 240 fps grid recovers them exactly
        let want = (0..<240).map { map2.targetTime(forSource: Rational(Int64($0), 240)) }
        #expect(times == want)
    }

    struct PacketSummary {
        var hash: Int
        var pts: Int64
    }
    func packets(_ path: String) throws -> ([PacketSummary], Rational) {
        let d = try Demuxer(path: path)
        let v = try #require(d.bestStream(.video))
        let p = Packet()
        var out: [PacketSummary] = []
        while try d.readPacket(into: p) {
            guard p.streamIndex == v else { continue }
            out.append(PacketSummary(hash: p.withBytes { Array($0).hashValue }, pts: p.pts ?? 0))
        }
        return (out, d.streamInfo(v).timeBase)
    }

    /// The output pixel format follows the encoder and the source: a 10-bit source stays 10-bit,
    /// ProRes gets the 4:2:2 10-bit it needs, 8-bit stays 8-bit; every frame still shows the scheduled one.
    @Test(arguments: [("libx264", "mp4"), ("prores_ks", "mov"), ("libx265", "mkv")], [8, 10])
    func pixelFormatFollowsTheEncoderAndTheSourceDepth(output: (codec: String, ext: String), sourceBits: Int) throws {
        let dir = TemporaryDirectory()
        var src = try Self.clip(dir, fps: 60)
        if sourceBits == 10 {
            let ten = dir.file("ten.mkv")
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["ffmpeg", "-v", "error", "-i", src, "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p10le", ten]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
            src = ten
        }
        var e = ExportRequest(input: src, output: dir.file("o.\(output.ext)"), spec: RetimeSpec(rate: Rational(1, 2)))
        e.codec = output.codec
        let r = try Exporter.export(e)
        let v = try #require(try Prober.probe(path: r.output).streams.first(where: { $0.kind == "video" }))
        let want = output.codec == "prores_ks" ? "yuv422p10le" : (sourceBits == 10 ? "yuv420p10le" : "yuv420p")
        #expect(v.pixelFormat == want)
        #expect(try indices(r.output) == (try expected(RetimeSpec(rate: Rational(1, 2)), duration: Rational(1), sourceFPS: Rational(60), frames: 60)))
    }

    /// Matroska stores 60 fps as 0, 17, 33, 50 ms…: the timeline recognises the rounded grid and uses
    /// the exact times, so half speed at 30 fps shows every source frame once (with the stored 17 ms,
    /// output frame 1 at source time 1/60 s would show frame 0 again).
    @Test func millisecondTimestampsOfAConstantRateAreReadOnTheirGrid() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir, fps: 60, name: "src.mkv")
        let r = try Exporter.export(ExportRequest(input: src, output: dir.file("o.mp4"), spec: RetimeSpec(rate: Rational(1, 2))))
        #expect(try indices(r.output) == (0..<60).map { Optional($0) })
        #expect(r.repeatedFrames == 0)
    }

    /// Phone-like variable-rate inputs: frames dropped (100…104 and 200) and, in the 90 kHz file,
    /// ±0.4 ms jitter; the 600-tick file (QuickTime's usual time scale) cannot hold 1/240 s and
    /// alternates 3.3/5 ms. Each output frame shows the last source frame whose stored time is at or
    /// before the mapped time: the expectation is computed here from the file's own timestamps.
    @Test(arguments: [("vfr.mp4", "90000", true), ("vfr.mov", "600", false)])
    func variableRateSourcesShowTheFrameAtTheMappedTime(input: (name: String, timescale: String, jitter: Bool)) throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        let vfr = dir.file(input.name)
        var filter = "select='not(between(n\\,100\\,104))*not(eq(n\\,200))'"
        if input.jitter { filter += ",settb=1/90000,setpts='PTS+36*sin(N*1.7)'" }
        try ffmpegCLI([
            "-i", src, "-vf", filter, "-fps_mode", "passthrough", "-enc_time_base:v", "1/\(input.timescale)",
            "-c:v", "libx264", "-crf", "12", "-preset", "veryfast", "-video_track_timescale", input.timescale, vfr,
        ])
        let probe = try Prober.probe(path: vfr, frames: true)
        #expect(probe.streams[0].variableFrameRate == true)
        let frames = try #require(probe.frames)
        #expect(frames.count == 234)
        let tb = probe.streams[0].timeBase
        let ticks = frames.map { $0.ptsTicks ?? 0 }
        let times = ticks.map { Rational(ticks: $0 - ticks[0], timeBase: tb) }
        let rate = Rational(3, 10)
        let r = try Exporter.export(ExportRequest(input: vfr, output: dir.file("o.mp4"), spec: RetimeSpec(rate: rate)))
        let got = try indices(r.output)
        let want: [Int?] = (0..<got.count).map { n in
            let s = Rational(Int64(n), 30) * rate
            return frames[times.lastIndex { $0 <= s } ?? 0].calibrationIndex
        }
        #expect(got == want)
        #expect(!got.contains { [100, 101, 102, 103, 104, 200].contains($0 ?? -1) })
        if input.jitter { #expect(Set(times.map { $0.denominator }).count > 1) }  // really off any grid
    }

    /// HEVC input (x265 with B-frames; MP4 with its edit list, and MKV): retime copies every packet
    /// bit for bit, decode timestamps stay monotonic, and every frame keeps its index at its mapped time.
    @Test(arguments: ["hevc.mp4", "hevc.mkv"])
    func retimeCopiesHEVCPackets(name: String) throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        let hevc = dir.file(name)
        try ffmpegCLI(["-i", src, "-c:v", "libx265", "-crf", "12", "-preset", "fast", "-x265-params", "log-level=error:bframes=3", hevc])
        let spec = RetimeSpec(segments: [try SegmentSpec(parsing: "0.25-0.5@1/4")])
        let r = try Retimer.retime(RetimeRequest(input: hevc, output: dir.file("r.\(name.split(separator: ".").last!)"), spec: spec))
        #expect(r.videoPackets == 240)
        let (a, _) = try packets(hevc), (b, tb) = try packets(r.output)
        #expect(a.map(\.hash) == b.map(\.hash))
        let d = try Demuxer(path: r.output)
        let v = try #require(d.bestStream(.video))
        let p = Packet()
        var dts: [Int64] = []
        while try d.readPacket(into: p) { if p.streamIndex == v, let t = p.dts { dts.append(t) } }
        // Matroska stores no decode times: its demuxer guesses some; MP4 has all 240
        #expect(zip(dts.dropFirst(), dts).allSatisfy { $0 > $1 })
        if name.hasSuffix(".mp4") { #expect(dts.count == 240) }
        let probe = try Prober.probe(path: r.output, frames: true)
        let frames = try #require(probe.frames)
        #expect(frames.map(\.calibrationIndex) == (0..<240).map { Optional($0) })
        // frame k at its mapped time, to the output time base's tick (Matroska: 1 ms)
        let map = try spec.resolve(duration: Rational(1), frameRate: Rational(240))
        let t0 = Rational(ticks: frames[0].ptsTicks ?? 0, timeBase: tb)
        #expect(
            frames.enumerated().allSatisfy { k, f in
                let err = Rational(ticks: f.ptsTicks ?? 0, timeBase: tb) - t0 - map.targetTime(forSource: Rational(Int64(k), 240))
                return err.magnitude <= tb
            })
    }

    /// Luma of frame 0 of `path`, decoded by the ffmpeg CLI.
    static func firstLuma(_ path: String) throws -> [UInt8] {
        Array(try ffmpegOutput(["-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "pipe:1"]))
    }

    /// Odd sizes: FFV1 keeps 321x181; x264 refuses odd 4:2:0, so the last column and row are cropped
    /// off — not resampled: losslessly encoded, every remaining luma sample equals the source's.
    @Test func oddSizesAreKeptOrCroppedNeverResampled() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir, fps: 60)
        let odd = dir.file("odd.mkv")
        try ffmpegCLI(["-i", src, "-vf", "scale=321:181", "-pix_fmt", "yuv420p", "-c:v", "ffv1", odd])
        var keep = ExportRequest(input: odd, output: dir.file("k.mkv"), spec: RetimeSpec(rate: Rational(1, 2)))
        keep.codec = "ffv1"
        let k = try Exporter.export(keep)
        #expect(k.cropped == nil)
        #expect(try Prober.probe(path: k.output).streams[0].width == 321)
        var crop = ExportRequest(input: odd, output: dir.file("c.mkv"), spec: RetimeSpec(rate: Rational(1)))
        crop.frameRate = Rational(60)
        crop.crf = 0
        let c = try Exporter.export(crop)
        #expect(c.cropped == "321x181 → 320x180")
        let v = try #require(try Prober.probe(path: c.output).streams.first)
        #expect(v.width == 320 && v.height == 180)
        #expect(try indices(c.output) == (0..<60).map { Optional($0) })
        let a = try Self.firstLuma(odd), b = try Self.firstLuma(c.output)
        #expect(a.count == 321 * 181 && b.count == 320 * 180)
        var differing = 0
        for y in 0..<180 {
            for x in 0..<320 where a[y * 321 + x] != b[y * 320 + x] { differing += 1 }
        }
        #expect(differing == 0, "the cropped picture differs from the source's top-left 320x180")
    }
}

/// The audio encoder's sample format: float where the encoder takes it (libopus lists s16 first,
/// then interleaved float), 32-bit integers for a deep source where it offers them.
@Suite struct AudioEncoderFormatTests {
    @Test(arguments: [
        ("libopus", false, "flt"), ("aac", false, "fltp"), ("flac", false, "s16"), ("flac", true, "s32"),
        ("pcm_s16le", true, "s16"),
    ])
    func sampleFormat(codec: String, deep: Bool, expected: String) throws {
        let e = try Encoder(
            path: "x", audio: AudioEncoderSettings(codec: codec, sampleRate: 48_000, channels: 2, bitRate: 128_000, deep: deep),
            globalHeader: false)
        #expect(e.sampleFormat.name == expected)
    }
}

/// A display matrix's angle (FFmpeg's counter-clockwise degrees) → the clockwise quarter turns
/// that show the picture upright, as the ffmpeg CLI's autorotation turns it.
@Suite struct DisplayRotationTests {
    @Test(arguments: [
        (Double?.none, Int?.none), (0, nil), (360, nil), (90, 3), (-90, 1), (270, 1), (-270, 3),
        (180, 2), (-180, 2), (89.5, 3), (-90.4, 1), (45, nil), (Double.nan, nil),
    ])
    func quarterTurns(rotation: Double?, turns: Int?) {
        #expect(DisplayRotation.clockwiseQuarterTurns(rotation) == turns)
    }

    @Test func filters() {
        #expect((1...3).map(DisplayRotation.filter(clockwiseQuarterTurns:)) == ["transpose=clock", "hflip,vflip", "transpose=cclock"])
    }
}
