import Foundation
import Testing

/// `slomo job`, batch's child: a typed request on stdin, typed lines on stdout as they happen.
@Suite struct JobCommandTests {
    /// Progress lines leave the child while it works (they used to wait in stdio's buffer until the
    /// job ended, so a batch's progress only moved between jobs), and a request needs only
    /// `input` and `output`.
    @Test func progressArrivesWhileTheJobRunsAndDefaultsFillTheRequest() throws {
        let d = TempDir()
        let clip = CLI.generated(d, "c.mp4", ["--fps", "240", "--duration", "2", "--size", "640x360"])
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = ["job"]
        let stdin = Pipe(), stdout = Pipe()
        p.standardInput = stdin
        p.standardOutput = stdout
        p.standardError = FileHandle.nullDevice
        try p.run()
        let request = #"{"job": {"input": "\#(clip)", "output": "\#(d.file("o.mp4"))", "rate": "1/4"}, "threads": 1, "key": "k"}"#
        stdin.fileHandleForWriting.write(Data(request.utf8))
        try stdin.fileHandleForWriting.close()
        var lines: [(String, Bool)] = []  // (line, the child was still running when it arrived)
        var buffer = Data()
        while true {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            let running = p.isRunning
            buffer.append(chunk)
            while let nl = buffer.firstIndex(of: 10) {
                lines.append((String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self), running))
                buffer.removeSubrange(buffer.startIndex...nl)
            }
        }
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let progress = lines.filter { $0.0.contains(#""event":"progress""#) }
        #expect(progress.count >= 2, "\(lines.map(\.0))")
        #expect(progress.first?.1 == true, "the first progress line came only after the child ended")
        #expect(lines.last?.0.contains(#""event":"result""#) == true && lines.last?.0.contains(#""status":"ok""#) == true)
        #expect(try CLI.videoFrameCount(d.file("o.mp4")) == 240)  // 2 s at 1/4 → 8 s at 30 fps
    }

    @Test func aRequestThatIsNotJSONIsOneLineAndExit65() throws {
        let r = try CLI.run(["job"], stdin: Data("export a.mp4\n".utf8))
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("slomo: job: stdin is not a job request"), "\(r.stderr)")
    }
}
