import Foundation
import Testing

/// GenICam capture end to end over the real GigE Vision protocol: Aravis's own fake camera
/// (`arv-fake-gv-camera-0.8`, aravis-tools) on loopback, inside a network namespace each test
/// makes (`unshare -n`, only `lo` up): Aravis's discovery broadcasts on every interface, and no
/// packet of a test may leave this machine's loopback.
@Suite(.serialized) struct GenICamCLITests {
    static let fake = CLI.which("arv-fake-gv-camera-0.8")

    /// Runs `body` (bash) in a fresh network namespace with the fake camera at each address in
    /// `cameras` (`FAKE1`, `FAKE2`… hold their pids); nil (and a line saying so) when it cannot.
    func inNamespace(cameras: [String] = ["127.0.0.1"], lossPerThousand: Int = 0, _ body: String) throws -> CLI.Result? {
        guard getuid() == 0 else {
            print("skipped: GenICam over GigE Vision needs root for its network namespace (unshare -n)")
            return nil
        }
        // as root the test command has installed them (scripts/dev.sh deps test): missing is a failure
        guard let unshare = CLI.which("unshare"), let ip = CLI.which("ip"), let fake = Self.fake,
            let tool = CLI.which("arv-tool-0.8")
        else {
            Issue.record("GenICam over GigE Vision needs unshare, ip, aravis-tools and aravis-tools-cli (scripts/dev.sh deps test)")
            return nil
        }
        var script = "set -u\n\(ip) link set lo up\n"
        // a second loopback address for a second camera (Aravis finds its interface by the address)
        for a in cameras where a != "127.0.0.1" { script += "\(ip) addr add \(a)/8 dev lo\n" }
        for (i, a) in cameras.enumerated() {
            script += """
                \(fake) -i \(a) -s GV0\(i + 1) \(lossPerThousand > 0 ? "-r \(lossPerThousand)" : "") >/dev/null 2>&1 & FAKE\(i + 1)=$!
                for i in $(seq 100); do \(tool) -a \(a) control DeviceID >/dev/null 2>&1 && break; sleep 0.1; done

                """
        }
        script +=
            "export SLOMO_GENICAM_INTERFACES=GigEVision\nS='\(CLI.binary)'\n" + body + "\nrc=$?\nkill -9 $(jobs -p) 2>/dev/null; wait 2>/dev/null\nexit $rc\n"
        // bounded: a hung camera or capture fails the test instead of holding the run
        return try CLI.run(executable: "/usr/bin/timeout", ["-k", "5", "120", unshare, "-n", "bash", "-c", script])
    }

    func report(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + ".capture.json"))) as? [String: Any])
    }

    /// Packet times of the stored file (ffprobe), in seconds.
    func frameTimes(_ path: String) throws -> [Double] {
        let r = try CLI.tool(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path])
        return r.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.sorted()
    }

    /// 320x240 Mono8 at 200 fps for 2 s: the frame ids wrap (the fake starts at 65400) and no drop
    /// is counted for it; every frame is stored with the camera's cadence; the report has the
    /// stream's statistics, the packet size and the socket buffer; the devices list names it.
    @Test func aCaptureOverGigEVisionKeepsEveryFrameThroughTheIdWrap() throws {
        let d = TempDir(), out = d.file("g.mkv")
        guard
            let r = try inNamespace(
                """
                "$S" devices --json > '\(d.file("devices.json"))' || exit 1
                "$S" capture genicam:127.0.0.1 --format Mono8 --size 320x240 --fps 200 --duration 2 --codec ffv1 -o '\(out)' --json > /dev/null
                """)
        else { return }
        #expect(r.status == 0, "\(r.stderr)")
        let devices = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: d.file("devices.json")))) as? [String: Any]
        let g = (devices?["genicam"] as? [[String: Any]])?.first
        #expect(
            g?["id"] as? String == "Aravis-Fake-GV01" && g?["protocol"] as? String == "GigEVision" && g?["address"] as? String == "127.0.0.1",
            "\(String(describing: devices))")
        let rep = try report(out)
        let t = try #require(rep["transport"] as? [String: Any])
        // the fake paces itself by sleeping, and skips (unnumbered) periods on a busy machine: what
        // counts is that every frame it numbered arrived: the ids run without a gap
        let captured = rep["framesCaptured"] as? Int ?? 0
        let first = t["firstFrameId"] as? Int ?? 0, last = t["lastFrameId"] as? Int ?? 0
        // (the last id received is the frame at the duration's end, which the capture does not keep)
        let span = (last - first + 65535) % 65535
        #expect(captured >= 200 && (span == captured || span == captured - 1), "\(captured) frames, ids \(first)…\(last)")
        #expect(rep["droppedByDriver"] as? Int == 0 && rep["framesWritten"] as? Int == captured)
        #expect(t["frameIdWraps"] as? Int == 1 && (t["missingFrameIds"] as? [Any])?.isEmpty == true, "\(t)")
        #expect(t["protocol"] as? String == "GigEVision" && (t["packetSize"] as? Int ?? 0) > 0 && (t["socketBufferBytes"] as? Int ?? 0) >= 4 << 20)
        #expect((t["counters"] as? [String: Int])?["n_missing_packets"] == 0)
        #expect(t["failures"] as? Int == 0)
        #expect(((rep["format"] as? [String: Any])?["fourcc"] as? String) == "GREY")
        let times = try frameTimes(out)
        #expect(times.count == captured)
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }.sorted()
        #expect(abs(gaps[gaps.count / 2] - 0.005) < 0.0002, "median interval \(gaps[gaps.count / 2])")
    }

    /// One packet in 100 lost (`-r 10`: about 4 frames in 10 miss one of their 55 packets, and the
    /// fake never resends): frames with missing packets come back from Aravis with a status; they
    /// are counted (driverErrors, transport.damagedByStatus) and never stored.
    @Test func framesMissingPacketsAreCountedAndNeverStored() throws {
        let d = TempDir(), out = d.file("l.mkv")
        guard
            let r = try inNamespace(
                lossPerThousand: 10,
                """
                "$S" capture genicam:127.0.0.1 --size 320x240 --fps 100 --duration 2 --codec ffv1 -o '\(out)'
                """)
        else { return }
        #expect(r.status == 0, "\(r.stderr)")
        let rep = try report(out)
        let t = try #require(rep["transport"] as? [String: Any])
        let damaged = (t["damagedByStatus"] as? [String: Int] ?? [:]).values.reduce(0, +)
        let errors = rep["driverErrors"] as? Int ?? 0
        let captured = rep["framesCaptured"] as? Int ?? 0, written = rep["framesWritten"] as? Int ?? 0
        // the source counts a damaged frame that arrives after the duration's end; the capture does not
        #expect(errors > 10 && damaged >= errors && damaged <= errors + 1, "\(errors) \(t)")
        #expect(written + errors == captured, "\(written) + \(errors) != \(captured)")
        #expect(written > 20 && captured >= 100, "\(written) of \(captured)")  // 200 at full rate; a loaded machine starves the fake camera
        #expect(try frameTimes(out).count == written)
        #expect(r.stderr.contains("were not stored"), "\(r.stderr)")
        #expect((t["clockResidualP50Micros"] as? Int ?? .max) < 5000, "\(t)")
    }

    /// The camera killed mid-stream: exit 74 with one line saying why and what was kept; the
    /// file plays to its last frame.
    @Test func aCameraThatGoesAwayEndsTheCaptureWithAPlayableFile() throws {
        let d = TempDir(), out = d.file("k.mkv")
        guard
            let r = try inNamespace(
                """
                ( sleep 2; kill -9 $FAKE1 ) &
                "$S" capture genicam:127.0.0.1 --size 320x240 --fps 100 --duration 30 --codec ffv1 -o '\(out)'
                """)
        else { return }
        #expect(r.status == 74, "\(r.status) \(r.stderr)")
        let line = r.stderr.split(separator: "\n").first { $0.contains("disconnected during capture") }
        #expect(line?.contains("genicam:127.0.0.1") == true && line?.contains("frames kept in") == true, "\(r.stderr)")
        let rep = try report(out)
        let written = rep["framesWritten"] as? Int ?? 0
        #expect(written > 50 && rep["stopReason"] as? String == "disconnected")
        #expect(try frameTimes(out).count == written)
    }

    /// Two cameras on one capture (127.0.0.1 and 127.0.0.2): both recorded, their skew reported.
    @Test func twoCamerasRecordTogetherWithTheirSkew() throws {
        let d = TempDir(), out = d.file("cam{camera}.mkv")
        guard
            let r = try inNamespace(
                cameras: ["127.0.0.1", "127.0.0.2"],
                """
                "$S" capture genicam:127.0.0.1 genicam:127.0.0.2 --size 160x120 --fps 100 --duration 1.5 --codec ffv1 -o '\(out)' --json
                """)
        else { return }
        #expect(r.status == 0, "\(r.stderr)")
        let multi = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let cams = multi["cameras"] as? [[String: Any]] ?? []
        #expect(
            cams.count == 2 && cams.allSatisfy { ($0["framesWritten"] as? Int ?? 0) >= 75 && $0["droppedByDriver"] as? Int == 0 },
            "\(cams.map { ($0["framesWritten"] ?? "?", $0["droppedByDriver"] ?? "?", $0["durationSeconds"] ?? "?") })")
        // measured over the frames the two cameras gave together: on a loaded machine the fake
        // cameras give fewer (a CI run paired exactly 100 of the 150 asked), so the bound is the
        // one the frame counts above use, half the asked
        let skew = (multi["skew"] as? [[String: Any]])?.first
        #expect(skew?["frames"] as? Int ?? 0 >= 75, "\(String(describing: multi["skew"]))")
    }

    /// A pre/post-trigger shot from a GenICam camera: the same ring and shot path as V4L2.
    @Test func aTriggeredShotFromAGenICamCamera() throws {
        let d = TempDir(), out = d.file("s.mkv")
        guard
            let r = try inNamespace(
                CLI.triggerScript(
                    "\"$S\" capture genicam:127.0.0.1 --size 160x120 --fps 100 --trigger stdin --pre-trigger 0.5 --post-trigger 0.3 --codec ffv1 -o '\(out)'",
                    linger: 0))
        else { return }
        #expect(r.status == 0, "\(r.stderr)")
        let shot = try #require((try report(out)["shots"] as? [[String: Any]])?.first)
        #expect(shot["complete"] as? Bool == true)
        #expect(abs((shot["preFrames"] as? Int ?? 0) - 50) <= 1 && abs((shot["postFrames"] as? Int ?? 0) - 30) <= 1, "\(shot)")
    }

    /// `--camera-trigger software`: every frame exposed on a TriggerSoftware command slomo sends at
    /// `--fps` (10 Hz here: Aravis's standalone fake looks at its trigger register 25 times a
    /// second); the frames come at the pulses' rate, the report counts the pulses.
    @Test func everyFrameOnASoftwareTrigger() throws {
        let d = TempDir(), out = d.file("t.mkv")
        guard
            let r = try inNamespace(
                """
                "$S" capture genicam:127.0.0.1 --size 160x120 --fps 10 --camera-trigger software --duration 2 --codec ffv1 -o '\(out)'
                """)
        else { return }
        #expect(r.status == 0, "\(r.stderr)")
        let rep = try report(out)
        let t = try #require(rep["transport"] as? [String: Any])
        #expect(t["cameraTrigger"] as? String == "Software")
        let sent = t["softwareTriggersSent"] as? Int ?? 0, frames = rep["framesCaptured"] as? Int ?? 0
        #expect(sent >= 20 && abs(frames - 21) <= 2, "\(sent) triggers, \(frames) frames")
        let fps = rep["achievedFps"] as? Double ?? 0
        #expect(abs(fps - 10) < 0.5, "\(fps)")
        #expect(
            (rep["controls"] as? [[String: Any]])?.contains { $0["name"] as? String == "TriggerSource" && $0["readBackText"] as? String == "Software" } == true)
    }

    /// What the camera refuses, one line each with the documented status; nothing written.
    @Test func refusals() throws {
        let d = TempDir(), out = d.file("x.mkv"), holder = d.file("holder.log")
        guard
            let r = try inNamespace(
                """
                "$S" capture genicam:127.0.0.9 --duration 1 -o '\(out)'; echo "status $?"
                "$S" capture genicam:127.0.0.1 --format Mono12 --duration 1 -o '\(out)'; echo "status $?"
                "$S" capture genicam:127.0.0.1 --size 4000x10 --duration 1 -o '\(out)'; echo "status $?"
                "$S" capture genicam:127.0.0.1 --control NoSuchFeature=1 --duration 1 -o '\(out)'; echo "status $?"
                "$S" capture genicam:127.0.0.1 --camera-trigger line7 --duration 1 -o '\(out)'; echo "status $?"
                # until arv-camera-test holds the camera (it prints the payload once the device is open and
                # controlled, line-buffered; a fixed 1.5 s was once too short on a busy machine)
                stdbuf -oL arv-camera-test-0.8 -n 127.0.0.1 --duration 8 >'\(holder)' 2>&1 & HOLDER=$!
                for i in $(seq 100); do grep -q payload '\(holder)' && break; sleep 0.1; done
                "$S" capture genicam:127.0.0.1 --duration 1 -o '\(out)'; echo "status $?"
                wait $HOLDER
                """)
        else { return }
        let statuses = r.stdout.split(separator: "\n").filter { $0.hasPrefix("status ") }.map { String($0.dropFirst(7)) }
        #expect(statuses == ["66", "64", "64", "69", "64", "69"], "\(statuses) \(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("slomo: genicam:") }
        #expect(lines.count == 6, "\(r.stderr)")
        #expect(r.stderr.contains("not offered (the camera offers BayerBG8"))
        #expect(r.stderr.contains("another program controls this camera"))
        #expect(r.stderr.contains("trigger sources are Line0, Software"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
