import Foundation
import Testing

/// `slomo convert … -o name_%04d.dng` of the synthetic camera's mosaics, read back by programs
/// slomo did not write: exiftool (the DNG and CinemaDNG tags), dcraw (it opens them as raw files:
/// the pattern, and every sample of every frame undeveloped) and LibRaw (the pattern and a frame's
/// unprocessed samples). Debian's libimage-exiftool-perl, dcraw and libraw-bin.
@Suite struct ConvertDNGTests {
    @Test(arguments: [("bayer-rggb8", 8), ("bayer-rggb12", 12)])
    func mosaicsOpenInRawReadersWithEverySample(format: String, bits: Int) throws {
        let d = TempDir(), src = SyntheticSensorTests.captures.file("\(format).mkv"), n = SyntheticSensorTests.frames
        let r = try CLI.run(["convert", src, "-o", d.file("f_%04d.dng")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(d.entries == ["f_0000.dng", "f_0001.dng", "f_0002.dng", "f_0003.dng", "f_0004.dng", "f_0005.dng", "f_0006.dng", "f_0007.dng", "frames.csv"])
        // exiftool: the DNG tags, and each frame's CinemaDNG time code (its UTC time of day, 30 a second)
        let tags = try CLI.tool([
            "exiftool", "-j", "-n", "-DNGVersion", "-PhotometricInterpretation", "-CFARepeatPatternDim", "-CFAPattern2",
            "-BlackLevel", "-WhiteLevel", "-FrameRate", d.file("f_0000.dng"),
        ])
        let json = try #require((try JSONSerialization.jsonObject(with: Data(tags.stdout.utf8)) as? [[String: Any]])?.first)
        #expect(json["DNGVersion"] as? String == "1 4 0 0" && json["PhotometricInterpretation"] as? Int == 32803, "\(json)")
        #expect(json["CFARepeatPatternDim"] as? String == "2 2" && json["CFAPattern2"] as? String == "0 1 1 2", "\(json)")
        #expect(json["BlackLevel"] as? Int == 0 && json["WhiteLevel"] as? Int == (1 << bits) - 1 && json["FrameRate"] as? Int == 250, "\(json)")
        let codes = try CLI.tool([
            "exiftool", "-T", "-TimeCodes", d.file("f_0000.dng"),
            d.file("f_0007.dng"),
        ]).stdout.split(separator: "\n").map(String.init)
        let creation = try ConvertCineTests.creationTime(src), pts = try ConvertTests.ffprobeTimes(src)
        let expected = """
            import sys, calendar, datetime
            from fractions import Fraction
            dt = datetime.datetime.fromisoformat(sys.argv[1].replace('Z', '+00:00'))
            for p in sys.argv[2:]:
                f = int((calendar.timegm(dt.utctimetuple()) + Fraction(dt.microsecond, 10**6) + Fraction(p)) * 30)
                print('%02d:%02d:%02d.%02d' % (f // 108000 % 24, f // 1800 % 60, f // 30 % 60, f % 30))
            """
        #expect(codes == (try ConvertTests.python(expected, [creation, pts[0], pts[7]])).split(separator: "\n").map(String.init))
        // dcraw: a raw file with the pattern, every frame's samples undeveloped (-D -4: 16-bit PGM)
        #expect(try CLI.tool(["dcraw", "-i", "-v", d.file("f_0003.dng")]).stdout.contains("Filter pattern: RG/GB"))
        for i in 0..<n {
            let pgm = try CLI.tool(["bash", "-c", "dcraw -D -4 -c '\(d.file(String(format: "f_%04d.dng", i)))' | tail -c \(64 * 96 * 2) >> '\(d.file("raw"))'"])
            #expect(pgm.status == 0, "\(pgm.stderr)")
        }
        let bigEndian =
            "import sys; d = open(sys.argv[1], 'rb').read(); open(sys.argv[1], 'wb').write(bytes(b for i in range(0, len(d), 2) for b in (d[i+1], d[i])))"
        _ = try ConvertTests.python(bigEndian, [d.file("raw")])
        #expect(
            try ConvertTests.python(
                SyntheticSensorTests.rawCheck.replacingOccurrences(of: "np.uint16 if bits > 8 else np.uint8", with: "np.uint16"),
                [d.file("raw"), "\(bits)", "\(n)"]) == "ok\n")
        // LibRaw: the pattern, and frame 5's unprocessed samples
        #expect(try CLI.tool(["raw-identify", "-v", d.file("f_0005.dng")]).stdout.contains("Filter pattern: RGGBRGGBRGGBRGGB"))
        #expect(try CLI.tool(["unprocessed_raw", "-T", d.file("f_0005.dng")]).status == 0)
        let check =
            "import sys, numpy as np, tifffile; y, x = np.mgrid[0:64, 0:96]; bits = int(sys.argv[2]); n = 5; "
            + "a = tifffile.imread(sys.argv[1]); assert (a == \(SyntheticSensorTests.formula)).all(); print('ok')"
        #expect(try ConvertTests.python(check, [d.file("f_0005.dng.tiff"), "\(bits)"]) == "ok\n")
    }

    /// Frames that are not a mosaic are refused before anything is written, naming the TIFF sequence (exit 64).
    @Test func grayFramesAreRefused() throws {
        let d = TempDir()
        expectOneLine(
            try CLI.run(["convert", SyntheticSensorTests.captures.file("gray16.mkv"), "-o", d.file("g_%04d.dng")]), status: 64,
            contains: ["g_%04d.dng", "not a sensor mosaic (gray16le)", "TIFF sequence"])
        #expect(d.entries.isEmpty, "\(d.entries)")
    }
}
