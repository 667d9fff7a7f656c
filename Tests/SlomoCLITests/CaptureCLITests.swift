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

    func indices(_ path: String) throws -> [Int?] {
        let r = try CLI.run(["probe", path, "--frames", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        return (json["frames"] as! [[String: Any]]).map { $0["calibrationIndex"] as? Int }
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
        let ix = try indices(out)
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
        #expect(try indices(out) == (0..<n).map { Optional($0) })
    }

    @Test(arguments: [
        (["--duration", "0"], 64, "--duration"), (["--frames", "0"], 64, "--frames"),
        (["--source", "synthetic:fps=0"], 64, "fps"), (["--source", "synthetic:colour=red"], 64, "unknown key"),
        (["--buffers", "1"], 64, "--buffers"), (["--segment", "2-1@1/2"], 64, "not after start"),
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
}
