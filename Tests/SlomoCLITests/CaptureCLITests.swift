import Foundation
import Testing

/// Crash safety and stopping, on the built binary with the synthetic camera.
@Suite(.serialized) struct CaptureCLITests {
    func start(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Waits until `path` holds at least `bytes`.
    func waitFor(_ path: String, bytes: Int) {
        for _ in 0..<400 {
            if let a = try? FileManager.default.attributesOfItem(atPath: path), (a[.size] as? Int ?? 0) >= bytes { return }
            usleep(25_000)
        }
    }

    @Test func killedRecordingIsPlayableUpToItsLastFragment() throws {
        let d = TempDir()
        let out = d.file("k.mp4")
        let p = try start(["capture", "--source", "synthetic:fps=120,size=320x180", "-o", out])
        waitFor(out, bytes: 150_000)                       // a couple of fragments on disk
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let ix = try CLI.calibrationIndices(out)
        #expect(ix.count >= 60, "only \(ix.count) frames")
        #expect(ix == (0..<ix.count).map { Optional($0) })  // every frame up to the cut, in order
        #expect(!FileManager.default.fileExists(atPath: out + ".capture.json"))   // not a clean end
    }

    @Test func sigintFinishesCleanly() throws {
        let d = TempDir()
        let out = d.file("i.mp4")
        let p = try start(["capture", "--source", "synthetic:fps=120,size=320x180,format=yuv420p", "-o", out, "--json"])
        waitFor(out, bytes: 20_000)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let side = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + ".capture.json"))) as! [String: Any]
        #expect(side["stopReason"] as? String == "signal")
        let n = side["framesWritten"] as! Int
        #expect(try CLI.calibrationIndices(out) == (0..<n).map { Optional($0) })
    }

    @Test(arguments: [
        (["--duration", "0"], 64, "--duration"), (["--frames", "0"], 64, "--frames"),
        (["--source", "synthetic:fps=0"], 64, "fps"), (["--source", "synthetic:colour=red"], 64, "unknown key"),
        (["--buffers", "1"], 64, "--buffers"), (["--segment", "2-1@1/2"], 64, "not after start"),
        (["--post-trigger", "1"], 64, "--post-trigger needs --trigger"), (["--trigger", "button"], 64, "expected stdin, signal or motion"),
        (["--trigger", "motion=300"], 64, "(0, 255]"), (["--trigger", "motion=0"], 64, "(0, 255]"),
        (["--trigger", "stdin", "--shots", "3"], 64, "%d"), (["--trigger", "stdin", "--pre-trigger", "-1"], 64, "--pre-trigger"),
        (["--trigger", "stdin", "--trigger-region", "0,0,10,10"], 64, "for --trigger motion"),
        (["--source", "synthetic:format=yuyv,size=320x180", "--trigger", "motion", "--trigger-region", "300,0,40,10"], 64, "outside the 320x180 frame"),
        (["--source", "synthetic:format=mjpeg", "--trigger", "motion"], 64, "compressed"),
        (["--source", "synthetic:fps=240,size=1280x720,format=yuyv", "--trigger", "stdin", "--pre-trigger", "3000"], 64, "MiB are available"),
        (["--codec", "ffv1"], 64, "cannot be stored in MP4"), (["--codec", "raw"], 64, "cannot be stored in MP4"),
        (["--codec", "h265"], 64, "expected x264, ffv1 or raw"), (["--ring-memory", "lots"], 64, "--ring-memory"),
    ])
    func badValues(args: [String], status: Int32, text: String) throws {
        let d = TempDir()
        var a = ["capture", "-o", d.file("x.mp4")] + args
        if !args.contains("--source") { a += ["--source", "synthetic"] }
        let r = try CLI.run(a)
        #expect(r.status == status && r.stderr.contains(text), "\(r.status) \(r.stderr)")
        #expect(d.entries.isEmpty)
    }

    @Test func outputProblemsAndMissingDevice() throws {
        let d = TempDir()
        let exists = d.file("e.mp4")
        FileManager.default.createFile(atPath: exists, contents: Data("x".utf8))
        var r = try CLI.run(["capture", "--source", "synthetic", "--frames", "5", "-o", exists])
        #expect(r.status == 73 && r.stderr.contains("already exists"))
        r = try CLI.run(["capture", "--source", "synthetic", "--frames", "5", "-o", d.file("no/dir.mp4")])
        #expect(r.status == 73, "\(r.stderr)")
        r = try CLI.run(["capture", "/dev/video-none", "--frames", "5", "-o", d.file("v.mp4")])
        #expect([66, 69].contains(r.status) && r.stderr.contains("/dev/video-none"), "\(r.stderr)")
        #expect(d.entries == ["e.mp4"])
    }

    /// Starts a triggered capture with stdin, stdout and stderr piped and returns once it says it is
    /// armed (the ring holds the pre-trigger window), as a script would wait; `said` is stderr so far.
    func armedCapture(_ args: [String]) throws -> (process: Process, input: Pipe, output: Pipe, said: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["capture"] + args
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = errors
        try p.run()
        var said = ""
        while !said.contains("slomo: armed") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said += String(decoding: chunk, as: UTF8.self)
        }
        return (p, input, output, said)
    }

    @Test func stdinTriggerSavesTheShotAroundTheLine() throws {
        let d = TempDir()
        let out = d.file("shot%02d.mkv")
        let (p, input, output, said) = try armedCapture(["--source", "synthetic:fps=100,size=320x180,format=yuyv", "--pre-trigger", "0.3",
                                                         "--post-trigger", "0.2", "--trigger", "stdin", "--shots", "2", "--codec", "ffv1",
                                                         "-o", out, "--json"])
        #expect(said.contains("slomo: armed: waiting for a line 'trigger' on stdin"), "\(said)")
        input.fileHandleForWriting.write(Data("trigger\n".utf8))
        usleep(100_000)
        input.fileHandleForWriting.write(Data("trigger\n".utf8))   // while shot 1 is still recording: honoured
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let shots = json["shots"] as? [[String: Any]] ?? []
        #expect(json["stopReason"] as? String == "shots" && shots.count == 2, "\(json)")
        for (n, shot) in shots.enumerated() {
            #expect(shot["preFrames"] as? Int == 30 && shot["postFrames"] as? Int == 20 && shot["complete"] as? Bool == true, "\(shot)")
            let ix = try CLI.calibrationIndices(d.file(String(format: "shot%02d.mkv", n + 1)))
            // 51 contiguous frames; the trigger frame (position 30) is the one the report names
            #expect(ix.count == 51 && ix.compactMap { $0 }.count == 51, "\(ix)")
            #expect(ix[30] == shot["triggerSequence"] as? Int)
            #expect(zip(ix, ix.dropFirst()).allSatisfy { $1! == $0! + 1 })
        }
        let gap = (shots[1]["triggerSequence"] as! Int) - (shots[0]["triggerSequence"] as! Int)
        #expect(gap >= 5 && gap <= 20, "second trigger 100 ms later: \(gap) frames")
    }

    /// FFV1 keeps YUYV's 4:2:2 (no 4:2:0, no 8-bit loss elsewhere): decoded back to YUYV it equals
    /// the camera's bytes, which `--codec raw` stores unchanged.
    @Test func ffv1IsLosslessAndRawKeepsTheBytes() throws {
        let d = TempDir()
        for codec in ["ffv1", "raw"] {
            let r = try CLI.run(["capture", "--source", "synthetic:fps=60,size=320x180,format=yuyv,pace=0", "--frames", "4",
                                 "--codec", codec, "-o", d.file("\(codec).mkv")])
            #expect(r.status == 0, "\(r.stderr)")
        }
        var bytes: [Data] = []
        for (codec, stored) in [("ffv1", "ffv1,yuv422p"), ("raw", "rawvideo,yuyv422")] {
            let probe = try CLI.tool(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,pix_fmt", "-of", "csv=p=0", d.file("\(codec).mkv")])
            #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == stored)
            let x = try CLI.tool(["ffmpeg", "-v", "error", "-i", d.file("\(codec).mkv"), "-f", "rawvideo", "-pix_fmt", "yuyv422", "-"])
            bytes.append(x.output)
        }
        #expect(bytes[0].count == 4 * 320 * 180 * 2 && bytes[0] == bytes[1])
    }

    /// The end of stdin right after a trigger (`--shots 0`: until stopped) ends the capture only once
    /// that shot's post-trigger frames are in.
    @Test func endOfInputAfterATriggerKeepsTheWholeShot() throws {
        let d = TempDir()
        let (p, input, output, _) = try armedCapture(["--source", "synthetic:fps=100,size=320x180,format=yuyv", "--pre-trigger", "0.2",
                                                      "--post-trigger", "0.5", "--trigger", "stdin", "--shots", "0", "-o", d.file("s%d.mkv"),
                                                      "--codec", "raw", "--json"])
        input.fileHandleForWriting.write(Data("trigger\n".utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let shot = (json["shots"] as? [[String: Any]])?.first ?? [:]
        #expect(json["stopReason"] as? String == "quit")
        #expect(shot["preFrames"] as? Int == 20 && shot["postFrames"] as? Int == 50 && shot["complete"] as? Bool == true, "\(shot)")
        #expect(try CLI.calibrationIndices(d.file("s1.mkv")).count == 71)
    }
}
