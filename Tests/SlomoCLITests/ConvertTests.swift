import Foundation
import Testing

/// `slomo convert` read back by programs slomo did not write: tifffile and libtiff's tiffinfo for
/// TIFF, h5py and h5dump for HDF5 (Debian's python3-tifffile, python3-h5py, libtiff-tools,
/// hdf5-tools), FFmpeg's CLI for the source's own samples and times. Sources: FFV1 in Matroska whose
/// samples are a known function of the frame number (8 and 16 bits), and a triggered capture.
@Suite struct ConvertTests {
    static let width = 64, height = 48, frames = 30
    /// Debian's Python, which has the packages (a pyenv or venv python3 first on PATH may not).
    static let python = "/usr/bin/python3"

    /// Sample (x, y) of frame n, as the sources hold it and the readers recompute it.
    static let gray16Formula = "(n*1031 + x*37 + y*613) % 65536", gray8Formula = "(n*7 + x*3 + y*5) % 256"

    static let fixtures: TempDir = {
        let d = TempDir()
        var g16 = Data(), g8 = Data()
        for n in 0..<frames {
            for y in 0..<height {
                for x in 0..<width {
                    let v = (n * 1031 + x * 37 + y * 613) % 65536
                    g16.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8)])
                    g8.append(UInt8((n * 7 + x * 3 + y * 5) % 256))
                }
            }
        }
        // 250 fps: Matroska's millisecond timestamps hold every frame's time exactly
        for (name, format, raw) in [("g16.mkv", "gray16le", g16), ("g8.mkv", "gray", g8)] {
            let r = try! CLI.run(
                executable: "/usr/bin/env",
                [
                    "ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", format, "-s", "\(width)x\(height)", "-r", "250", "-i", "-",
                    "-c:v", "ffv1", d.file(name),
                ], stdin: raw)
            precondition(r.status == 0, r.stderr)
        }
        return d
    }()

    /// Runs a Python script (`sys.argv[1:]` = `args`) and returns its stdout; the test fails on a non-zero exit.
    static func python(_ script: String, _ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try CLI.tool([python, "-c", script] + args)
        #expect(r.status == 0, "python: \(r.stderr)", sourceLocation: sourceLocation)
        return r.stdout
    }

    /// Each frame's pts in seconds as ffprobe reads them (exact for these sources: whole milliseconds).
    static func ffprobeTimes(_ path: String) throws -> [String] {
        let r = try CLI.tool(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// The shared check of a TIFF sequence: every file's samples against the formula (frame n =
    /// source frame `first` + file index), its type, and the time in its ImageDescription against `times`.
    static let tiffCheck = """
        import sys, json, numpy as np, tifffile
        pattern, count, first, formula, dtype = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
        times = [float(t) for t in sys.argv[6].split(',')]
        y, x = np.mgrid[0:48, 0:64]
        for i in range(count):
            with tifffile.TiffFile(pattern % i) as t:
                a = t.pages[0].asarray(); d = json.loads(t.pages[0].description)
            n = first + i
            assert a.dtype == np.dtype(dtype), (i, a.dtype)
            assert (a == eval(formula)).all(), 'frame %d: samples differ' % i
            assert d['index'] == i and d['sourceIndex'] == n, d
            assert abs(float(d['timeSeconds']) - times[n]) <= 1e-6, (i, d['timeSeconds'], times[n])
        print('ok', count)
        """

    @Test func gray16IntoADirectoryReadsBackExactly() throws {
        let d = TempDir(), src = Self.fixtures.file("g16.mkv")
        let r = try CLI.run(["convert", src, "-o", d.file("frames") + "/"])
        #expect(r.status == 0, "\(r.stderr)")
        let times = try Self.ffprobeTimes(src)
        #expect(times.count == Self.frames)
        let out = try Self.python(
            Self.tiffCheck, [d.file("frames/frame_%06d.tiff"), "\(Self.frames)", "0", Self.gray16Formula, "uint16", times.joined(separator: ",")])
        #expect(out == "ok \(Self.frames)\n")
        // libtiff's own reader: the layout and the tags
        let info = try CLI.tool(["tiffinfo", d.file("frames/frame_000029.tiff")]).stdout
        for part in ["Image Width: 64 Image Length: 48", "Bits/Sample: 16", "Photometric Interpretation: min-is-black", "\"sourceIndex\":29"] {
            #expect(info.contains(part), "tiffinfo lacks \(part): \(info)")
        }
        #expect(try CLI.tool(["tiffdump", d.file("frames/frame_000000.tiff")]).stdout.contains("Magic: 0x4949 <little-endian>"))
        // the frame table: one line a frame, times as ffprobe reads them
        let csv = try String(contentsOfFile: d.file("frames/frames.csv"), encoding: .utf8).split(separator: "\n")
        #expect(csv.count == Self.frames + 1 && csv[0] == "index,source_index,from_trigger,time_s,time_from_trigger_s,duration_s,sequence")
        #expect(csv[5] == "4,4,4,0.016000000,0.016000000,0.004000000,", "\(csv[5])")
    }

    @Test func gray8ByPatternKeepsTheFramesStartAndEndName() throws {
        let d = TempDir(), src = Self.fixtures.file("g8.mkv")
        let r = try CLI.run(["convert", src, "-o", d.file("img_%04d.tif"), "--start", "f10", "--end", "0.08"])
        #expect(r.status == 0, "\(r.stderr)")
        // f10 (0.04 s) up to 0.08 s, not included: source frames 10…19 as img_0000…img_0009
        #expect(d.entries == ["frames.csv"] + (0..<10).map { String(format: "img_%04d.tif", $0) }, "\(d.entries)")
        let times = try Self.ffprobeTimes(src).joined(separator: ",")
        #expect(try Self.python(Self.tiffCheck, [d.file("img_%04d.tif"), "10", "10", Self.gray8Formula, "uint8", times]) == "ok 10\n")
        #expect(try CLI.tool(["tiffinfo", d.file("img_0000.tif")]).stdout.contains("Bits/Sample: 8"))
    }

    @Test func gray16IntoHDF5ReadsBackExactly() throws {
        let d = TempDir(), src = Self.fixtures.file("g16.mkv")
        let r = try CLI.run(["convert", src, "-o", d.file("take.h5")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(d.entries == ["take.h5", "take.h5.frames.csv"])
        let times = try Self.ffprobeTimes(src).joined(separator: ",")
        let check = """
            import sys, numpy as np, h5py
            f = h5py.File(sys.argv[1], 'r'); times = [float(t) for t in sys.argv[2].split(',')]
            data = f['/entry/data/data']; a = f['/entry/instrument/NDAttributes']
            assert data.dtype == np.uint16 and data.shape == (30, 48, 64) and data.chunks == (1, 48, 64), (data.dtype, data.shape, data.chunks)
            assert f['/entry/instrument/detector/data'].shape == data.shape
            y, x = np.mgrid[0:48, 0:64]
            for n in range(30):
                assert (data[n] == \(Self.gray16Formula)).all(), 'frame %d: samples differ' % n
                assert abs(a['TimeNs'][n] - round(times[n] * 1e9)) <= 1000 and abs(a['NDArrayTimeStamp'][n] - times[n]) <= 1e-6, n
                assert a['FromTrigger'][n] == n and a['FrameIndex'][n] == n and a['NDArrayUniqueId'][n] == n
            assert f['/entry'].attrs['frame_rate'] == b'250' and f['/entry/data'].attrs['signal'] == b'data'
            print('ok')
            """
        #expect(try Self.python(check, [d.file("take.h5"), times]) == "ok\n")
        // HDF5's own tool: the layout (growable, one frame a chunk) and a dataset's values
        let header = try CLI.tool(["h5dump", "-p", "-H", "-d", "/entry/data/data", d.file("take.h5")]).stdout
        #expect(header.contains("DATASPACE  SIMPLE { ( 30, 48, 64 ) / ( H5S_UNLIMITED, 48, 64 ) }"), "\(header)")
        #expect(header.contains("CHUNKED ( 1, 48, 64 )") && header.contains("H5T_STD_U16LE"), "\(header)")
        let ns = try CLI.tool(["h5dump", "-d", "/entry/instrument/NDAttributes/TimeNs", "-s", "3", "-c", "1", d.file("take.h5")]).stdout
        #expect(ns.contains("(3): 12000000"), "\(ns)")
    }
}
