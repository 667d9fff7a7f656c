import Foundation
import Testing

/// `slomo convert … -o take.mraw` (and `capture -o take.mraw`) read back by programs slomo did not
/// write: pyMRAW (PyPI, in the `scripts/dev.sh lab-readers` venv; SKIPPED without it) and a reader
/// of the layout here (the `.cihx` parsed with Python's xml.etree, the `.mraw` with numpy).
@Suite struct ConvertMRAWTests {
    /// The layout reader: argv = cihx, mraw, bits, frames, start frame, type, out; checks the header
    /// and writes the samples as raw little-endian bytes to `out`.
    static let layoutReader = """
        import sys, numpy as np, xml.etree.ElementTree as ET
        cihx, mraw, bits, frames, start, kind, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
        c = ET.parse(cihx).getroot()
        g = lambda p: c.find(p).text
        w, h, bit = int(g('imageDataInfo/resolution/width')), int(g('imageDataInfo/resolution/height')), int(g('imageDataInfo/colorInfo/bit'))
        assert (w, h, bit) == (96, 64, 16 if bits > 8 else 8), (w, h, bit)
        assert int(g('frameInfo/totalFrame')) == frames and int(g('frameInfo/startFrame')) == start and g('frameInfo/correctTriggerFrame') == '0'
        assert float(g('recordInfo/recordRate')) == 250 and g('imageDataInfo/colorInfo/type') == kind
        assert int(g('imageDataInfo/effectiveBit/depth')) == bits and g('imageDataInfo/effectiveBit/side') == 'Lower'
        a = np.fromfile(mraw, '<u2' if bit == 16 else 'u1')
        assert a.size == frames * w * h, a.size
        open(out, 'wb').write(a.astype('<u2' if bit == 16 else 'u1').tobytes())
        print('ok')
        """

    /// pyMRAW: the rate, size and every sample (argv = cihx, bits, frames).
    static let pyMRAW = """
        import sys, numpy as np, pyMRAW
        images, cih = pyMRAW.load_video(sys.argv[1]); bits, frames = int(sys.argv[2]), int(sys.argv[3])
        assert images.shape == (frames, 64, 96) and cih['Record Rate(fps)'] == 250 and cih['Total Frame'] == frames, (images.shape, cih)
        y, x = np.mgrid[0:64, 0:96]
        for n in range(frames): assert (images[n] == (n*1031 + x*37 + y*613) % (1 << bits)).all(), n
        print('ok')
        """

    static func readBack(_ d: TempDir, bits: Int, frames: Int, start: Int = 0, type: String) throws {
        let args = [d.file("take.cihx"), d.file("take.mraw"), "\(bits)", "\(frames)", "\(start)", type, d.file("lr")]
        #expect(try ConvertTests.python(Self.layoutReader, args) == "ok\n")
        #expect(try ConvertTests.python(SyntheticSensorTests.rawCheck, [d.file("lr"), "\(bits)", "\(frames)"]) == "ok\n")
        guard let python = ConvertCineTests.readers, (try? CLI.tool([python, "-c", "import pyMRAW"]))?.status == 0 else {
            print("ConvertMRAWTests: pyMRAW SKIPPED: no ~/.cache/slomo/lab-readers venv with pyMRAW")
            return
        }
        let r = try CLI.tool([python, "-W", "ignore", "-c", Self.pyMRAW, d.file("take.cihx"), "\(bits)", "\(frames)"])
        #expect(r.status == 0 && r.stdout == "ok\n", "\(r.stderr)")
    }

    @Test(arguments: [("gray16", 16, "Mono"), ("bayer-rggb8", 8, "Raw"), ("bayer-rggb16", 16, "Raw")])
    func sensorFormatsReadBackExactly(format: String, bits: Int, type: String) throws {
        let d = TempDir(), src = SyntheticSensorTests.captures.file("\(format).mkv")
        let r = try CLI.run(["convert", src, "-o", d.file("take.mraw")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(d.entries == ["take.cihx", "take.mraw", "take.mraw.frames.csv"], "\(d.entries)")
        try Self.readBack(d, bits: bits, frames: SyntheticSensorTests.frames, type: type)
    }

    @Test func captureWritesATake() throws {
        let d = TempDir()
        let r = try CLI.run(["capture", "--source", "synthetic:fps=250,size=96x64,format=gray16", "--frames", "8", "-o", d.file("take.mraw")])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.readBack(d, bits: 16, frames: 8, type: "Mono")
    }

    @Test func colourIsRefused() throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "30", "--duration", "0.1", "--size", "160x90"])
        let before = d.entries
        expectOneLine(try CLI.run(["convert", clip, "-o", d.file("c.mraw")]), status: 64, contains: ["c.mraw", "colour (yuv420p)", "TIFF sequence"])
        #expect(d.entries == before, "\(d.entries)")
    }
}
