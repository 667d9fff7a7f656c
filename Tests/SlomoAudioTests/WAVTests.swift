import Foundation
import SlomoAudio
import SlomoCore
import SlomoTestSupport
import Testing

/// The WAV path (`WAVFileSource`, `WAVFileWriter`) against FFmpeg on the same files.
@Suite struct WAVTests {
    func read(_ s: any AudioFileSource, at position: Int64, count: Int) throws -> [[Float]] {
        let planes = (0..<s.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: count) }
        defer { planes.forEach { $0.deallocate() } }
        try s.read(at: position, count: count, into: planes)
        return planes.map { Array(UnsafeBufferPointer(start: $0, count: count)) }
    }

    /// Every sample format FFmpeg's wav muxer writes (plain and extensible headers), mono and stereo,
    /// with origins on and between samples: the same floats, the same silence outside, the same layout name.
    @Test(arguments: [
        ("pcm_u8", 1), ("pcm_s16le", 2), ("pcm_s16le", 1), ("pcm_s24le", 2), ("pcm_s32le", 1),
        ("pcm_f32le", 2), ("pcm_f64le", 1),
    ])
    func readsTheSameSamplesAsFFmpeg(codec: String, channels: Int) throws {
        let dir = ScratchDirectory()
        let path = dir.file("x.wav")
        // loud enough to clip (1.3 peak), with a different signal per channel
        try ffmpegCLI([
            "-f", "lavfi", "-i", "aevalsrc=1.3*sin(2*PI*997*t)|0.7*sin(2*PI*331*t)*cos(2*PI*3*t):s=22050:d=0.4",
            "-ac", "\(channels)", "-c:a", codec, path,
        ])
        for origin in [Rational.zero, Rational(1, 3), Rational(7, 44_100)] {
            let native = try #require(WAVFileSource(path: path, origin: origin), "\(codec) not read natively")
            let decoded = try DecodedAudioSource(path: path, origin: origin)
            #expect(native.sampleRate == 22_050 && native.channels == channels)
            #expect(native.channelLayout == decoded.channelLayout)
            #expect(native.frames == 8820 - (origin * Rational(22_050)).rounded(.nearest))
            for (position, count) in [(Int64(-50), 3000), (2950, 6000), (8000, 2000)] {
                let a = try read(native, at: position, count: count), b = try read(decoded, at: position, count: count)
                let differing = zip(a.joined(), b.joined()).enumerated().filter { $0.element.0 != $0.element.1 }
                #expect(differing.isEmpty, "\(codec) origin \(origin) at \(position): \(differing.count) differ, first \(differing.prefix(3))")
            }
        }
    }

    /// What the reader leaves to FFmpeg: RF64, more than two channels, a codec other than PCM/float.
    @Test func otherFilesAreLeftToFFmpeg() throws {
        let dir = ScratchDirectory()
        try ffmpegCLI(["-f", "lavfi", "-i", "sine=d=0.1", "-rf64", "always", dir.file("rf64.wav")])
        try ffmpegCLI(["-f", "lavfi", "-i", "sine=d=0.1", "-ac", "6", dir.file("six.wav")])
        try ffmpegCLI(["-f", "lavfi", "-i", "sine=d=0.1", "-c:a", "pcm_alaw", dir.file("alaw.wav")])
        try ffmpegCLI(["-f", "lavfi", "-i", "sine=d=0.1", "-c:a", "flac", dir.file("x.flac")])
        for f in ["rf64.wav", "six.wav", "alaw.wav", "x.flac"] {
            #expect(WAVFileSource(path: dir.file(f)) == nil, "\(f)")
            #expect(try AudioFiles.open(path: dir.file(f), origin: .zero) is DecodedAudioSource, "\(f)")
        }
    }

    /// The writer's 16-bit samples are FFmpeg's (libswresample's flt→s16): ties to even, clipping,
    /// the extremes; compared with what `ffmpeg -c:a pcm_s16le` makes of the same floats.
    @Test func writesTheSixteenBitSamplesFFmpegWrites() throws {
        let dir = ScratchDirectory()
        var x: [Float] = [
            0, 0.5 / 32768, 1.5 / 32768, 2.5 / 32768, -0.5 / 32768, -1.5 / 32768, 1, -1, 1.5, -1.5,
            32767.5 / 32768, -32768.5 / 32768, 0.999_99, -0.999_99, 1e-9, 100, -100,
        ]
        var g = SystemRandomNumberGenerator()
        for _ in 0..<5000 { x.append(Float.random(in: -1.1...1.1, using: &g)) }
        let left = x, right = x.reversed().map { -$0 }
        // the floats as a 32-bit float WAV, converted by FFmpeg
        var f32: [UInt8] = [], bytes: [UInt8] = []
        for i in x.indices { for v in [left[i], right[i]] { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 } } }
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        f32 += Array("RIFF".utf8) + le(36 + bytes.count, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(3, 2) + le(2, 2)
        f32 += le(48_000, 4) + le(48_000 * 8, 4) + le(8, 2) + le(32, 2) + Array("data".utf8) + le(bytes.count, 4) + bytes
        try Data(f32).write(to: URL(fileURLWithPath: dir.file("f32.wav")))
        try ffmpegCLI(["-i", dir.file("f32.wav"), "-c:a", "pcm_s16le", "-f", "s16le", dir.file("ref.raw")])

        let w = try WAVFileWriter(path: dir.file("out.wav"), channels: 2, sampleRate: 48_000)
        try w.append([Array(left[..<7]), Array(right[..<7])])  // in two pieces
        try w.append([Array(left[7...]), Array(right[7...])])
        try w.finish()
        let out = try Data(contentsOf: URL(fileURLWithPath: dir.file("out.wav")))
        let ref = try Data(contentsOf: URL(fileURLWithPath: dir.file("ref.raw")))
        #expect(out.count == 44 + x.count * 4)
        #expect(out.dropFirst(44) == ref)
        // and the header is one FFmpeg reads back: same samples, 48 kHz stereo
        let back = try DecodedAudioSource(path: dir.file("out.wav"), origin: .zero)
        #expect(back.sampleRate == 48_000 && back.channels == 2)
        let s = try read(back, at: 0, count: x.count)
        #expect(s[0][1] == 0 && s[0][2] == Float(2) / 32768 && s[0][3] == Float(2) / 32768 && s[0][6] == Float(32767) / 32768)
        #expect(s[0][7] == -1 && s[0][11] == -1)
    }

    /// Headers built by hand: chunks before `fmt `, odd-sized padded chunks, and the ones to refuse.
    @Test func headerWalk() {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        let fmt = Array("fmt ".utf8) + le(16, 4) + le(1, 2) + le(2, 2) + le(8000, 4) + le(32_000, 4) + le(4, 2) + le(16, 2)
        func file(_ chunks: [UInt8], data: Int = 40) -> [UInt8] {
            let body = Array("WAVE".utf8) + chunks + Array("data".utf8) + le(data, 4) + [UInt8](repeating: 7, count: data)
            return Array("RIFF".utf8) + le(body.count, 4) + body
        }
        func parse(_ b: [UInt8], size: Int? = nil) -> WAV.Layout? {
            WAV.layout(fileSize: Int64(size ?? b.count)) { o, n in Array(b[Int(o)..<Swift.min(b.count, Int(o) + n)]) }
        }
        let junk = Array("JUNK".utf8) + le(3, 4) + [1, 2, 3, 0]  // odd size, one pad byte
        let l = parse(file(junk + fmt))
        #expect(l?.format == .s16 && l?.channels == 2 && l?.sampleRate == 8000 && l?.frames == 10)
        #expect(l?.dataOffset == 12 + 12 + 24 + 8 && l?.channelLayout == "2 channels")
        #expect(parse(file(fmt, data: 42)) == nil)  // not whole frames
        #expect(parse(file(fmt), size: 12 + 24 + 8 + 20) == nil)  // data runs past the end of the file
        #expect(parse(file([])) == nil)  // data before fmt
        var rf64 = file(fmt)
        rf64.replaceSubrange(0..<4, with: Array("RF64".utf8))
        #expect(parse(rf64) == nil)
        var mono = fmt
        mono.replaceSubrange(10..<12, with: le(1, 2))  // 2 channels declared with a 1-channel block
        #expect(parse(file(mono)) == nil)
        #expect(WAV.header16(channels: 2, sampleRate: 48_000, frames: 1 << 30) == nil)  // 4 GiB of data
        #expect(WAV.header16(channels: 1, sampleRate: 48_000, frames: 10)?.count == 44)
    }
}
