import Foundation
import Testing
import SlomoSystem

/// The network trigger end to end on the built binary: captures listening on loopback ports (and a
/// multicast group inside a network namespace of its own), fired by `slomo trigger`. No packet
/// leaves this machine: every address is 127.0.0.1 or a group reached only through `lo` of a
/// namespace the test makes.
@Suite(.serialized) struct NetworkTriggerTests {
    /// A free UDP port on loopback (bound once and let go).
    static func freePort() throws -> UInt16 {
        let s = try UDPSocket.listening(on: IPv4Endpoint(host: "127.0.0.1", port: 0)!)
        defer { s.close() }
        return s.localPort
    }

    /// A capture at 100 fps in the background, its stderr in a file; returns once it says `armed`.
    func armedCapture(_ d: TempDir, _ name: String, port: UInt16, extra: [String] = []) throws -> (Process, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments =
            [
                "capture", "--source", "synthetic:fps=100,size=160x96,format=yuyv", "--codec", "ffv1",
                "--trigger", "udp://127.0.0.1:\(port)", "--trigger-key", d.file("rig.key"),
                "--pre-trigger", "1", "--post-trigger", "0.2", "-o", d.file(name), "--json",
            ] + extra
        let err = d.file(name + ".err")
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        p.standardError = FileHandle(forWritingAtPath: err)
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        for _ in 0..<600 where !((try? String(contentsOfFile: err, encoding: .utf8)) ?? "").contains("slomo: armed") { usleep(20_000) }
        return (p, err)
    }

    func writeKey(_ d: TempDir, _ name: String = "rig.key", _ text: String = "0123456789abcdef-shared-secret") throws {
        try Data((text + "\n").utf8).write(to: URL(fileURLWithPath: d.file(name)))
    }

    func shot(_ path: String) throws -> [String: Any] {
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".capture.json"))) as! [String: Any]
        return try #require((report["shots"] as? [[String: Any]])?.first)
    }

    static func seconds(_ v: Any?) -> Double {
        guard let r = v as? [String: Any], let n = (r["numerator"] as? NSNumber)?.doubleValue, let d = (r["denominator"] as? NSNumber)?.doubleValue else {
            return .nan
        }
        return n / d
    }

    /// Two captures, one message naming an instant 0.2 s back: each selects the frame of that
    /// instant (the first frame stamped at or after it, so less than one period after it), the same
    /// instant on both, with every pre-trigger frame of a second before it.
    @Test func oneMessageSelectsTheSameInstantOnTwoCaptures() throws {
        let d = TempDir()
        try writeKey(d)
        let (pa, pb) = (try Self.freePort(), try Self.freePort())
        let (a, _) = try armedCapture(d, "a.mkv", port: pa)
        let (b, _) = try armedCapture(d, "b.mkv", port: pb)
        usleep(600_000)  // the rings hold a second before the instant 0.2 s back
        let r = try CLI.run(["trigger", "udp://127.0.0.1:\(pa)", "udp://127.0.0.1:\(pb)", "--at", "-0.2", "--trigger-key", d.file("rig.key"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        a.waitUntilExit()
        b.waitUntilExit()
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0)
        let sa = try shot(d.file("a.mkv")), sb = try shot(d.file("b.mkv"))
        let ta = Self.seconds(sa["triggerTime"]), tb = Self.seconds(sb["triggerTime"])
        #expect(abs(ta - tb) < 2e-6, "the two events differ: \(ta) \(tb)")
        for s in [sa, sb] {
            let offset = Self.seconds(s["triggerFrameTime"]) - Self.seconds(s["triggerTime"])
            #expect(offset >= 0 && offset < 0.01, "trigger frame \(offset) s after the instant")
            #expect(s["preFrames"] as? Int == 100, "\(s)")
            #expect(s["trigger"] as? String == "udp")
        }
        // the instant is the one sent: 0.2 s before sending, on the wall clock
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let sent = try #require((doc["sent"] as? [[String: Any]])?.first)
        // (within 50 ms: a loaded machine may take some between reading the clock and sending)
        #expect(abs(Self.seconds(sent["at"]) - Self.seconds(sent["sentAt"]) + 0.2) < 0.05)
        // and each shot's event is that instant (its wall time to the millisecond), not when the message came
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for s in [sa, sb] {
            let wall = try #require((s["triggerWallTime"] as? String).flatMap { iso.date(from: $0) })
            #expect(abs(wall.timeIntervalSince1970 - Self.seconds(sent["at"])) < 0.002, "\(s["triggerWallTime"] ?? "")")
        }
    }

    /// A wrongly signed message, garbage and a replayed message are ignored with a warning each,
    /// and never fire; the first copy of the replayed one does.
    @Test func unsignedWrongAndReplayedMessagesNeverFire() throws {
        let d = TempDir()
        try writeKey(d)
        try writeKey(d, "other.key", "another-key-of-16-bytes-or-more")
        let port = try Self.freePort()
        let (p, err) = try armedCapture(d, "c%d.mkv", port: port, extra: ["--duration", "4", "--shots", "0"])
        let target = IPv4Endpoint(host: "127.0.0.1", port: port)!
        #expect(try CLI.run(["trigger", "udp://127.0.0.1:\(port)", "--trigger-key", d.file("other.key")]).status == 0)
        let raw = try UDPSocket.sender()
        try raw.send(Array("slomo-trigger/1 at=1 sent=1 nonce=0000000000000001".utf8), to: target)
        // one correctly signed message, caught on a port of our own, then delivered twice
        let catcher = try UDPSocket.listening(on: IPv4Endpoint(host: "127.0.0.1", port: 0)!)
        #expect(try CLI.run(["trigger", "udp://127.0.0.1:\(catcher.localPort)", "--trigger-key", d.file("rig.key")]).status == 0)
        let message = try #require(try catcher.receive(milliseconds: 2000)).bytes
        catcher.close()
        try raw.send(message, to: target)
        usleep(300_000)
        try raw.send(message, to: target)
        raw.close()
        p.waitUntilExit()
        let text = try String(contentsOfFile: err, encoding: .utf8)
        let ignored = text.split(separator: "\n").filter { $0.contains(#""event":"ignored""#) }
        #expect(ignored.count == 3, "\(text)")
        #expect(ignored.contains { $0.contains("signature does not match") })
        #expect(ignored.contains { $0.contains("not a slomo trigger message") })
        #expect(ignored.contains { $0.contains("repeats a message") })
        #expect(text.split(separator: "\n").filter { $0.contains(#""event":"trigger""#) }.count == 1)
    }

    /// A multicast group, in a network namespace with only `lo` up (the test's own: nothing reaches
    /// a real network): a capture joined to the group is fired by a message sent to the group.
    @Test func aMulticastGroupFiresTheCapturesJoinedToIt() throws {
        guard getuid() == 0, let unshare = CLI.which("unshare"), let ip = CLI.which("ip") else {
            print("skipped: the multicast test needs root, unshare and ip (iproute2) to make a network namespace")
            return
        }
        let d = TempDir()
        try writeKey(d)
        let s = CLI.binary, key = d.file("rig.key"), out = d.file("m.mkv")
        let script = """
            set -e
            \(ip) link set lo up
            \(ip) route add 224.0.0.0/4 dev lo
            '\(s)' capture --source synthetic:fps=100,size=160x96,format=yuyv --codec ffv1 --trigger udp://239.7.7.7:7700 \
              --trigger-key '\(key)' --pre-trigger 0.5 --post-trigger 0.1 -o '\(out)' 2> '\(out).err' &
            for i in $(seq 100); do grep -q 'slomo: armed' '\(out).err' 2>/dev/null && break; sleep 0.1; done
            '\(s)' trigger udp://239.7.7.7:7700 --trigger-key '\(key)'
            wait
            """
        let r = try CLI.run(executable: unshare, ["-n", "bash", "-c", script])
        #expect(r.status == 0, "\(r.stderr)")
        let sh = try shot(out)
        #expect(sh["trigger"] as? String == "udp" && sh["complete"] as? Bool == true, "\(sh)")
    }

    @Test(arguments: [
        (["--trigger", "udp://127.0.0.1:9"], 64, "needs --trigger-key"),
        (["--trigger", "stdin", "--trigger-key", "KEY"], 64, "--trigger-key is for --trigger udp"),
        (["--trigger", "udp://300.1.1.1:7000", "--trigger-key", "KEY"], 64, "not an IPv4 address"),
        (["--trigger", "udp://127.0.0.1:99999", "--trigger-key", "KEY"], 64, "port in 1...65535"),
        (["--trigger", "udp://127.0.0.1:7000", "--trigger-key", "SHORT"], 64, "at least 16 bytes"),
        (["--trigger", "udp://127.0.0.1:7000", "--trigger-key", "MISSING"], 66, "cannot read the trigger key"),
    ])
    func refusals(args: [String], status: Int32, says: String) throws {
        let d = TempDir()
        try writeKey(d)
        try writeKey(d, "short.key", "short")
        let real = args.map { ["KEY": d.file("rig.key"), "SHORT": d.file("short.key"), "MISSING": d.file("none.key")][$0] ?? $0 }
        let r = try CLI.run(["capture", "--source", "synthetic", "-o", d.file("x.mkv")] + real)
        #expect(r.status == status && r.stderr.contains(says), "\(r.status) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.file("x.mkv")))
    }

    @Test func aPortInUseIsRefusedAndAMalformedInstantToo() throws {
        let d = TempDir()
        try writeKey(d)
        let holder = try UDPSocket.listening(on: IPv4Endpoint(host: "127.0.0.1", port: 0)!)
        defer { holder.close() }
        let r = try CLI.run([
            "capture", "--source", "synthetic", "--trigger", "udp://127.0.0.1:\(holder.localPort)",
            "--trigger-key", d.file("rig.key"), "-o", d.file("x.mkv"),
        ])
        #expect(r.status == 69 && r.stderr.contains("EADDRINUSE"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.file("x.mkv")))
        let t = try CLI.run(["trigger", "udp://127.0.0.1:9", "--at", "yesterday", "--trigger-key", d.file("rig.key")])
        #expect(t.status == 64 && t.stderr.contains("--at 'yesterday'"), "\(t.stderr)")
    }
}
