import Foundation
import Testing

/// `slomo play` writes a paced stream whose timestamps follow the live rate.
@Suite struct PlayTests {
    @Test func rateChangeOnStdinChangesTheTimestampSpacing() throws {
        let d = TempDir()
        let src = d.file("c.mp4"), out = d.file("p.nut")
        #expect(try CLI.run(["generate", "--fps", "240", "--duration", "1", "--size", "160x90", "--no-audio", "-o", src]).status == 0)
        let play = try PlaySession([src, "--rate", "1/4", "-o", out, "--no-audio"])
        usleep(600_000)
        play.send("rate 1")
        let (status, events) = try play.finish()
        #expect(status == 0, "\(events)")
        #expect(events.contains("\"event\":\"rate\"") && events.contains("\"event\":\"end\""))
        let probe = try CLI.run(["probe", out, "--frames", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as! [String: Any]
        let frames = json["frames"] as! [[String: Any]]
        // every source frame, in order, copied once
        #expect(frames.map { $0["calibrationIndex"] as? Int } == (0..<240).map { Optional($0) })
        let t = frames.compactMap { $0["ptsTicks"] as? Int }
        let deltas = zip(t.dropFirst(), t).map { $0 - $1 }
        // 90 kHz: quarter speed = 1500 ticks per frame, full speed = 375; one transition between them
        let slow = deltas.prefix { $0 == 1500 }.count
        let fast = deltas.reversed().prefix { $0 == 375 }.count
        #expect(slow > 10 && fast > 10, "\(deltas)")
        #expect(slow + fast >= deltas.count - 1)
    }

    /// Matroska stores no decode times: B-frame packets arrive with none, then with guesses that
    /// run backwards. Play used to take a missing dts as the pts, which pushed the next frames'
    /// presentation times after it (frames 1 and 2 of an HEVC MKV played swapped).
    @Test func matroskaBFramesPlayInOrder() throws {
        let d = TempDir()
        let src = d.file("c.mp4"), mkv = d.file("b.mkv"), out = d.file("p.nut")
        #expect(try CLI.run(["generate", "--fps", "240", "--duration", "1/4", "--size", "160x90", "--no-audio", "-o", src]).status == 0)
        #expect(try CLI.tool(["ffmpeg", "-v", "error", "-i", src, "-c:v", "libx264", "-bf", "3", "-crf", "12", mkv]).status == 0)
        let r = try CLI.run(["play", mkv, "--rate", "2", "-o", out, "--no-audio"])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try CLI.run(["probe", out, "--frames", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as! [String: Any]
        let frames = json["frames"] as! [[String: Any]]
        #expect(frames.map { $0["calibrationIndex"] as? Int } == (0..<60).map { Optional($0) })
    }

    @Test(arguments: ["rate 0", "rate 64", "seek -1", "warp 9", "pitch"])
    func badCommandsAreReportedAndPlaybackGoesOn(command: String) throws {
        let d = TempDir()
        let src = d.file("c.mkv")
        _ = try CLI.run(["generate", "--fps", "60", "--duration", "1/4", "--size", "160x90", "--no-audio", "-o", src])
        let play = try PlaySession([src, "-o", d.file("o.nut"), "--no-audio"])
        play.send(command)
        let (status, events) = try play.finish()
        #expect(status == 0)
        #expect(events.contains("\"event\":\"error\"") && events.contains("\"event\":\"end\""), "\(events)")
    }
}

/// A rate change reaches the audio where the `applied` event says: with varispeed the 1 kHz
/// calibration tone drops to 250 Hz at 1/4 and rises to 500 Hz at 1/2, so the stream's audio shows
/// the switch by its pitch.
@Suite struct PlayAudioSwitchTests {
    @Test func varispeedRateChangeLandsWhereTheEventSaysIt() throws {
        let d = TempDir()
        let src = d.file("c.mp4"), out = d.file("p.nut")
        #expect(try CLI.run(["generate", "--fps", "240", "--duration", "2", "--size", "160x90", "-o", src]).status == 0)
        let play = try PlaySession([src, "--rate", "1/4", "--pitch", "varispeed", "-o", out])
        usleep(700_000)
        play.send("rate 1/2")
        usleep(400_000)
        play.send("quit")
        let (status, events) = try play.finish()
        #expect(status == 0, "\(events)")
        let applied = try #require(
            events.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }.first { $0["event"] as? String == "applied" }, "\(events)")
        let audioFrom = try #require(applied["audioFromSeconds"] as? Double)
        let at = try #require(applied["atSeconds"] as? Double)
        let effect = try #require(applied["audioEffectMs"] as? Double)
        // by construction: audio is written at most --lead (10 ms) plus one 5 ms packet ahead
        #expect(effect <= 15.5 && abs(effect - max(0, audioFrom - at) * 1000) < 0.01, "\(applied)")

        let decode = Process()
        decode.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        decode.arguments = ["-v", "error", "-i", out, "-map", "0:a", "-ac", "1", "-ar", "48000", "-f", "f32le", "pipe:1"]
        let pcm = Pipe()
        decode.standardOutput = pcm
        try decode.run()
        let data = pcm.fileHandleForReading.readDataToEndOfFile()
        decode.waitUntilExit()
        let x: [Float] = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // rising zero crossings, interpolated; the intervals are 192 samples at 250 Hz, 96 at 500 Hz
        var crossings: [Double] = []
        for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
            crossings.append(Double(i - 1) + Double(-x[i - 1] / (x[i] - x[i - 1])))
        }
        let gaps = zip(crossings.dropFirst(), crossings).map { $0 - $1 }
        let fast = try #require(
            gaps.indices.first { k in
                k + 8 <= gaps.count && gaps[k..<(k + 8)].allSatisfy { abs($0 - 96) < 4 }
            }, "no 500 Hz run in \(x.count) samples")
        let before = gaps[..<fast].filter { abs($0 - 192) < 6 }.count
        #expect(before > 20, "the 250 Hz part before the switch is missing")
        // the switch begins with a 5 ms crossfade: the first clean 500 Hz period starts within it
        let switchSeconds = crossings[fast] / 48000
        #expect(
            switchSeconds >= audioFrom - 0.002 && switchSeconds <= audioFrom + 0.008,
            "500 Hz from \(switchSeconds) s, event says \(audioFrom) s")
    }

    /// A rate the current algorithm cannot take is an error event; playback goes on (it used to end
    /// the whole play with an error).
    @Test func rateOutsideTheAlgorithmsRangeIsRejectedAndPlaybackGoesOn() throws {
        let d = TempDir()
        let src = d.file("c.mp4")
        #expect(try CLI.run(["generate", "--fps", "60", "--duration", "1/2", "--size", "160x90", "-o", src]).status == 0)
        let play = try PlaySession([src, "--pitch", "zero-latency", "-o", d.file("o.nut")])
        for c in ["rate 1/4", "pitch spectral", "rate 1/4"] { play.send(c) }
        let (status, events) = try play.finish()
        #expect(status == 0, "\(events)")
        let kinds = events.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["event"] as? String
        }
        #expect(kinds.filter { $0 != "applied" } == ["error", "pitch", "rate", "end"], "\(events)")
        #expect(events.contains("outside zero-latency's range"))
    }
}

/// Seek, pause, resume and quit, on streams written to stdout and sent over UDP.
@Suite struct PlayControlTests {
    /// A 60 fps MP4 clip (exact frame times), by default MJPEG: every frame a keyframe, so a seek
    /// lands on the frame asked for.
    func clip(_ d: TempDir, seconds: String, codec: String = "mjpeg") throws -> String {
        let src = d.file("c.mp4")
        let r = try CLI.run(["generate", "--fps", "60", "--duration", seconds, "--size", "160x90", "--codec", codec, "--no-audio", "-o", src])
        #expect(r.status == 0, "\(r.stderr)")
        return src
    }

    func kinds(_ events: String) -> [String] {
        events.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["event"] as? String
        }
    }

    /// `seek 1.5` on a 2 s clip played at half speed to stdout: the stream jumps from the first
    /// frames to frame 90 (1.5 s at 60 fps) and plays on to the last frame, in order.
    @Test func seekJumpsToTheFrameAskedFor() throws {
        let d = TempDir()
        let out = d.file("stdout.nut")
        let play = try PlaySession([try clip(d, seconds: "2"), "--rate", "1/2", "--no-audio"], stdout: out)
        play.send("seek 1.5")
        let (status, events) = try play.finish()
        #expect(status == 0, "\(events)")
        #expect(kinds(events).contains("seek"), "\(events)")
        let index = try CLI.probedFrames(out).map { $0["calibrationIndex"] as? Int ?? -1 }
        let at = try #require(index.firstIndex(of: 90), "\(index)")
        #expect(Array(index[at...]) == Array(90..<120))
        #expect(index[..<at].allSatisfy { $0 >= 0 && $0 < 60 }, "\(index)")  // the jump happened long before 1.5 s
        #expect(index == index.sorted())
    }

    /// `pause` then `quit` 1.5 s later, on a clip that plays in 1 s: the stream on stdout stops
    /// where the pause held it (an unpaused playback would have written every frame by then), and
    /// is a whole stream (it probes, every frame in order from 0); exit 0.
    @Test func pauseThenQuitEndsAWholeShortStream() throws {
        let d = TempDir()
        let out = d.file("stdout.nut")
        let play = try PlaySession([try clip(d, seconds: "1"), "--no-audio"], stdout: out)
        // pause once the first frames are out (a pause before the first frame leaves an empty stream)
        for _ in 0..<1000 where ((try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0) < 3000 { usleep(10_000) }
        play.send("pause")
        usleep(1_500_000)
        play.send("quit")
        let (status, events) = try play.finish()
        #expect(status == 0, "\(events)")
        #expect(kinds(events) == ["pause", "end"], "\(events)")
        let index = try CLI.calibrationIndices(out)
        #expect(index.count > 0 && index.count < 60, "\(index.count) frames: the pause did not hold playback")
        #expect(index == (0..<index.count).map { Optional($0) })
    }

    /// A pause leaves no hole in the stream: after `resume` the frames go on with the same spacing,
    /// and every frame is there.
    @Test func pauseAndResumeKeepTheStreamContinuous() throws {
        let d = TempDir()
        let out = d.file("p.nut")
        let play = try PlaySession([try clip(d, seconds: "1"), "--rate", "1/2", "--no-audio", "-o", out])
        play.send("pause")
        usleep(400_000)
        play.send("resume")
        let (status, events) = try play.finish()
        #expect(status == 0, "\(events)")
        #expect(kinds(events) == ["pause", "resume", "end"], "\(events)")
        let f = try CLI.probedFrames(out)
        #expect(f.map { $0["calibrationIndex"] as? Int } == (0..<60).map { Optional($0) })
        let t = f.compactMap { $0["ptsTicks"] as? Int }
        // half speed of 60 fps: 1/30 s apart (3000 ticks at 90 kHz), the pause included
        #expect(Set(zip(t.dropFirst(), t).map { $0 - $1 }) == [3000])
    }

    /// At the end of the input the audio plays to its own end, paced: a 4 fps clip of 1/2 s at 1/8
    /// has its last frame at 2 s on the output and 4 s of audio. Play used to stop the audio 1 s
    /// after the last frame (3 s here), cutting the slowest passages short.
    @Test func audioOutlastsTheLastFrameAtASlowRate() throws {
        let d = TempDir()
        let src = d.file("c.mkv"), out = d.file("p.nut")
        let g = try CLI.run(["generate", "--fps", "4", "--duration", "1/2", "--size", "160x90", "-o", src])
        #expect(g.status == 0, "\(g.stderr)")
        let clock = ContinuousClock.now
        let r = try CLI.run(["play", src, "--rate", "1/8", "--pitch", "varispeed", "-o", out])
        let wall = ContinuousClock.now - clock
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try CLI.run(["probe", out, "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as! [String: Any]
        let audio = try #require((json["streams"] as! [[String: Any]]).first { $0["kind"] as? String == "audio" })
        let rate = try #require(audio["sampleRate"] as? Int)
        #expect(audio["sampleCount"] as? Int == 4 * rate, "\(audio)")
        #expect(try CLI.calibrationIndices(out) == [0, 1])
        // paced: the audio's last second is not written at once when the video ends
        #expect(wall > .milliseconds(3_500), "\(wall)")
    }

    /// `--start` between keyframes: the copied video starts at the keyframe before it, and the sound
    /// starts there too. It used to start at the requested time: the picture ran from the keyframe
    /// and the sound from 0.5 s, 0.73 s shorter at half speed here, and probe called it truncated.
    @Test func startBetweenKeyframesKeepsSoundAndPictureInStep() throws {
        let d = TempDir()
        let src = d.file("c.mp4"), out = d.file("p.nut")
        #expect(try CLI.run(["generate", "--fps", "60", "--duration", "1", "--size", "160x90", "-o", src]).status == 0)
        let keyframes = try CLI.probedFrames(src).filter { $0["keyframe"] as? Bool == true }.compactMap { $0["calibrationIndex"] as? Int }
        let first = try #require(keyframes.last { $0 <= 30 })
        try #require(first < 30, "the clip needs a keyframe before 0.5 s that is not at it: \(keyframes)")
        let r = try CLI.run(["play", src, "--start", "0.5", "--rate", "1/2", "--pitch", "varispeed", "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        let probe = try CLI.run(["probe", out, "--json"])
        #expect(probe.status == 0, "\(probe.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(probe.stdout.utf8)) as! [String: Any]
        let audio = try #require((json["streams"] as! [[String: Any]]).first { $0["kind"] as? String == "audio" })
        let rate = try #require(audio["sampleRate"] as? Int)
        let samples = try #require(audio["sampleCount"] as? Int)
        let expected = (60 - first) * 2 * rate / 60  // from the keyframe to the end, at 1/2
        #expect(abs(samples - expected) <= rate / 100, "\(samples) samples, \(expected) expected from frame \(first)")
        #expect(try CLI.calibrationIndices(out) == Array(first..<60))
    }

    /// The README's own example, `slomo play clip.mp4 --rate 1/4`, works with the default pitch:
    /// `auto` takes spectral outside zero-latency's 1/2…2 (it used to fail at once).
    @Test func theDefaultPitchTakesEveryRate() throws {
        let d = TempDir()
        let src = d.file("c.mkv"), out = d.file("p.nut")
        #expect(try CLI.run(["generate", "--fps", "4", "--duration", "1/2", "--size", "160x90", "-o", src]).status == 0)
        let r = try CLI.run(["play", src, "--rate", "1/4", "-o", out])
        #expect(r.status == 0 && !r.stderr.contains("\"error\""), "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(try CLI.run(["probe", out, "--json"]).stdout.utf8)) as! [String: Any]
        let audio = try #require((json["streams"] as! [[String: Any]]).first { $0["kind"] as? String == "audio" })
        let rate = try #require(audio["sampleRate"] as? Int)
        #expect(audio["sampleCount"] as? Int == 2 * rate, "\(audio)")  // 1/2 s at 1/4 = 2 s of sound
    }

    /// A URL FFmpeg writes: MPEG-TS over UDP to a receiving ffmpeg on localhost, which gets every frame.
    @Test func udpStreamReachesAReceiver() throws {
        let d = TempDir()
        let src = try clip(d, seconds: "1", codec: "h264")  // MPEG-TS has no MJPEG stream type
        let port = Int.random(in: 20_000..<60_000)
        let received = d.file("received.nut")
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        // ends 2 s after the last datagram
        receiver.arguments = [
            "-v", "error", "-y", "-f", "mpegts", "-i", "udp://127.0.0.1:\(port)?timeout=2000000",
            "-c", "copy", "-f", "nut", received,
        ]
        receiver.standardError = FileHandle.nullDevice
        try receiver.run()
        usleep(500_000)
        let r = try CLI.run(["play", src, "-o", "udp://127.0.0.1:\(port)?pkt_size=1316", "--format", "mpegts", "--no-audio"])
        #expect(r.status == 0, "\(r.stderr)")
        receiver.waitUntilExit()
        #expect(try CLI.calibrationIndices(received) == (0..<60).map { Optional($0) })
    }
}

/// A running `slomo play`: commands go to its stdin, events come back from its stderr.
struct PlaySession {
    let process = Process()
    let stdin = Pipe(), stderr = Pipe()

    /// `stdout`: a file that receives the stream when the output is `-` (else the test's own stdout).
    init(_ arguments: [String], stdout: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["play"] + arguments
        process.standardInput = stdin
        process.standardError = stderr
        if let stdout {
            _ = FileManager.default.createFile(atPath: stdout, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: stdout)
        }
        try process.run()
    }

    func send(_ command: String) { stdin.fileHandleForWriting.write(Data((command + "\n").utf8)) }

    /// Closes stdin (playback runs to the end unless told to quit) and returns the exit status and events.
    func finish() throws -> (status: Int32, events: String) {
        try stdin.fileHandleForWriting.close()
        let events = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, events)
    }
}
