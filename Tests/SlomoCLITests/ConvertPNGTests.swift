import Foundation
import Testing

/// `slomo convert … -o f_%06d.png` (and `capture -o d/f_%06d.png`) read back by programs slomo did
/// not write: a reader of PNG's chunks in Python's standard library (CRCs, IHDR, sBIT, each frame's
/// `Comment` time against frames.csv), FFmpeg's PNG decoder (every sample, as raw bytes) and Pillow
/// (every sample and the time again; in the `scripts/dev.sh lab-readers` venv, SKIPPED without it).
@Suite struct ConvertPNGTests {
    /// The chunks of each file: argv = pattern, count, bit depth, colour type, sBIT (0: none), frames.csv, software.
    static let chunkCheck = """
        import sys, struct, zlib, json, csv
        pattern, count, depth, ctype, sbit, software = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[7]
        rows = list(csv.DictReader(open(sys.argv[6])))
        assert len(rows) == count, len(rows)
        for i in range(count):
            b = open(pattern % i, 'rb').read()
            assert b[:8] == b'\\x89PNG\\r\\n\\x1a\\n', b[:8]
            p, chunks = 8, {}
            while p < len(b):
                n, t = struct.unpack('>I4s', b[p:p + 8]); data = b[p + 8:p + 8 + n]
                assert struct.unpack('>I', b[p + 8 + n:p + 12 + n])[0] == zlib.crc32(t + data), (i, t)
                if t == b'tEXt': k, v = data.split(b'\\0', 1); chunks[k.decode()] = v.decode('latin-1')
                else: chunks[t.decode()] = data
                p += 12 + n
            assert chunks['IHDR'][8:13] == bytes([depth, ctype, 0, 0, 0]), chunks['IHDR']
            assert chunks.get('sBIT') == (bytes([sbit] * (1 if ctype == 0 else 3)) if sbit else None), chunks.get('sBIT')
            assert chunks['Software'] == software and chunks['Title'].startswith('frame %d of ' % i) and 'IEND' in chunks, chunks
            d, r = json.loads(chunks['Comment']), rows[i]
            assert d['index'] == i == int(r['index']) and d['sourceIndex'] == int(r['source_index']), (d, r)
            assert abs(float(d['timeSeconds']) - float(r['time_s'])) <= 1e-6, (i, d['timeSeconds'], r['time_s'])
        print('ok', count)
        """

    /// Raw little-endian samples (FFmpeg's decode) against a formula of n, x, y: argv = raw, width,
    /// height, count, formula, bits held (8/16), shift (the samples scaled up to 16 bits by sBIT).
    static let rawCheck = """
        import sys, numpy as np
        w, h, count, formula, held, shift = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6]), int(sys.argv[7])
        a = np.frombuffer(open(sys.argv[1], 'rb').read(), '<u2' if held == 16 else 'u1').reshape(-1, h, w).astype(np.int64)
        assert a.shape[0] == count, a.shape
        y, x = np.mgrid[0:h, 0:w]
        for n in range(count):
            assert (a[n] >> shift == eval(formula)).all(), 'frame %d differs' % n
            assert shift == 0 or ((a[n] & ((1 << shift) - 1)) == a[n] >> (16 - shift)).all(), 'frame %d: not scaled as PNG scales' % n
        print('ok', count)
        """

    /// Pillow: mode, every sample and the `Comment` time; argv = pattern, count, formula, shift, mode, frames.csv.
    static let pillowCheck = """
        import sys, csv, json, numpy as np
        from PIL import Image
        pattern, count, formula, shift, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]
        rows = list(csv.DictReader(open(sys.argv[6])))
        for i in range(count):
            with Image.open(pattern % i) as im:
                assert im.format == 'PNG' and im.mode == mode, (im.format, im.mode)
                a, t = np.array(im).astype(np.int64), json.loads(im.info['Comment'])['timeSeconds']
            y, x = np.mgrid[0:a.shape[0], 0:a.shape[1]]; n = int(rows[i]['source_index'])
            assert (a >> shift == eval(formula)).all(), 'frame %d differs' % i
            assert abs(float(t) - float(rows[i]['time_s'])) <= 1e-6, (i, t)
        print('ok', count)
        """

    /// Reads a gray sequence back three ways (`bits`: significant; the files hold 8 or 16).
    static func readBack(
        _ d: TempDir, _ pattern: String, count: Int, width: Int, height: Int, formula: String, bits: Int, software: String = "slomo convert",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let held = bits > 8 ? 16 : 8, shift = held - bits, csv = d.file("frames.csv")
        let chunks = try ConvertTests.python(
            chunkCheck, [d.file(pattern), "\(count)", "\(held)", "0", "\(held == bits ? 0 : bits)", csv, software], sourceLocation: sourceLocation)
        #expect(chunks == "ok \(count)\n", sourceLocation: sourceLocation)
        let decoded = try CLI.tool([
            "ffmpeg", "-v", "error", "-i", d.file(pattern), "-f", "rawvideo", "-pix_fmt", held == 16 ? "gray16le" : "gray", d.file("raw"),
        ])
        #expect(decoded.status == 0, "\(decoded.stderr)", sourceLocation: sourceLocation)
        let raw = try ConvertTests.python(
            rawCheck, [d.file("raw"), "\(width)", "\(height)", "\(count)", formula, "\(held)", "\(shift)"], sourceLocation: sourceLocation)
        #expect(raw == "ok \(count)\n", sourceLocation: sourceLocation)
        guard let python = ConvertCineTests.readers, (try? CLI.tool([python, "-c", "import PIL"]))?.status == 0 else {
            print("ConvertPNGTests: Pillow SKIPPED: no ~/.cache/slomo/lab-readers venv with Pillow")
            return
        }
        let r = try CLI.tool([python, "-c", pillowCheck, d.file(pattern), "\(count)", formula, "\(shift)", held == 16 ? "I;16" : "L", csv])
        #expect(r.status == 0 && r.stdout == "ok \(count)\n", "\(r.stderr)", sourceLocation: sourceLocation)
    }

    @Test func syntheticGray16AndGray8ReadBackExactly() throws {
        let d16 = TempDir(), d8 = TempDir(), n = SyntheticSensorTests.frames
        let r16 = try CLI.run(["convert", SyntheticSensorTests.captures.file("gray16.mkv"), "-o", d16.file("f_%06d.png")])
        #expect(r16.status == 0, "\(r16.stderr)")
        #expect(d16.entries == (0..<n).map { String(format: "f_%06d.png", $0) } + ["frames.csv"], "\(d16.entries)")
        try Self.readBack(d16, "f_%06d.png", count: n, width: 96, height: 64, formula: ConvertTests.gray16Formula, bits: 16)
        let r8 = try CLI.run(["convert", ConvertTests.fixtures.file("g8.mkv"), "-o", d8.file("f_%06d.png")])
        #expect(r8.status == 0, "\(r8.stderr)")
        try Self.readBack(d8, "f_%06d.png", count: ConvertTests.frames, width: 64, height: 48, formula: ConvertTests.gray8Formula, bits: 8)
    }

    /// 12-bit samples are held in 16 with sBIT 12, scaled as PNG requires (`>> 4` gives them back).
    @Test func gray12IsScaledWithSBIT() throws {
        let d = TempDir()
        var raw = Data()
        for n in 0..<4 {
            for y in 0..<48 {
                for x in 0..<64 {
                    let v = (n * 1031 + x * 37 + y * 613) % 4096
                    raw.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8)])
                }
            }
        }
        let src = d.file("g12.mkv")
        let e = try CLI.run(
            executable: "/usr/bin/env",
            ["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "gray12le", "-s", "64x48", "-r", "250", "-i", "-", "-c:v", "ffv1", src], stdin: raw)
        #expect(e.status == 0, "\(e.stderr)")
        let out = TempDir()
        #expect(try CLI.run(["convert", src, "-o", out.file("f_%d.png")]).status == 0)
        try Self.readBack(out, "f_%d.png", count: 4, width: 64, height: 48, formula: "(n*1031 + x*37 + y*613) % 4096", bits: 12)
    }

    /// RGB 16 bits (FFV1's planar gbrp16le, reordered): FFmpeg's decode of the PNGs is the source's bytes.
    @Test func rgb48ReadsBackByteForByte() throws {
        let d = TempDir()
        var raw = Data()
        for n in 0..<3 {
            for y in 0..<48 {
                for x in 0..<64 {
                    for c in 0..<3 {
                        let v = (n * 1031 + x * 37 + y * 613 + c * 9999) % 65536
                        raw.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8)])
                    }
                }
            }
        }
        let src = d.file("rgb.mkv")
        let e = try CLI.run(
            executable: "/usr/bin/env",
            [
                "ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "rgb48le", "-s", "64x48", "-r", "250", "-i", "-", "-c:v", "ffv1", "-pix_fmt",
                "gbrp16le", src,
            ], stdin: raw)
        #expect(e.status == 0, "\(e.stderr)")
        let out = TempDir()
        #expect(try CLI.run(["convert", src, "-o", out.file("c_%03d.png")]).status == 0)
        #expect(try ConvertTests.python(Self.chunkCheck, [out.file("c_%03d.png"), "3", "16", "2", "0", out.file("frames.csv"), "slomo convert"]) == "ok 3\n")
        let decoded = try CLI.tool(["ffmpeg", "-v", "error", "-i", out.file("c_%03d.png"), "-f", "rawvideo", "-pix_fmt", "rgb48le", "-"])
        #expect(decoded.status == 0 && decoded.output == raw, "\(decoded.output.count) bytes, \(decoded.stderr)")
    }

    @Test func captureWritesReadablePNGs() throws {
        let d = TempDir()
        let r = try CLI.run(["capture", "--source", "synthetic:fps=250,size=96x64,format=gray16", "--frames", "8", "-o", d.file("f_%06d.png")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(d.entries.filter { $0.hasSuffix(".png") } == (0..<8).map { String(format: "f_%06d.png", $0) }, "\(d.entries)")
        try Self.readBack(d, "f_%06d.png", count: 8, width: 96, height: 64, formula: ConvertTests.gray16Formula, bits: 16, software: "slomo capture")
    }

    /// A Bayer mosaic (a recording's or the camera's) is refused in one line naming DNG and TIFF, exit 64, nothing written.
    @Test func aMosaicIsRefused() throws {
        let d = TempDir()
        let parts = ["f_%06d.png", "sensor mosaic (RGGB", "gray picture", "name_%06d.dng", "name_%06d.tiff"]
        expectOneLine(try CLI.run(["convert", SyntheticSensorTests.captures.file("bayer-rggb8.mkv"), "-o", d.file("f_%06d.png")]), status: 64, contains: parts)
        let capture = ["capture", "--source", "synthetic:fps=250,size=96x64,format=bayer-rggb16", "--frames", "2", "-o", d.file("f_%06d.png")]
        expectOneLine(try CLI.run(capture), status: 64, contains: parts)
        #expect(d.entries.isEmpty, "\(d.entries)")
    }
}
