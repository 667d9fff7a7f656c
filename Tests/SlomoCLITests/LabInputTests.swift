import Foundation
import Testing

/// `probe`, `export`, `retime` and `convert` reading a Phantom `.cine` at the times stored in its
/// time block (FFmpeg's cine demuxer gives every image a time from the header's rate only), and a
/// Photron `.mraw` at the rate, trigger frame and sample layout its `.cihx` gives; trims counted from
/// the trigger frame (`f-3`, `t-0.008`). Checked with FFmpeg (its cine decoder, ffprobe) beside slomo.
@Suite struct LabInputTests {
    /// A 30-frame gray16 FFV1 take whose frames come 4 and 5 ms apart in turn (its times: 0, 5, 8,
    /// 13, … ms), each frame's picture the lavfi test source's own.
    static func unevenTake(_ d: TempDir) throws -> String {
        let path = d.file("uneven.mkv")
        let r = try CLI.tool([
            "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64:rate=250,format=gray16le", "-frames:v", "30",
            "-vf", "settb=1/1000,setpts=N*4+mod(N\\,2)", "-fps_mode", "passthrough", "-r", "1000", "-c:v", "ffv1", path,
        ])
        #expect(r.status == 0, "\(r.stderr)")
        return path
    }

    static func json(_ r: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    /// Every decoded sample of `path` (FFmpeg, each frame once), as an MD5.
    static func samples(_ path: String) throws -> String {
        try CLI.tool(["bash", "-c", "ffmpeg -v error -i '\(path)' -fps_mode passthrough -f rawvideo - | md5sum"]).stdout
    }

    @Test func cineIsReadAtItsStoredTimes() throws {
        let d = TempDir(), src = try Self.unevenTake(d), cine = d.file("take.cine")
        #expect(try CLI.run(["convert", src, "-o", cine]).status == 0)
        let srcTimes = try ConvertTests.ffprobeTimes(src)
        #expect(srcTimes.prefix(4) == ["0.000000", "0.005000", "0.008000", "0.013000"], "\(srcTimes)")
        // FFmpeg alone: every image one period of the header's rate after the one before, evenly
        let ffmpegTimes = try ConvertTests.ffprobeTimes(cine).compactMap { Double($0) }
        let steps = zip(ffmpegTimes.dropFirst(), ffmpegTimes).map { $0 - $1 }
        #expect(ffmpegTimes.count == 30 && (steps.max() ?? 1) - (steps.min() ?? 0) < 2e-6, "\(ffmpegTimes)")
        // probe: 30 frames, uneven, 5/4 + 4 ms apart
        let probe = try Self.json(try CLI.run(["probe", "--json", cine]))
        let video = try #require((probe["streams"] as? [[String: Any]])?.first)
        #expect(video["frameCount"] as? Int == 30 && video["variableFrameRate"] as? Bool == true, "\(video)")
        #expect((probe["slomo"] as? [String: String])?["slomo_cine_first_image"] == "0", "\(probe)")
        // convert back: each frame's time in the table is the source's (to the ns)
        #expect(try CLI.run(["convert", cine, "-o", d.file("frames") + "/"]).status == 0)
        let table = try String(contentsOfFile: d.file("frames/frames.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(table.map { String($0.split(separator: ",")[3]) } == srcTimes.map { $0 + "000" })
        // retime at half speed copies the frames at twice their stored times, every sample kept
        let r = try CLI.run(["retime", cine, "-o", d.file("half.nut"), "--rate", "0.5"])
        #expect(r.status == 0, "\(r.stderr)")
        let doubled = srcTimes.map { String(format: "%.6f", 2 * Double($0)!) }
        #expect(try ConvertTests.ffprobeTimes(d.file("half.nut")) == doubled)
        #expect(try Self.samples(d.file("half.nut")) == (try Self.samples(cine)))
        // export at 0.5x lasts twice the stored times: the last at 117 ms, then its usual 117/29 ms
        // (FFmpeg's own times: 30 frames of 4 ms, 0.24 s)
        let e = try CLI.run(["export", cine, "-o", d.file("slow.mp4"), "--rate", "0.5", "--json"])
        #expect(e.status == 0, "\(e.stderr)")
        let length = try #require(try Self.json(e)["outputDuration"] as? [String: Int])
        let seconds = Double(length["numerator"] ?? 0) / Double(length["denominator"] ?? 1)
        #expect(abs(seconds - 2 * (0.117 + 0.004_034_483)) < 1e-6, "\(e.stdout)")
    }

    @Test(arguments: ["cine", "mraw"])
    func aShotIsTrimmedFromItsTrigger(ext: String) throws {
        let d = TempDir()
        let shot = try triggeredShot(size: "96x64", format: "gray16", output: d.file("shot%d.\(ext)"))
        #expect(shot.status == 0, "\(shot.stderr)")
        let take = d.file("shot1.\(ext)")
        let probe = try Self.json(try CLI.run(["probe", "--json", take]))
        #expect((probe["slomo"] as? [String: String])?["slomo_trigger_frame"] == "10", "\(probe)")
        let c = try CLI.run(["convert", take, "--start", "f-3", "--end", "f+4", "-o", d.file("a") + "/"])
        #expect(c.status == 0, "\(c.stderr)")
        let rows = try String(contentsOfFile: d.file("a/frames.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(rows.map { String($0.split(separator: ",")[2]) } == ["-3", "-2", "-1", "0", "1", "2", "3"], "\(rows)")
        let t = try CLI.run(["convert", take, "--start", "t-0.008", "--end", "t+0.008", "-o", d.file("b") + "/"])
        #expect(t.status == 0, "\(t.stderr)")
        let times = try String(contentsOfFile: d.file("b/frames.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(times.map { String($0.split(separator: ",")[4]) } == ["-0.008000000", "-0.004000000", "0.000000000", "0.004000000"])
        let e = try CLI.run(["export", take, "--start", "f-5", "--end", "f+5", "--rate", "0.25", "-o", d.file("slow.mp4")])
        #expect(e.status == 0 && e.stdout.contains("5 frames"), "\(e.stdout) \(e.stderr)")
        let far = try CLI.run(["convert", take, "--start", "f+50", "-o", d.file("c") + "/"])
        expectOneLine(far, status: 64, contains: [take, "--start", "f+50", "21 frames"])
    }

    @Test func mrawIsReadAsItsHeaderSays() throws {
        let d = TempDir()
        for f in ["gray16", "bayer-rggb8"] {
            let r = try CLI.run(["capture", "--source", "synthetic:fps=250,size=96x64,format=\(f)", "--frames", "8", "-o", d.file("\(f).mraw")])
            #expect(r.status == 0, "\(r.stderr)")
            let probe = try Self.json(try CLI.run(["probe", "--json", d.file("\(f).mraw")]))
            let video = try #require((probe["streams"] as? [[String: Any]])?.first)
            #expect(video["frameCount"] as? Int == 8 && video["pixelFormat"] as? String == (f == "gray16" ? "gray16le" : "gray"), "\(video)")
            #expect((probe["slomo"] as? [String: String])?["slomo_mraw_record_rate"] == "250", "\(probe)")
            // every sample: the .mraw's bytes are what FFmpeg decodes of a .cine slomo makes of it
            #expect(try CLI.run(["convert", d.file("\(f).mraw"), "-o", d.file("\(f).cine")]).status == 0)
            let bytes = try CLI.tool(["md5sum", d.file("\(f).mraw")]).stdout.prefix(32)
            #expect(try Self.samples(d.file("\(f).cine")).prefix(32) == bytes)
            // each frame at its place on the header's rate (4 ms apart)
            let rows = try String(contentsOfFile: d.file("\(f).cine.frames.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
            #expect(rows.map { String($0.split(separator: ",")[3]) } == (0..<8).map { "0.0\($0 * 4 < 10 ? "0" : "")\($0 * 4)000000" }, "\(rows)")
        }
        // a mosaic keeps its pattern and bit depth: the DNG's white level is 8-bit
        #expect(try CLI.run(["convert", d.file("bayer-rggb8.mraw"), "-o", d.file("f_%02d.dng")]).status == 0)
        let white = try CLI.tool(["exiftool", "-s3", "-n", "-WhiteLevel", "-CFAPattern2", d.file("f_00.dng")]).stdout
        #expect(white == "255\n0 1 1 2\n", "\(white)")
    }

    @Test func aCameraHeaderIsReadAndWhatSlomoCannotReadIsRefused() throws {
        let d = TempDir()
        // a camera's .cihx: bytes before the XML, fields slomo does not write, 8-bit mono at 2000 fps
        let xml = """
            <cih><fileInfo><date>2026/03/04</date><time>05:06:07</time></fileInfo><recordInfo><recordRate>2000</recordRate>\
            <shutterSpeed>4000</shutterSpeed></recordInfo><frameInfo><totalFrame>3</totalFrame><startFrame>-1</startFrame></frameInfo>\
            <imageDataInfo><resolution><width>16</width><height>8</height></resolution><colorInfo><type>Mono</type><bit>8</bit>\
            </colorInfo><effectiveBit><depth>8</depth><side>Lower</side></effectiveBit></imageDataInfo>\
            <imageFileInfo><fileFormat>MRaw</fileFormat></imageFileInfo></cih>
            """
        _ = FileManager.default.createFile(atPath: d.file("cam.cihx"), contents: Data([0x00, 0x01, 0xFE]) + Data(xml.utf8))
        _ = FileManager.default.createFile(atPath: d.file("cam.mraw"), contents: Data((0..<(3 * 16 * 8)).map { UInt8($0 % 251) }))
        let probe = try Self.json(try CLI.run(["probe", "--json", d.file("cam.mraw")]))
        let tags = try #require(probe["slomo"] as? [String: String])
        #expect(tags["slomo_trigger_frame"] == "1" && tags["slomo_mraw_record_rate"] == "2000", "\(tags)")
        let c = try CLI.run(["convert", d.file("cam.mraw"), "-o", d.file("t") + "/"])
        #expect(c.status == 0, "\(c.stderr)")
        let rows = try String(contentsOfFile: d.file("t/frames.csv"), encoding: .utf8).split(separator: "\n").dropFirst()
        #expect(rows.map { $0.split(separator: ",").dropFirst(2).prefix(2).joined(separator: ",") } == ["-1,0.000000000", "0,0.000500000", "1,0.001000000"])
        // 12-bit packed, colour, no header: one line each, naming the file and what would work
        for (field, value, words) in [("<bit>8</bit>", "<bit>12</bit>", "12-bit packed"), ("<type>Mono</type>", "<type>Color</type>", "colour type Color")] {
            _ = FileManager.default.createFile(atPath: d.file("cam.cihx"), contents: Data(xml.replacingOccurrences(of: field, with: value).utf8))
            expectOneLine(try CLI.run(["probe", d.file("cam.mraw")]), status: 65, contains: [d.file("cam.mraw"), "cam.cihx", words])
        }
        try FileManager.default.removeItem(atPath: d.file("cam.cihx"))
        expectOneLine(try CLI.run(["probe", d.file("cam.mraw")]), status: 65, contains: [d.file("cam.mraw"), "no cam.cihx beside it"])
    }

    @Test func rawSixteenBitFramesAreNotPutInMatroska() throws {
        let d = TempDir()
        let r = try CLI.run(["capture", "--source", "synthetic:fps=250,size=96x64,format=gray16", "--frames", "4", "--codec", "raw", "-o", d.file("raw.mkv")])
        // (the ring's size is told first, then the refusal, before the camera streams)
        #expect(r.status == 64, "\(r.stderr)")
        let refusal = String(r.stderr.split(separator: "\n").last ?? "")
        for part in [d.file("raw.mkv"), "gray16le", ".nut", "ffv1"] { #expect(refusal.contains(part), "\(r.stderr)") }
        #expect(d.entries.isEmpty, "\(d.entries)")
        #expect(
            try CLI.run(["capture", "--source", "synthetic:fps=250,size=96x64,format=gray16", "--frames", "4", "--codec", "raw", "-o", d.file("raw.nut")])
                .status == 0)
        let retime = try CLI.run(["retime", d.file("raw.nut"), "-o", d.file("half.mkv"), "--rate", "0.5"])
        #expect(retime.status != 0 && retime.stderr.contains(".nut"), "\(retime.stderr)")
    }
}
