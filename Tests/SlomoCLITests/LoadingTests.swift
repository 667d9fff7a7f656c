import Foundation
import Testing

/// FFmpeg's libraries are loaded only when a command needs them (CFFmpegLoader); a WAV `stretch`
/// never loads them and writes the same samples as the FFmpeg path.
@Suite struct LoadingTests {
    /// The decoded 16-bit samples of `path` (FFmpeg CLI, no conversion: all outputs here are s16).
    func samples(_ path: String) throws -> Data {
        let r = try CLI.tool(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-c:a", "pcm_s16le", "-"])
        #expect(r.status == 0)
        return r.output
    }

    /// Libraries the dynamic loader opened for one run (`LD_DEBUG=libs` lists each it loads).
    func loadedFFmpeg(_ r: CLI.Result) -> Set<String> {
        Set(
            r.stderr.split(separator: "\n").compactMap { line -> String? in
                guard line.contains("calling init:") else { return nil }
                return ["libavutil", "libavcodec", "libavformat", "libavfilter", "libswresample", "libswscale"]
                    .first { line.contains("/\($0).so") }
            })
    }

    @Test func versionAndWAVStretchLoadNoFFmpegLibrary() throws {
        let d = TempDir()
        let debug = ["LD_DEBUG": "libs"]
        let version = try CLI.run(["--version"], environment: debug)
        #expect(version.status == 0)
        #expect(version.stderr.contains("calling init:"), "LD_DEBUG had no effect; the check below would prove nothing")
        #expect(loadedFFmpeg(version).isEmpty)

        let made = try CLI.tool([
            "ffmpeg", "-v", "error", "-f", "lavfi", "-i",
            "aevalsrc=0.6*sin(2*PI*440*t)|0.4*sin(2*PI*660*t):s=44100:d=1.5",
            "-c:a", "pcm_s16le", d.file("in.wav"),
        ])
        let packed = try CLI.tool(["ffmpeg", "-v", "error", "-i", d.file("in.wav"), "-c:a", "flac", d.file("in.flac")])  // same samples
        #expect(made.status == 0 && packed.status == 0)
        let wav = try CLI.run(
            ["stretch", d.file("in.wav"), "-o", d.file("a.wav"), "--rate", "2/3", "--pitch", "time-domain"],
            environment: debug)
        #expect(wav.status == 0, "\(wav.stderr.suffix(300))")
        #expect(loadedFFmpeg(wav).isEmpty, "\(loadedFFmpeg(wav))")

        // the same audio as FLAC goes through FFmpeg (so the check does see FFmpeg being loaded) …
        let flac = try CLI.run(
            ["stretch", d.file("in.flac"), "-o", d.file("b.wav"), "--rate", "2/3", "--pitch", "time-domain"],
            environment: debug)
        #expect(flac.status == 0)
        #expect(loadedFFmpeg(flac).isSuperset(of: ["libavcodec", "libavformat"]))
        #expect(!loadedFFmpeg(flac).contains("libavfilter"), "stretch has no use for libavfilter")
        // … and FFmpeg's encoder writes the .caf: every output holds the same samples
        let caf = try CLI.run(["stretch", d.file("in.wav"), "-o", d.file("c.caf"), "--rate", "2/3", "--pitch", "time-domain"])
        #expect(caf.status == 0)
        let a = try samples(d.file("a.wav"))
        #expect(a.count == 2 * 2 * 99_225)  // 1.5 s × 3/2 at 44.1 kHz, stereo 16-bit
        #expect(a == (try samples(d.file("b.wav"))))
        #expect(a == (try samples(d.file("c.caf"))))
    }

    /// Rubber Band is linked from Debian's static archive (the code the `rubberband` tool runs, without
    /// the shared library's position-independent calls; Docs/TimePitch.md): a spectral stretch opens
    /// no Rubber Band shared object, and no FFmpeg library either.
    @Test func spectralStretchRunsRubberBandLinkedIn() throws {
        let d = TempDir()
        let made = try CLI.tool(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.5", "-c:a", "pcm_s16le", d.file("in.wav")])
        #expect(made.status == 0)
        let r = try CLI.run(
            ["stretch", d.file("in.wav"), "-o", d.file("out.wav"), "--rate", "1/2", "--pitch", "spectral"],
            environment: ["LD_DEBUG": "libs"])
        #expect(r.status == 0, "\(r.stderr.suffix(300))")
        #expect(r.stderr.contains("calling init:"), "LD_DEBUG had no effect; the check below would prove nothing")
        #expect(!r.stderr.contains("librubberband"))
        #expect(loadedFFmpeg(r).isEmpty)
        #expect(try samples(d.file("out.wav")).count == 2 * 48_000)  // 0.5 s at 1/2, mono 16-bit
    }
}
