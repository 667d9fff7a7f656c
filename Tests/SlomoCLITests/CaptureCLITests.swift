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
        waitFor(out, bytes: 150_000)  // a couple of fragments on disk
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let ix = try CLI.calibrationIndices(out)
        #expect(ix.count >= 60, "only \(ix.count) frames")
        #expect(ix == (0..<ix.count).map { Optional($0) })  // every frame up to the cut, in order
        #expect(!FileManager.default.fileExists(atPath: out + ".capture.json"))  // not a clean end
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
        (["--post-trigger", "1"], 64, "--post-trigger needs --trigger"), (["--trigger", "button"], 64, "expected stdin, signal, motion"),
        (["--trigger", "motion=300"], 64, "(0, 255]"), (["--trigger", "motion=0"], 64, "(0, 255]"),
        (["--trigger", "stdin", "--shots", "3"], 64, "%d"), (["--trigger", "stdin", "--pre-trigger", "-1"], 64, "--pre-trigger"),
        (["--trigger", "stdin", "--trigger-region", "0,0,10,10"], 64, "for --trigger motion"),
        (["--source", "synthetic:format=yuyv,size=320x180", "--trigger", "motion", "--trigger-region", "300,0,40,10"], 64, "outside the 320x180 frame"),
        (["--source", "synthetic:format=mjpeg", "--trigger", "motion"], 64, "compressed"),
        (["--source", "synthetic:fps=240,size=1280x720,format=yuyv", "--trigger", "stdin", "--pre-trigger", "3000"], 64, "MiB are available"),
        (["--codec", "ffv1"], 64, "cannot be stored in MP4"), (["--codec", "raw"], 64, "cannot be stored in MP4"),
        (["--codec", "h265"], 64, "expected x264, ffv1 or raw"), (["--ring-memory", "lots"], 64, "--ring-memory"),
        // the sound's options are checked before the card (or the camera) opens
        (["--audio", "hw:0,0", "--audio-codec", "pcm"], 64, "--audio-codec pcm: mp4 cannot hold pcm_s16le audio"),
        (["--audio", "hw:0,0", "--audio-codec", "wav"], 64, "--audio-codec 'wav': expected aac"),
        (["--audio-rate", "48000"], 64, "need --audio DEVICE"), (["--audio", "hw:0,0", "--audio-rate", "10"], 64, "--audio-rate 10"),
        (["--preview-fps", "0", "--preview", "p.nut"], 64, "--preview-fps 0"),
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
        _ = FileManager.default.createFile(atPath: exists, contents: Data("x".utf8))
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
        let (p, input, output, said) = try armedCapture([
            "--source", "synthetic:fps=100,size=320x180,format=yuyv", "--pre-trigger", "0.3",
            "--post-trigger", "0.2", "--trigger", "stdin", "--shots", "2", "--codec", "ffv1",
            "-o", out, "--json",
        ])
        #expect(said.contains("slomo: armed: waiting for a line 'trigger' on stdin"), "\(said)")
        input.fileHandleForWriting.write(Data("trigger\n".utf8))
        usleep(100_000)
        input.fileHandleForWriting.write(Data("trigger\n".utf8))  // while shot 1 is still recording: honoured
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

    /// `--stats-plot`: every interval drawn against time in seconds, round ticks on both axes, the
    /// nominal interval in a legend above the plot; an unwritable plot path is refused before capturing.
    @Test func statsPlotDrawsEveryIntervalOnRoundAxes() throws {
        let d = TempDir()
        let svg = d.file("intervals.svg")
        let r = try CLI.run([
            "capture", "--source", "synthetic:fps=100,size=160x90,format=yuyv,pace=0,drop-every=10", "--frames", "50",
            "--codec", "raw", "-o", d.file("c.mkv"), "--stats-plot", svg, "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        func values(_ cls: String) -> [Double] {
            text.components(separatedBy: "class=\"\(cls)\"").dropFirst().compactMap { part in
                part.split(separator: ">", maxSplits: 1).last.flatMap { Double($0.prefix { $0 != "<" }) }
            }
        }
        // one point per interval: 49 intervals of 50 frames
        let path = text.components(separatedBy: "class=\"intervals\" d=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
        #expect(path.filter { $0 == "M" || $0 == "L" }.count == 49)
        #expect(text.contains("- - nominal 10.000 ms"))
        // y: 0 and evenly stepped round values (a step of 1, 2 or 5 × 10^k); x: seconds from 0 past the last frame
        let all = values("ytick"), x = values("xtick")
        let y = Array(all.prefix(1) + all.dropFirst().prefix { $0 != 0 })  // the timeline's (the histogram's follow)
        let steps = Set(zip(y.dropFirst(), y).map { (($0 - $1) * 1000).rounded() })
        #expect(y.first == 0 && steps.count == 1 && y.count >= 3 && y.last! >= 20, "\(all)")  // the dropped frame's 20 ms fits
        let step = (steps.first ?? 0) / 1000
        let mantissa = step / pow(10, log10(step).rounded(.down))
        #expect([1, 2, 5].contains(mantissa.rounded()), "\(step)")
        #expect(x.first == 0 && (x.count >= 2 ? x[1] : 0) > 0, "\(x)")
        #expect(text.contains("time since the first frame (s)") && text.contains("class=\"bin\""))

        let bad = try CLI.run([
            "capture", "--source", "synthetic:fps=100,size=160x90", "--frames", "5", "-o", d.file("n.mkv"),
            "--stats-plot", d.file("missing/p.svg"),
        ])
        #expect(
            bad.status == 73 && bad.stderr.contains("p.svg: cannot write output: directory") && !FileManager.default.fileExists(atPath: d.file("n.mkv")),
            "\(bad.status) \(bad.stderr)")
    }

    /// `--preview`: a 10 fps MJPEG picture beside a 240 fps capture costs the capture no frame (the
    /// preview copies the newest frame without holding it); what it sent decodes; a preview that
    /// cannot be written is one warning and the recording goes on; `--preview -` leaves stdout to it.
    @Test func previewBesideA240FpsCaptureCostsNoFrame() throws {
        let d = TempDir()
        let r = try CLI.run([
            "capture", "--source", "synthetic:fps=240,size=640x360,format=yuyv,preload=240", "--duration", "2",
            "--codec", "raw", "-o", d.file("c.mkv"), "--preview", d.file("p.nut"), "--json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let j = try JSONSerialization.jsonObject(with: r.output) as? [String: Any] ?? [:]
        #expect(
            j["droppedByDriver"] as? Int == 0 && j["droppedBySlomo"] as? Int == 0 && (j["framesWritten"] as? Int ?? 0) >= 470, "\(j["framesWritten"] ?? "")")
        let p = j["preview"] as? [String: Any] ?? [:]
        let sent = p["framesSent"] as? Int ?? 0
        #expect(sent >= 15 && sent <= 21 && p["width"] as? Int == 640 && p["height"] as? Int == 360 && p["error"] == nil, "\(p)")
        let probe = try CLI.tool([
            "ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=codec_name,width,height,nb_read_frames",
            "-of", "csv=p=0", d.file("p.nut"),
        ])
        #expect(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "mjpeg,640,360,\(sent)")

        let bad = try CLI.run([
            "capture", "--source", "synthetic:fps=60,size=320x180,format=yuyv", "--frames", "30", "-o", d.file("b.mkv"),
            "--preview", d.file("no/such/dir/p.nut"),
        ])
        #expect(
            bad.status == 0 && bad.stderr.contains("slomo: warning: synthetic: the preview stopped: ")
                && FileManager.default.fileExists(atPath: d.file("b.mkv")),
            "\(bad.stderr)")
        let both = try CLI.run(["capture", "--source", "synthetic", "--frames", "3", "-o", d.file("x.mkv"), "--preview", "-", "--json"])
        #expect(both.status == 64 && both.stderr.contains("--preview - takes stdout"))
    }

    /// FFV1 keeps YUYV's 4:2:2 (no 4:2:0, no 8-bit loss elsewhere): decoded back to YUYV it equals
    /// the camera's bytes, which `--codec raw` stores unchanged.
    @Test func ffv1IsLosslessAndRawKeepsTheBytes() throws {
        let d = TempDir()
        for codec in ["ffv1", "raw"] {
            let r = try CLI.run([
                "capture", "--source", "synthetic:fps=60,size=320x180,format=yuyv,pace=0", "--frames", "4",
                "--codec", codec, "-o", d.file("\(codec).mkv"),
            ])
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
        let (p, input, output, _) = try armedCapture([
            "--source", "synthetic:fps=100,size=320x180,format=yuyv", "--pre-trigger", "0.2",
            "--post-trigger", "0.5", "--trigger", "stdin", "--shots", "0", "-o", d.file("s%d.mkv"),
            "--codec", "raw", "--json",
        ])
        input.fileHandleForWriting.write(Data("trigger\n".utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let shot = (json["shots"] as? [[String: Any]])?.first ?? [:]
        #expect(json["stopReason"] as? String == "inputEnded")
        #expect(shot["preFrames"] as? Int == 20 && shot["postFrames"] as? Int == 50 && shot["complete"] as? Bool == true, "\(shot)")
        #expect(try CLI.calibrationIndices(d.file("s1.mkv")).count == 71)
    }
}

/// A triggered capture talks to its operator (#30): each trigger, each shot saved and each
/// re-arm at once on stderr (JSON lines with `--json`); each shot's side file describes that
/// shot; without `--pre-trigger`/`--post-trigger` a shot is a second each side; standard input
/// that ends before any trigger is not a success; `--continue-shots` numbers after earlier shots.
@Suite(.serialized) struct TriggerFeedbackTests {
    func capture(_ args: [String], stdin lines: String) throws -> CLI.Result {
        try CLI.run(["capture", "--source", "synthetic:fps=50,size=160x96", "--codec", "ffv1"] + args, stdin: Data(lines.utf8))
    }

    @Test func eachEventIsSaidAsItHappens() throws {
        let d = TempDir()
        let out = d.file("s%02d.mkv")
        // a second line once the first shot is saved and the capture says it is armed again
        let r = try CLI.triggered(
            "'\(CLI.binary)' capture --source synthetic:fps=50,size=160x96 --codec ffv1 --pre-trigger 0.2 --post-trigger 0.2 --trigger stdin --shots 2 -o '\(out)'",
            steps: [("slomo: armed", "trigger"), ("slomo: re-armed for shot 2", "trigger")], linger: 2)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = CLI.errorLines(r)
        let trigger1 = lines.firstIndex { $0.hasPrefix("slomo: trigger 1 (stdin) at ") && $0.contains("ms after the event") }
        let shot1 = lines.firstIndex { $0.hasPrefix("slomo: shot 1 saved: \(d.file("s01.mkv")), 21 frames (10 before the trigger frame, 10 after)") }
        let rearmed = lines.firstIndex { $0 == "slomo: re-armed for shot 2" }
        let shot2 = lines.firstIndex { $0.hasPrefix("slomo: shot 2 saved: \(d.file("s02.mkv"))") }
        #expect(trigger1 != nil && shot1 != nil && rearmed != nil && shot2 != nil, "\(lines)")
        if let trigger1, let shot1, let rearmed, let shot2 { #expect(trigger1 < shot1 && shot1 < rearmed && rearmed < shot2, "\(lines)") }
        // the summary counts what it names: two shots, their frames, their files
        #expect(r.stdout.hasPrefix("2 shots saved (42 frames: \(d.file("s01.mkv")), \(d.file("s02.mkv")))"), "\(r.stdout)")
        // each side file is its own shot's
        for n in 1...2 {
            let side =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: d.file(String(format: "s%02d.mkv.capture.json", n)))))
                as! [String: Any]
            let shots = side["shots"] as? [[String: Any]] ?? []
            #expect(
                side["output"] as? String == d.file(String(format: "s%02d.mkv", n)) && shots.count == 1 && shots.first?["shot"] as? Int == n
                    && side["framesWritten"] as? Int == 21, "\(side)")
        }
    }

    @Test func jsonEventsAreLines() throws {
        let d = TempDir()
        let r = try CLI.triggered(
            "'\(CLI.binary)' capture --source synthetic:fps=50,size=160x96 --codec ffv1 --pre-trigger 0.2 --post-trigger 0.2 --trigger stdin -o '\(d.file("j.mkv"))' --json",
            linger: 2)
        #expect(r.status == 0, "\(r.stderr)")
        let events = r.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.map { $0["event"] as? String ?? "" } == ["armed", "trigger", "shot"], "\(r.stderr)")
        #expect(events.allSatisfy { $0["version"] as? Int == 2 && $0["type"] as? String == "capture" && $0["camera"] as? String != nil })
        #expect(events.last?["frames"] as? Int == 21 && events[1]["source"] as? String == "stdin" && events[1]["latencyMs"] is Double)
    }

    /// `--trigger` alone keeps a second before and after (a one-frame shot helped nobody).
    @Test func triggerAloneKeepsASecondEachSide() throws {
        let d = TempDir()
        let r = try CLI.triggered(
            "'\(CLI.binary)' capture --source synthetic:fps=50,size=160x96 --codec ffv1 --trigger stdin -o '\(d.file("one.mkv"))' --json",
            linger: 2.5)
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONSerialization.jsonObject(with: r.output) as! [String: Any]
        let shot = (report["shots"] as? [[String: Any]])?.first
        #expect(shot?["preFramesAsked"] as? Int == 50 && shot?["postFramesAsked"] as? Int == 50, "\(String(describing: shot))")
    }

    /// Standard input that ends with no trigger saved nothing: exit 66 and one line, not 0.
    @Test func inputEndingWithoutATriggerFails() throws {
        let d = TempDir()
        let r = try capture(["--pre-trigger", "0.2", "--post-trigger", "0.2", "--trigger", "stdin", "-o", d.file("none.mkv")], stdin: "")
        #expect(r.status == 66, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("standard input ended before any trigger: nothing was saved"), "\(r.stderr)")
        // `quit` is the operator's choice: still 0
        let q = try capture(["--pre-trigger", "0.2", "--post-trigger", "0.2", "--trigger", "stdin", "-o", d.file("q.mkv")], stdin: "quit\n")
        #expect(q.status == 0, "\(q.stderr)")
    }

    /// `--continue-shots` goes on after the shots already in the folder; without it an existing
    /// shot is refused before the camera opens.
    @Test func continueShotsNumbersAfterTheLast() throws {
        let d = TempDir()
        for n in [1, 2, 3] { _ = FileManager.default.createFile(atPath: d.file(String(format: "c%03d.mkv", n)), contents: Data("old".utf8)) }
        let refused = try capture(["--pre-trigger", "0.1", "--post-trigger", "0.1", "--trigger", "stdin", "-o", d.file("c%03d.mkv")], stdin: "")
        #expect(refused.status == 73 && refused.stderr.contains("c001.mkv: output already exists"), "\(refused.stderr)")
        let r = try CLI.triggered(
            "'\(CLI.binary)' capture --source synthetic:fps=50,size=160x96 --codec ffv1 --pre-trigger 0.1 --post-trigger 0.1 --trigger stdin --continue-shots -o '\(d.file("c%03d.mkv"))'",
            linger: 1.5)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: d.file("c004.mkv")) && r.stderr.contains("slomo: shot 4 saved"), "\(r.stderr)")
        #expect(try String(contentsOfFile: d.file("c001.mkv"), encoding: .utf8) == "old")
    }
}
