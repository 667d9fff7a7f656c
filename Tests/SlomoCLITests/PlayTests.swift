import Foundation
import Testing

/// `slomo play` writes a paced stream whose timestamps follow the live rate.
@Suite struct PlayTests {
    @Test func rateChangeOnStdinChangesTheTimestampSpacing() throws {
        let d = TempDir()
        let src = d.file("c.mp4"), out = d.file("p.nut")
        #expect(try CLI.run(["generate", "--fps", "240", "--duration", "1", "--size", "160x90", "--no-audio", "-o", src]).status == 0)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["play", src, "--rate", "1/4", "-o", out, "--no-audio"]
        let stdin = Pipe(), stderr = Pipe()
        p.standardInput = stdin
        p.standardError = stderr
        try p.run()
        usleep(600_000)
        stdin.fileHandleForWriting.write(Data("rate 1\n".utf8))
        try stdin.fileHandleForWriting.close()
        let events = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(events)")
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

    @Test(arguments: ["rate 0", "rate 64", "seek -1", "warp 9", "pitch"])
    func badCommandsAreReportedAndPlaybackGoesOn(command: String) throws {
        let d = TempDir()
        let src = d.file("c.mkv")
        _ = try CLI.run(["generate", "--fps", "60", "--duration", "1/4", "--size", "160x90", "--no-audio", "-o", src])
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["play", src, "-o", d.file("o.nut"), "--no-audio"]
        let stdin = Pipe(), stderr = Pipe()
        p.standardInput = stdin; p.standardError = stderr
        try p.run()
        stdin.fileHandleForWriting.write(Data("\(command)\n".utf8))
        try stdin.fileHandleForWriting.close()
        let events = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(events.contains("\"event\":\"error\"") && events.contains("\"event\":\"end\""), "\(events)")
    }
}
