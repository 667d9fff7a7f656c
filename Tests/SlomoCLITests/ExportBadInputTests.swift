import Foundation
import Testing

/// `export` and `retime` on bad input, on the built binary: a damaged or truncated input is
/// exported as far as it decodes, with one warning line; a refused job is one error line with the
/// documented exit status and leaves nothing under the output name.
@Suite(.serialized) struct ExportBadInputTests {
    static let dir = TempDir()
    /// 2 s calibration clips at 120 fps (each frame carries its index), MP4 with the index first and MKV.
    static let clips: (mp4: String, mkv: String) = {
        let args = ["--fps", "120", "--duration", "2", "--size", "320x240"]
        return (CLI.generated(dir, "whole.mp4", args), CLI.generated(dir, "whole.mkv", args))
    }()

    /// The first `fraction` of `path`'s bytes, as a new file.
    func cut(_ path: String, _ fraction: Double, to name: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let p = Self.dir.file(name)
        _ = FileManager.default.createFile(atPath: p, contents: data.prefix(Int(Double(data.count) * fraction)))
        return p
    }

    @Test(arguments: ["mp4", "mkv"])
    func truncatedInputIsExportedAsFarAsItGoes(ext: String) throws {
        let input = try cut(ext == "mp4" ? Self.clips.mp4 : Self.clips.mkv, 0.6, to: "cut.\(ext)")
        let out = Self.dir.file("cut-out-\(ext).mp4")
        let r = try CLI.run(["export", input, "-o", out, "--rate", "1/2", "--fps", "30", "--pitch", "varispeed", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        // one warning line naming the input and the damage
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("warning") && lines[0].contains(input) && lines[0].contains("truncated"), "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.output) as? [String: Any])
        let damage = try #require(report["damage"] as? [String])
        #expect(damage.contains { $0.contains("truncated") }, "\(damage)")
        // what is there is exported on the schedule: output frame n (30 fps at 1/2) shows source frame 2n of 120 fps
        let shown = try CLI.calibrationIndices(out)
        let sourceFrames = try #require(report["sourceFrames"] as? Int)
        #expect(sourceFrames > 100 && sourceFrames < 200, "frames present in the cut file: \(sourceFrames)")
        #expect(shown.count >= sourceFrames / 2 - 2 && shown.count <= sourceFrames / 2 + 1, "\(shown.count) for \(sourceFrames)")
        #expect(shown == (0..<shown.count).map { Optional(2 * $0) })
    }

    @Test(arguments: ["mp4", "mkv"])
    func truncatedInputIsRetimedAsFarAsItGoes(ext: String) throws {
        let input = try cut(ext == "mp4" ? Self.clips.mp4 : Self.clips.mkv, 0.6, to: "cut-r.\(ext)")
        let out = Self.dir.file("cut-retimed.\(ext)")
        let r = try CLI.run(["retime", input, "-o", out, "--rate", "1/2", "--pitch", "varispeed"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("warning") && lines[0].contains(input) && lines[0].contains("truncated"), "\(r.stderr)")
        let shown = try CLI.calibrationIndices(out)
        #expect(shown.count > 100 && shown == (0..<shown.count).map { Optional($0) })
    }

    @Test func wholeInputGetsNoWarning() throws {
        let out = Self.dir.file("whole-out.mp4")
        let r = try CLI.run(["export", Self.clips.mkv, "-o", out, "--rate", "1/2", "--fps", "30", "--pitch", "varispeed"])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        #expect(try CLI.calibrationIndices(out) == (0..<120).map { Optional(2 * $0) })
    }

    @Test func refusedJobs() throws {
        // output exists: refused, the file untouched; --overwrite replaces it
        let exists = Self.dir.file("exists.mp4")
        _ = FileManager.default.createFile(atPath: exists, contents: Data("keep".utf8))
        for command in ["export", "retime"] {
            expectOneLine(try CLI.run([command, Self.clips.mp4, "-o", exists, "--rate", "1/2"]), status: 73, contains: [exists, "already exists"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: exists)) == Data("keep".utf8))
        }
        let over = try CLI.run(["retime", Self.clips.mp4, "-o", exists, "--rate", "1/2", "--pitch", "varispeed", "--overwrite"])
        #expect(over.status == 0, "\(over.stderr)")
        #expect(try CLI.calibrationIndices(exists).count == 240)
        // no video stream
        let wav = Self.dir.file("tone.wav")
        #expect(try CLI.tool(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=d=0.5", wav]).status == 0)
        for command in ["export", "retime"] {
            let o = Self.dir.file("from-wav-\(command).mp4")
            expectOneLine(try CLI.run([command, wav, "-o", o, "--rate", "1/2"]), status: 65, contains: [wav, "no video stream"])
            #expect(!FileManager.default.fileExists(atPath: o))
        }
        // a codec the container cannot hold: refused before anything opens, naming where it fits
        let o = Self.dir.file("prores.mp4")
        expectOneLine(
            try CLI.run(["export", Self.clips.mp4, "-o", o, "--rate", "1/2", "--codec", "ffv1"]), status: 64,
            contains: ["slomo: --codec 'ffv1': mp4 cannot hold ffv1 video (use .mkv)"])
        #expect(!FileManager.default.fileExists(atPath: o))
    }

    @Test func interruptedExportLeavesNothing() throws {
        let d = TempDir()
        let src = Self.dir.file("long.mp4")
        let g = try CLI.run(["generate", "--fps", "240", "--duration", "8", "--size", "640x360", "-o", src])
        #expect(g.status == 0, "\(g.stderr)")
        let out = d.file("slow.mp4")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["export", src, "-o", out, "--rate", "1/8", "--pitch", "spectral", "--preset", "slow"]
        let errors = Pipe()
        p.standardError = errors
        try p.run()
        // wait until the temporary output exists, then interrupt
        var waited = 0
        while d.entries.isEmpty && waited < 400 {
            usleep(50_000)
            waited += 1
        }
        #expect(!d.entries.isEmpty, "the export never started writing")
        usleep(300_000)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        #expect(d.entries.isEmpty, "left behind: \(d.entries)")
        // one line says so, naming the output
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = said.split(separator: "\n")
        #expect(lines.count == 1 && lines.first == "slomo: interrupted: \(out) not written (the partial file removed)", "\(said)")
    }
}
