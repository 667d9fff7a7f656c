import Foundation
import Testing

/// The synthetic camera's lab formats (`format=gray16`, `bayer-rggb8`, `bayer-rggb12`, `bayer-rggb16`):
/// captured to FFV1 in Matroska, the mosaic's pattern in the file's tags, and every sample of the
/// recording and of its TIFF sequence equal to the formula of Docs/Capture.md, read by FFmpeg and
/// tifffile (programs slomo did not write).
@Suite struct SyntheticSensorTests {
    static let width = 96, height = 64, frames = 8
    /// Sample (x, y) of the frame with sequence number n (the first frame's is 0), masked to the depth.
    static let formula = "(n*1031 + x*37 + y*613) % (1 << bits)"

    /// One unpaced capture per format: `format → recording`.
    static let captures: TempDir = {
        let d = TempDir()
        for f in ["gray16", "bayer-rggb8", "bayer-rggb12", "bayer-rggb16"] {
            let r = try! CLI.run([
                "capture", "--source", "synthetic:fps=250,size=\(width)x\(height),format=\(f),pace=0", "--codec", "ffv1", "--frames",
                "\(frames)", "-o", d.file("\(f).mkv"),
            ])
            precondition(r.status == 0, r.stderr)
        }
        return d
    }()

    /// Checks every sample of frames in raw little-endian samples (`ffmpeg -f rawvideo`) against the
    /// formula (in the top bits when argv[4] gives a shift: FFmpeg scales 12 bits held in 16 to the
    /// full range, the samples moved up and their top bits repeated below them).
    static let rawCheck = """
        import sys, numpy as np
        raw, bits, frames = open(sys.argv[1], 'rb').read(), int(sys.argv[2]), int(sys.argv[3])
        shift = int(sys.argv[4]) if len(sys.argv) > 4 else 0
        a = np.frombuffer(raw, np.uint16 if bits > 8 else np.uint8).reshape(-1, 64, 96)
        assert a.shape[0] == frames, a.shape
        y, x = np.mgrid[0:64, 0:96]
        for n in range(frames):
            assert (a[n] >> shift == (n*1031 + x*37 + y*613) % (1 << bits)).all(), 'frame %d differs' % n
        print('ok')
        """

    @Test(arguments: [
        ("gray16", "gray16le", 16, ""), ("bayer-rggb8", "gray", 8, "RGGB"), ("bayer-rggb12", "gray12le", 12, "RGGB"), ("bayer-rggb16", "gray16le", 16, "RGGB"),
    ])
    func capturedExactlyWithTheMosaicTagged(format: String, pixels: String, bits: Int, pattern: String) throws {
        let src = Self.captures.file("\(format).mkv")
        let probe = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "stream=pix_fmt:format_tags=slomo_cfa_pattern", "-of", "default=nw=1", src])
        #expect(probe.stdout.contains("pix_fmt=\(pixels)"), "\(probe.stdout)")
        #expect(probe.stdout.contains("TAG:SLOMO_CFA_PATTERN=\(pattern)") == !pattern.isEmpty, "\(probe.stdout)")
        // the recording: FFmpeg's own decode, every sample
        let d = TempDir()
        let decoded = try CLI.tool(["ffmpeg", "-v", "error", "-i", src, "-f", "rawvideo", "-pix_fmt", pixels, d.file("raw")])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(try ConvertTests.python(Self.rawCheck, [d.file("raw"), "\(bits)", "\(Self.frames)"]) == "ok\n")
        // its TIFF sequence: tifffile, every sample, as many bits as the camera filled
        let r = try CLI.run(["convert", src, "-o", d.file("t") + "/", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        #expect(json["significantBits"] as? Int == bits && json["exact"] as? Bool == true, "\(json)")
        let check = """
            import sys, numpy as np, tifffile
            bits = int(sys.argv[2]); y, x = np.mgrid[0:64, 0:96]
            for n in range(\(Self.frames)):
                a = tifffile.imread(sys.argv[1] % n)
                assert a.dtype == (np.uint16 if bits > 8 else np.uint8) and (a == \(Self.formula)).all(), 'frame %d differs' % n
            print('ok')
            """
        #expect(try ConvertTests.python(check, [d.file("t/frame_%06d.tiff"), "\(bits)"]) == "ok\n")
    }

    /// A format the camera does not have is refused in one line naming the ones it has (exit 64).
    @Test func anUnknownSensorFormatIsRefused() throws {
        let d = TempDir()
        let r = try CLI.run(["capture", "--source", "synthetic:format=bayer-rgbg8", "--frames", "2", "-o", d.file("x.mkv")])
        expectOneLine(r, status: 64, contains: ["bayer-rgbg8", "gray16", "bayer-rggb8|10|12|16"])
        #expect(d.entries.isEmpty, "\(d.entries)")
    }
}
