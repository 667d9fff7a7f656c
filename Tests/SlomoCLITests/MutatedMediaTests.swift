import Foundation
import Testing

/// Damaged files found by `scripts/mutate-media.py` (kept in `Tests/Fuzz/Media`), each through the
/// command that broke the contract: exit 65, one line that names the input, nothing left in the
/// output's directory.
@Suite struct MutatedMediaTests {
    static let media = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Media").path

    /// (file, command and its arguments before `-o`, output name, the cause the line must give)
    static let cases: [(String, [String], String?, String)] = [
        // FFmpeg's FLAC reader answers a metadata block longer than the file with EIO: the data's
        // fault, not the disk's (was exit 74, "I/O error")
        ("flac-metadata-block-size.flac", ["probe", "--frames"], nil, "open: not a media file FFmpeg can read, or its header is damaged"),
        // an MP4 sample description whose codec became unknown (was exit 64, blaming the output)
        ("mp4-codec-none.mp4", ["retime", "--rate", "1/2"], "r.mp4", "open: the video stream's codec is unknown"),
        // a picture size of 0x0 (was exit 65 naming the output: the encoder refused the size)
        ("nut-size-0x0.nut", ["export", "--rate", "1/2"], "e.mp4", "open: the video stream has no picture size (0x0)"),
        // damaged data half-way: play into a file left the part it had written under the final name
        ("nut-damaged-mid-stream.nut", ["play", "--rate", "16", "--pitch", "varispeed"], "p.nut", "av_read_frame failed: Invalid data found"),
        // a fragment time put one frame 2.4 hours after the others: play waited for it (a hang). (Frame
        // 53 as the file plays: two packets before it are hidden by its edit list.)
        ("mp4-fragment-time-jump.mp4", ["play", "--rate", "16"], "p.nut", "open: the video's timestamps jump 8589.864 s after frame 53"),
        // a fragment time near Int64.min: the span of the timestamps overflowed (a crash, caught by
        // AddressSanitizer's run as an arithmetic-overflow trap)
        ("mp4-timestamp-near-int64-min.mp4", ["retime", "--rate", "1/2"], "r.mp4", "open: the video's timestamps span more than 2^63 ticks"),
    ]

    @Test(arguments: 0..<6) func damagedInputKeepsTheContract(_ i: Int) throws {
        let (file, args, outName, cause) = Self.cases[i]
        let input = "\(Self.media)/\(file)"
        let out = TempDir()
        var argv = [args[0], input] + args.dropFirst()
        if let outName { argv += ["-o", out.file(outName)] }
        let r = try CLI.run(argv)
        #expect(r.status == 65, "\(file): \(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("slomo:") }
        #expect(lines.count == 1 && lines[0].hasPrefix("slomo: \(input): \(cause)"), "\(file): \(r.stderr)")
        #expect(out.entries.isEmpty, "\(file): left \(out.entries)")
    }

    /// A damaged JPEG that FFmpeg's MJPEG decoder answers with -1 (read as EPERM: the export ended
    /// with "Operation not permitted", exit 77): now a damaged packet like any other, counted, the
    /// frame before it shown in its place, exit 0 with one warning.
    @Test func decoderErrorsOfAnyCodeAreDamage() throws {
        let input = "\(Self.media)/mov-mjpeg-decoder-minus-one.mov"
        let out = TempDir()
        let r = try CLI.run(["export", input, "-o", out.file("e.mp4"), "--rate", "1/2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            r.stderr
                == "slomo: warning: \(input): damaged input, exported what decodes: 1 video packets failed to decode; 1 output frames show an earlier frame instead\n"
        )
        #expect(out.entries == ["e.mp4"])
    }

    /// `probe` of the same file does not trap. The packet near Int64.min is before the file's edit
    /// list (hidden, FFmpeg flags it discarded): probe counts the 57 frames the file shows, and
    /// their rate; retime, which would copy the hidden packet too, refuses the file (above).
    @Test func probeOfAnOverflowingSpanDoesNotTrap() throws {
        let r = try CLI.run(["probe", "\(Self.media)/mp4-timestamp-near-int64-min.mp4"])
        #expect(r.status == 0 && r.stdout.contains(", measured 8000000/35119 (227.796919) fps VFR, 57 frames"), "\(r.stdout) \(r.stderr)")
    }

    /// An AVI whose damaged chunk puts the audio 5592 s after the video: the silence before it was
    /// held in memory (a run that did not end in 60 s, 700 MB and growing). Now the late frame
    /// waits until a read reaches it; the export is the video's second of audio, in a blink.
    @Test func audioHoursLateIsNotHeldAsSilence() throws {
        let out = TempDir()
        let r = try CLI.run(["export", "\(Self.media)/avi-audio-chunk-hours-late.avi", "-o", out.file("e.mp4"), "--rate", "1/2", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: r.output) as? [String: Any]
        #expect(report?["outputFrames"] as? Int == 30 && report?["audioFrames"] as? Int == 48_000, "\(r.stdout)")
    }
}
