import Foundation
import SlomoTestSupport
import Testing
import SlomoCore
import SlomoFFmpeg
@testable import SlomoKit

/// `retime` copies AAC packets where the map plays at rate 1 (#43, item 8): clips with a 440 Hz
/// sine made by the ffmpeg CLI, so that every output sample can be checked against the source's.
@Suite struct RetimeAudioCopyTests {
    /// `seconds` of 30 fps test pattern with AAC sine tracks (440 Hz, then 660 Hz… for more), 48 kHz.
    static func clip(_ dir: TemporaryDirectory, seconds: Int = 60, tracks: Int = 1, name: String = "src.mp4") throws -> String {
        let out = dir.file(name)
        var args = ["-f", "lavfi", "-i", "testsrc2=size=160x90:rate=30"]
        for t in 0..<tracks { args += ["-f", "lavfi", "-i", "sine=f=\(440 + 220 * t):sample_rate=48000"] }
        args += ["-map", "0:v"] + (0..<tracks).flatMap { ["-map", "\($0 + 1):a"] }
        args += ["-t", "\(seconds)", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-b:a", "128k"]
        if tracks > 1 { args += ["-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=deu", "-metadata:s:a:1", "title=Kommentar"] }
        try ffmpegCLI(args + [out])
        return out
    }

    /// An audio stream's packets (times in its time base, which is 1/48000 here).
    static func packets(_ path: String, track: Int = 0) throws -> [(pts: Int64, duration: Int64, data: [UInt8])] {
        let d = try Demuxer(path: path)
        let a = d.streams.filter { $0.kind == .audio }.map(\.index)[track]
        #expect(d.streamInfo(a).timeBase == Rational(1, 48_000))
        let p = Packet()
        var out: [(pts: Int64, duration: Int64, data: [UInt8])] = []
        while try d.readPacket(into: p) {
            if p.streamIndex == a { out.append((p.pts ?? 0, p.duration, p.withBytes { Array($0) })) }
        }
        return out
    }

    /// A track decoded to mono Float by the ffmpeg CLI (the independent decoder; edit lists applied).
    static func decoded(_ path: String, track: Int = 0) throws -> [Float] {
        let data = try ffmpegOutput(["-i", path, "-map", "0:a:\(track)", "-ac", "1", "-f", "f32le", "pipe:1"])
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Output packets that are the source's own bytes at output pts − `offset(pts)`: by pts.
    static func copied(
        _ out: [(pts: Int64, duration: Int64, data: [UInt8])], source: [(pts: Int64, duration: Int64, data: [UInt8])],
        offset: (Int64) -> Int64
    ) -> Set<Int64> {
        let byPTS = Dictionary(source.map { ($0.pts, $0.data) }, uniquingKeysWith: { a, _ in a })
        return Set(out.filter { byPTS[$0.pts - offset($0.pts)] == $0.data }.map(\.pts))
    }

    /// The sound at each join between copied and encoded packets is the source's: within ±2048
    /// samples of it (past the first 1024, where the tone's abrupt start rings differently) the output differs from the source (shifted by the copy's offset) by no more
    /// than a re-encode does (the tone's amplitude is 1/8; a frame lost or repeated differs by up to 1/4).
    static func checkJoins(_ y: [Float], _ x: [Float], joins: [Int64], offset: (Int64) -> Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        for j in joins {
            let around = Swift.max(1024, Int(j) - 2048)..<Swift.min(y.count, Int(j) + 2048)
            let worst =
                around.map { n -> Float in
                    let m = n - Int(offset(Int64(n)))
                    return m >= 0 && m < x.count ? abs(y[n] - x[m]) : 1
                }.max() ?? 1
            #expect(worst < 0.03, "join at sample \(j): \(worst) off the source", sourceLocation: sourceLocation)
        }
    }

    /// No gap or click anywhere: every 1024-sample block's RMS within 20 % of the tone's, no 32
    /// samples in a row at zero.
    static func checkSteady(_ y: [Float], from: Int, to: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let tone = Float(0.125 / 2.0.squareRoot())
        var worst: (Int, Float) = (0, 1)
        for b in stride(from: from, to: to - 1024, by: 1024) {
            let rms = (y[b..<(b + 1024)].reduce(0) { $0 + $1 * $1 } / 1024).squareRoot()
            if abs(rms / tone - 1) > abs(worst.1 - 1) { worst = (b, rms / tone) }
        }
        #expect(abs(worst.1 - 1) < 0.2, "block at \(worst.0): RMS \(worst.1) of the tone's", sourceLocation: sourceLocation)
        var run = 0, longest = 0
        for v in y[from..<to] {
            run = abs(v) < 1e-4 ? run + 1 : 0
            longest = Swift.max(longest, run)
        }
        #expect(longest < 32, "\(longest) silent samples in a row", sourceLocation: sourceLocation)
    }

    /// 60 s, 29–31 s at 1/4 (66 s out): the packets before the change are the source's at the same
    /// time, those after it the source's moved by the 6 s it added (to the AAC frame grid: 256
    /// samples less); only the change and a few frames around it are encoded; the sound is whole.
    @Test func packetsOutsideTheChangeAreTheSourcesOwn() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir)
        let r = try Retimer.retime(RetimeRequest(input: src, output: dir.file("r.mp4"), spec: RetimeSpec(segments: [try SegmentSpec(parsing: "29-31@1/4")])))
        let sr: Int64 = 48_000
        #expect(r.outputDuration == Rational(66) && r.audioFrames == 66 * sr)
        let track = try #require(r.audioPackets.first)
        let shift = (track.shift * Rational(sr)).rounded(.nearest)
        #expect(shift == -256 && track.encodedWhole == nil)
        let a = try Self.packets(src), b = try Self.packets(r.output)
        #expect(track.copied + track.encoded == b.count)
        // every packet before 28.5 s and after 37.5 s (past 0.1 s and before the last 0.1 s)
        let after = 6 * sr + shift
        let offset = { (pts: Int64) in pts < 33 * sr ? 0 : after }
        let same = Self.copied(b, source: a, offset: offset)
        let outside = b.filter { ($0.pts >= sr / 10 && $0.pts + 1024 <= 57 * sr / 2) || ($0.pts >= 75 * sr / 2 && $0.pts + 1024 <= 66 * sr - sr / 10) }
        #expect(outside.count > 2_600)
        #expect(outside.allSatisfy { same.contains($0.pts) && $0.duration == 1024 }, "\(outside.filter { !same.contains($0.pts) }.map(\.pts).prefix(5))")
        #expect(same.count == track.copied)
        // the encoded packets: the change (8 s) and under half a second around it, a few at the ends
        #expect(track.encoded <= Int((8 * sr + sr / 2) / 1024) + 8)
        // contiguous: each packet starts where the one before ends
        #expect(zip(b.dropFirst(), b).allSatisfy { $0.pts == $1.pts + 1024 })
        // the sound: as long as the video (to a frame), the source's at every join, never a gap
        let x = try Self.decoded(src), y = try Self.decoded(r.output)
        #expect(abs(Int64(y.count) - 66 * sr) <= 1024)
        let joins = zip(b.dropFirst(), b).filter { same.contains($0.pts) != same.contains($1.pts) }.map(\.0.pts)
        #expect(joins.count == 4, "joins at \(joins)")
        Self.checkJoins(y, x, joins: joins, offset: offset)
        Self.checkSteady(y, from: Int(sr / 10), to: Int(66 * sr - sr / 10))
    }

    /// Two tracks (language and name kept), cut by `--start`/`--end`: each copied on its own,
    /// each as long as the video, the second one's packets the source's too.
    @Test func everyTrackOfAPartIsCopied() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir, seconds: 20, tracks: 2)
        var q = RetimeRequest(input: src, output: dir.file("part.mp4"), spec: RetimeSpec(segments: [try SegmentSpec(parsing: "8-9@1/2")]))
        q.trim = try SourceTrim.parse(start: "2", end: "18")
        let r = try Retimer.retime(q)
        #expect(r.audioTracks == 2 && r.audioPackets.map(\.stream) == [1, 2])
        #expect(r.audioPackets.allSatisfy { $0.copied > 500 && $0.encodedWhole == nil })
        #expect(r.outputDuration == Rational(17))
        let probe = try Prober.probe(path: r.output)
        let audio = probe.streams.filter { $0.kind == "audio" }
        let sourceAudio = try Prober.probe(path: src).streams.filter { $0.kind == "audio" }
        #expect(audio.map { $0.metadata["language"] } == ["eng", "deu"])
        #expect(audio.map { $0.metadata["handler_name"] } == sourceAudio.map { $0.metadata["handler_name"] })
        let sr: Int64 = 48_000
        for t in 0..<2 {
            let a = try Self.packets(src, track: t), b = try Self.packets(r.output, track: t)
            let shift = (r.audioPackets[t].shift * Rational(sr)).rounded(.nearest)
            // output time 0 is source 2 s; after the change 1 s later
            let offset = { (pts: Int64) in pts < 7 * sr ? -2 * sr : -sr + shift }
            let same = Self.copied(b, source: a, offset: offset)
            #expect(same.count == r.audioPackets[t].copied)
            let y = try Self.decoded(r.output, track: t), x = try Self.decoded(src, track: t)
            #expect(abs(Int64(y.count) - 17 * sr) <= 1024)
            let joins = zip(b.dropFirst(), b).filter { same.contains($0.pts) != same.contains($1.pts) }.map(\.0.pts)
            #expect(joins.count == 4, "track \(t): joins at \(joins)")
            if t == 0 {
                Self.checkJoins(y, x, joins: joins, offset: offset)
                Self.checkSteady(y, from: Int(sr / 10), to: Int(17 * sr - sr / 10))
            }
        }
    }

    /// Encoded whole, and the report says why: a codec named with `--audio-codec` (even the
    /// source's), a map with no part at rate 1, `--pitch mute`.
    @Test func encodedWholeWhereCopyingCannotBeExact() throws {
        let dir = TemporaryDirectory()
        let src = try Self.clip(dir, seconds: 4)
        var named = RetimeRequest(input: src, output: dir.file("n.mp4"), spec: RetimeSpec(segments: [try SegmentSpec(parsing: "1-2@1/2")]))
        named.audioCodec = "aac"
        var slow = RetimeRequest(input: src, output: dir.file("s.mp4"), spec: RetimeSpec(rate: Rational(1, 2)))
        slow.audioCodec = "auto"
        var mute = RetimeRequest(input: src, output: dir.file("m.mp4"), spec: RetimeSpec(segments: [try SegmentSpec(parsing: "1-2@1/2")]))
        mute.pitch = "mute"
        for (q, why) in [(named, "--audio-codec aac"), (slow, "rate 1"), (mute, "mute")] {
            let r = try Retimer.retime(q)
            let t = try #require(r.audioPackets.first)
            let written = try Self.packets(r.output).count
            #expect(t.copied == 0 && t.encoded == written)
            #expect(t.encodedWhole?.contains(why) == true, "\(String(describing: t.encodedWhole))")
            #expect(r.audioFrames == (r.outputDuration * Rational(48_000)).rounded(.nearest))
        }
    }
}
