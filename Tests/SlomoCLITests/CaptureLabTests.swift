import Foundation
import Testing

/// `slomo capture -o take.cine | shot%d.h5 | shot%d/`: the ring's frames written straight into a lab
/// format, read back by programs slomo did not write (FFmpeg's cine demuxer and the layout reader of
/// ConvertCineTests; h5py; tifffile): every sample equal to the synthetic camera's formula for the
/// frame's own sequence number, every time the capture's, the trigger frame 0.
@Suite struct CaptureLabTests {
    /// Every frame's samples against the formula at its sequence number (frames.csv's last column):
    /// argv = raw little-endian samples, bits, frames.csv, width, height.
    static let sequenceCheck = """
        import sys, csv, numpy as np
        raw, bits, table, w, h = open(sys.argv[1], 'rb').read(), int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
        rows = list(csv.DictReader(open(table)))
        a = np.frombuffer(raw, np.uint16 if bits > 8 else np.uint8).reshape(-1, h, w)
        assert a.shape[0] == len(rows), (a.shape, len(rows))
        y, x = np.mgrid[0:h, 0:w]
        for i, r in enumerate(rows):
            n = int(r['sequence'])
            assert (a[i] == (n*1031 + x*37 + y*613) % (1 << bits)).all(), 'frame %d (sequence %d) differs' % (i, n)
        print('ok', len(rows))
        """

    static func report(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// A continuous capture straight to .cine: FFmpeg's samples, the layout reader's times (the
    /// capture's wall-clock time of each frame) and samples, the frame table's sequence numbers.
    @Test func aContinuousCaptureIntoCine() throws {
        let d = TempDir()
        let r = try CLI.run([
            "capture", "--source", "synthetic:fps=250,size=96x64,format=gray16", "--frames", "12", "-o", d.file("take.cine"), "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(d.entries == ["take.cine", "take.cine.capture.json", "take.cine.frames.csv"], "\(d.entries)")
        let report = try Self.report(d.file("take.cine.capture.json"))
        #expect(report["framesWritten"] as? Int == 12 && report["droppedBySlomo"] as? Int == 0, "\(report)")
        let decoded = try CLI.tool(["ffmpeg", "-v", "error", "-i", d.file("take.cine"), "-f", "rawvideo", "-pix_fmt", "gray16le", d.file("ff")])
        #expect(decoded.status == 0, "\(decoded.stderr)")
        let table = d.file("take.cine.frames.csv")
        #expect(try ConvertTests.python(Self.sequenceCheck, [d.file("ff"), "16", table, "96", "64"]) == "ok 12\n")
        // the layout reader: times = the first frame's wall-clock time + each frame's time from the first
        let rows = try String(contentsOfFile: table, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
        let t0 = try #require(Decimal(string: String(rows[0][3])))
        let pts = rows.map { row in "\(Decimal(string: String(row[3]))! - t0)" }.joined(separator: ",")
        let wall = try #require(report["firstFrameWallTime"] as? String)
        let args = [d.file("take.cine"), "16", wall, pts, "0", "0", d.file("lr")]
        #expect(try ConvertTests.python(ConvertCineTests.layoutReader, args) == "ok\n")
        #expect(try ConvertTests.python(Self.sequenceCheck, [d.file("lr"), "16", table, "96", "64"]) == "ok 12\n")
    }

    /// A triggered shot straight to HDF5 and to a TIFF sequence of a Bayer mosaic: the trigger frame
    /// the report's (index from the trigger 0, its time the report's), every sample, every time.
    @Test(arguments: [("gray16", "shot%d.h5"), ("bayer-rggb16", "shot%d/")])
    func aTriggeredShotIntoALabFormat(format: String, output: String) throws {
        let d = TempDir()
        let r = try triggeredShot(size: "96x64", format: format, output: d.file(output))
        #expect(r.status == 0, "\(r.stderr)")
        let isDir = output.hasSuffix("/")
        let report = try Self.report(d.file(isDir ? "shot1.capture.json" : "shot1.h5.capture.json"))
        let shot = try #require((report["shots"] as? [[String: Any]])?.first)
        let trigger = try #require(shot["triggerFrame"] as? Int)
        let triggerTime = try #require(shot["triggerFrameTime"] as? [String: Int])
        let table = d.file(isDir ? "shot1/frames.csv" : "shot1.h5.frames.csv")
        let check = """
            import sys, csv, json, numpy as np
            from fractions import Fraction
            out, table, trigger, num, den = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
            rows = list(csv.DictReader(open(table)))
            assert [int(r['from_trigger']) for r in rows] == list(range(-trigger, len(rows) - trigger)), 'from the trigger'
            assert Fraction(rows[trigger]['time_s']) == Fraction(num, den) and Fraction(rows[trigger]['time_from_trigger_s']) == 0
            if out.endswith('.h5'):
                import h5py
                f = h5py.File(out, 'r'); a = f['/entry/instrument/NDAttributes']; frames = f['/entry/data/data'][:]
                assert list(a['FromTrigger'][:]) == [int(r['from_trigger']) for r in rows] and f['/entry'].attrs['trigger_frame'] == trigger
                assert [Fraction(int(t), 10**9) for t in a['TimeNs'][:]] == [Fraction(r['time_s']) for r in rows], 'times'
                assert list(a['Sequence'][:]) == [int(r['sequence']) for r in rows]
            else:
                import tifffile
                frames = []
                for i, r in enumerate(rows):
                    with tifffile.TiffFile(out + 'frame_%06d.tiff' % i) as t:
                        frames.append(t.pages[0].asarray()); desc = json.loads(t.pages[0].description)
                    assert desc['fromTrigger'] == i - trigger and Fraction(desc['time']) == Fraction(r['time_s']), (i, desc)
                frames = np.array(frames)
            open(sys.argv[6], 'wb').write(frames.astype('<u2').tobytes())
            print('ok')
            """
        let args = [
            d.file(isDir ? "shot1/" : "shot1.h5"), table, "\(trigger)", "\(triggerTime["numerator"]!)", "\(triggerTime["denominator"]!)", d.file("raw"),
        ]
        #expect(try ConvertTests.python(check, args) == "ok\n")
        #expect(try ConvertTests.python(Self.sequenceCheck, [d.file("raw"), "16", table, "96", "64"]) == "ok \(trigger + 11)\n")
    }

    /// What a lab file cannot take from a camera is refused before the camera streams, in one line
    /// naming what would work (exit 64), nothing written.
    @Test func refusals() throws {
        let d = TempDir()
        let cases: [([String], [String])] = [
            (["--source", "synthetic:fps=250,size=96x64", "--frames", "4", "-o", d.file("a.cine")], ["a.cine", "MJPG", "name.mkv", "slomo convert"]),
            (["--source", "synthetic:fps=250,size=96x64,format=gray", "-o", d.file("b.cine")], ["b.cine", "--frames or --duration", "name.h5"]),
            (["--source", "synthetic:fps=250,size=96x64,format=yuyv", "--frames", "4", "-o", d.file("c/")], ["c/", "YUYV", "converted", "slomo convert"]),
        ]
        for (args, words) in cases { expectOneLine(try CLI.run(["capture"] + args), status: 64, contains: words) }
        #expect(d.entries.isEmpty, "\(d.entries)")
        // frames already in the directory are not replaced without --overwrite
        try FileManager.default.createDirectory(atPath: d.file("e"), withIntermediateDirectories: false)
        _ = FileManager.default.createFile(atPath: d.file("e/frame_000003.tiff"), contents: Data("mine".utf8))
        let e = try CLI.run(["capture", "--source", "synthetic:fps=250,size=96x64,format=gray", "--frames", "4", "-o", d.file("e/")])
        expectOneLine(e, status: 73, contains: ["frame_000003.tiff", "exists"])
        #expect(try String(contentsOfFile: d.file("e/frame_000003.tiff"), encoding: .utf8) == "mine")
        // a pattern's directory is not made (only DIR/ is): said before the camera streams, nothing written
        let f = try CLI.run(["capture", "--source", "synthetic:fps=250,size=96x64,format=gray", "--frames", "4", "-o", d.file("f/f_%04d.png")])
        expectOneLine(f, status: 73, contains: [d.file("f/frames.csv"), "does not exist"])
        #expect(d.entries == ["e"], "\(d.entries)")
    }
}
