import Foundation
import Testing

/// `slomo convert … -o take.cine` read back by programs slomo did not write: FFmpeg's cine demuxer
/// (every sample), a reader of the published layout written here in Python (headers, SETUP fields,
/// the time and exposure blocks, every sample, bottom-up rows), and pims' Cine reader (PyPI) when
/// its venv is there (`~/.cache/slomo/lab-readers`, Docs/LabFormats.md). Sources: the synthetic
/// camera's sensor formats (SyntheticSensorTests) and a triggered capture (ConvertCaptureTests).
@Suite struct ConvertCineTests {
    /// The Python of the venv with pims (and pycine), nil when it is not made.
    static let readers: String? = {
        let python =
            (ProcessInfo.processInfo.environment["XDG_CACHE_HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path + "/.cache")
            + "/slomo/lab-readers/bin/python"
        return (try? CLI.tool([python, "-c", "import pims"]))?.status == 0 ? python : nil
    }()

    /// The layout reader: argv = cine, bits, creation_time, pts (comma-separated), then expected
    /// first image number and CFA code; checks every time within 1 µs of creation_time + pts, the
    /// exposures, the trigger time, and prints the images' samples as raw little-endian bytes to argv[7].
    static let layoutReader = """
        import sys, struct, calendar, datetime, numpy as np
        from fractions import Fraction
        path, bits, creation, pts, first, cfa, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(','), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
        b = open(path, 'rb').read()
        assert b[:2] == b'CI', b[:2]
        hsize, comp, version, first_movie, total, first_no, count, off_bmp, off_setup, off_offsets = struct.unpack_from('<HHHiIiIIII', b, 2)
        assert (hsize, version, off_bmp, off_setup, count, total, first_no) == (44, 1, 44, 84, len(pts), len(pts), first), (hsize, version, count, first_no)
        _, w, h, planes, bitcount, bicomp, image_size = struct.unpack_from('<IiiHHII', b, off_bmp)
        assert planes == 1 and bicomp == 0 and bitcount == (16 if bits > 8 else 8) and image_size == w * h * bitcount // 8
        mark, setup_len = struct.unpack_from('<HH', b, off_setup + 140)
        s = lambda o: struct.unpack_from('<I', b, off_setup + o)[0]
        assert mark == 0x5453 and s(808) == cfa and comp == (2 if cfa else 0) and s(896) == bits and s(5732) == 0 and s(5736) == (1 << bits) - 1
        assert s(768) == 250 and s(760) == 0, (s(768), s(760))
        blocks, pos = {}, off_setup + setup_len
        while pos < off_offsets:
            size, kind, _ = struct.unpack_from('<IHH', b, pos); blocks[kind] = b[pos + 8:pos + size]; pos += size
        time64 = lambda v: (v >> 32) + Fraction(v & 0xffffffff, 1 << 32)
        times = [time64(int(v)) for v in np.frombuffer(blocks[1002], '<u8')]
        exposures = [Fraction(int(v), 1 << 32) for v in np.frombuffer(blocks[1003], '<u4')]
        dt = datetime.datetime.fromisoformat(creation.replace('Z', '+00:00'))
        utc = calendar.timegm(dt.utctimetuple()) + Fraction(dt.microsecond, 10**6)
        for i, p in enumerate(pts):
            assert abs(times[i] - (utc + Fraction(p))) <= Fraction(1, 10**6), (i, float(times[i] - utc), p)
            assert abs(exposures[i] - Fraction(1, 250)) <= Fraction(1, 10**9), exposures[i]
        assert abs(time64(struct.unpack_from('<Q', b, 36)[0]) - times[-first]) <= Fraction(1, 10**9), 'trigger time'
        dtype = '<u2' if bitcount == 16 else 'u1'
        with open(out, 'wb') as f:
            for o in struct.unpack_from('<%dq' % count, b, off_offsets):
                annotation = struct.unpack_from('<I', b, o)[0]
                assert struct.unpack_from('<I', b, o + annotation - 4)[0] == image_size
                f.write(np.frombuffer(b, dtype, w * h, o + annotation).reshape(h, w)[::-1].tobytes())
        print('ok')
        """

    static func creationTime(_ path: String) throws -> String {
        try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "format_tags=creation_time", "-of", "default=nw=1:nk=1", path])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [("gray16", "gray16le", 16, 0), ("bayer-rggb8", "bayer_rggb8", 8, 4), ("bayer-rggb12", "bayer_rggb16le", 12, 4)])
    func sensorFormatsReadBackExactly(format: String, ffmpegPixels: String, bits: Int, cfa: Int) throws {
        let d = TempDir(), src = SyntheticSensorTests.captures.file("\(format).mkv"), n = SyntheticSensorTests.frames
        let r = try CLI.run(["convert", src, "-o", d.file("take.cine")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(d.entries == ["take.cine", "take.cine.frames.csv"], "\(d.entries)")
        // FFmpeg's demuxer: the pixel format the CFA code names, every sample (RealBPP 10 or 12 in 16-bit
        // words: FFmpeg scales them to the full range, the samples in the top bits); its pts are image numbers
        // at 1/FrameRate (it does not read the time block)
        let probe = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "stream=pix_fmt,time_base", "-of", "default=nw=1", d.file("take.cine")])
        #expect(probe.stdout.contains("pix_fmt=\(ffmpegPixels)") && probe.stdout.contains("time_base=1/250"), "\(probe.stdout)")
        let decoded = try CLI.tool(["ffmpeg", "-v", "error", "-i", d.file("take.cine"), "-f", "rawvideo", "-pix_fmt", ffmpegPixels, d.file("ff")])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        #expect(try ConvertTests.python(SyntheticSensorTests.rawCheck, [d.file("ff"), "\(bits)", "\(n)", "\(bits > 8 ? 16 - bits : 0)"]) == "ok\n")
        // the layout, every time and every sample
        let pts = try ConvertTests.ffprobeTimes(src).joined(separator: ",")
        let args = [d.file("take.cine"), "\(bits)", try Self.creationTime(src), pts, "0", "\(cfa)", d.file("lr")]
        #expect(try ConvertTests.python(Self.layoutReader, args) == "ok\n")
        #expect(try ConvertTests.python(SyntheticSensorTests.rawCheck, [d.file("lr"), "\(bits)", "\(n)"]) == "ok\n")
        guard let python = Self.readers else {
            print("ConvertCineTests: pims SKIPPED: no ~/.cache/slomo/lab-readers venv")
            return
        }
        // pims: gray samples (it refuses uninterpolated CFA pictures) and, for every file, the times from the trigger
        let check = """
            import sys, numpy as np, pims
            c = pims.Cine(sys.argv[1]); bits = int(sys.argv[2]); y, x = np.mgrid[0:64, 0:96]
            assert len(c) == \(n) and c.header_dict['first_image_no'] == 0
            for n in range(len(c)):
                assert abs(c.get_time_to_trigger(n) - n / 250) < 1e-6, (n, c.get_time_to_trigger(n))
                if c.cfa == 0: assert (np.asarray(c.get_frame(n)) == \(SyntheticSensorTests.formula)).all(), n
            print('ok')
            """
        let pims = try CLI.tool([python, "-c", check, d.file("take.cine"), "\(bits)"])
        #expect(pims.status == 0 && pims.stdout == "ok\n", "\(pims.stderr)")
    }

    /// A triggered shot: the trigger frame is image 0, the frames before it negative, the header's
    /// trigger time the trigger frame's; every sample as FFmpeg decodes the source.
    @Test func aTriggeredShotNumbersItsImagesFromTheTrigger() throws {
        let d = TempDir(), src = ConvertCaptureTests.shot.file("shot.mkv")
        let r = try CLI.run(["convert", src, "-o", d.file("shot.cine")])
        #expect(r.status == 0, "\(r.stderr)")
        let trigger = try #require(Int(try ConvertCaptureTests.tag(src, "SLOMO_TRIGGER_FRAME")))
        let pts = try ConvertTests.ffprobeTimes(src).joined(separator: ",")
        let args = [d.file("shot.cine"), "8", try Self.creationTime(src), pts, "\(-trigger)", "0", d.file("lr")]
        #expect(try ConvertTests.python(Self.layoutReader, args) == "ok\n")
        for (name, input) in [("source", src), ("cine", d.file("shot.cine"))] {
            let f = try CLI.tool(["ffmpeg", "-v", "error", "-i", input, "-f", "rawvideo", "-pix_fmt", "gray", d.file(name)])
            #expect(f.status == 0, "\(f.stderr)")
        }
        let source = try Data(contentsOf: URL(fileURLWithPath: d.file("source")))
        #expect(source == (try Data(contentsOf: URL(fileURLWithPath: d.file("lr")))), "the layout reader's samples differ from the source's")
        #expect(source == (try Data(contentsOf: URL(fileURLWithPath: d.file("cine")))), "FFmpeg's samples differ from the source's")
        if let python = Self.readers {
            let check =
                "import sys, pims; c = pims.Cine(sys.argv[1]); t = int(sys.argv[2]); "
                + "assert c.header_dict['first_image_no'] == -t and abs(c.get_time_to_trigger(t)) < 1e-9; print('ok')"
            #expect(try CLI.tool([python, "-c", check, d.file("shot.cine"), "\(trigger)"]).stdout == "ok\n")
        }
    }

    /// What .cine cannot hold is refused before anything is written, in one line naming what would (exit 64).
    @Test func colourAndOtherMosaicsAreRefused() throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "30", "--duration", "0.1", "--size", "160x90"])
        let bggr = d.file("bggr.mkv")
        let made = try CLI.run([
            "capture", "--source", "synthetic:fps=250,size=96x64,format=bayer-bggr8,pace=0", "--codec", "ffv1", "--frames", "2", "-o", bggr,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let before = d.entries
        expectOneLine(try CLI.run(["convert", clip, "-o", d.file("c.cine")]), status: 64, contains: ["c.cine", "colour (yuv420p)", "TIFF sequence"])
        expectOneLine(try CLI.run(["convert", bggr, "-o", d.file("b.cine")]), status: 64, contains: ["b.cine", "BGGR mosaic", "GBRG or RGGB"])
        #expect(d.entries == before, "\(d.entries)")
    }
}
