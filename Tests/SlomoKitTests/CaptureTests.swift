import Foundation
import Testing
import SlomoCore
import SlomoFFmpeg
@testable import SlomoKit

/// Capture through the real writer path with the synthetic camera.
@Suite(.serialized) struct CaptureTests {
    func capture(
        _ spec: String, _ dir: TemporaryDirectory, name: String = "cap.mp4", limits: CaptureLimits,
        map: RetimeMap? = nil
    ) throws -> (CaptureReport, ProbeReport) {
        var settings = RecordingSettings(output: dir.file(name))
        settings.map = map
        let session = try CaptureSession(source: try SyntheticSource(spec: spec), settings: settings, limits: limits)
        let report = try session.run()
        return (report, try Prober.probe(path: settings.output, frames: true))
    }

    @Test func mjpegIsStoredAsArrivedWithKernelTimes() throws {
        let dir = TemporaryDirectory()
        let (r, p) = try capture("synthetic:fps=120,size=320x180,format=mjpeg", dir, limits: CaptureLimits(frames: 60))
        #expect(r.framesCaptured == 60 && r.framesWritten == 60 && r.stopReason == .frames)
        #expect(r.droppedByDriver == 0 && r.droppedBySlomo == 0)
        let v = try #require(p.streams.first)
        #expect(v.codec == "mjpeg" && v.timeBase == Rational(1, 1_000_000))
        #expect(p.frames?.map(\.calibrationIndex) == (0..<60).map { Optional($0) })
        // the file's times are the capture timestamps from the first frame, to the microsecond
        #expect(v.duration.map { $0 >= r.duration } == true)
        // the report is next to the recording
        let side = try Data(contentsOf: URL(fileURLWithPath: dir.file("cap.mp4.capture.json")))
        let json = try JSONSerialization.jsonObject(with: side) as! [String: Any]
        #expect(json["framesWritten"] as? Int == 60)
    }

    /// A ring of 16 frames under 90 frames: the recorder (a pinned `RingReader`) hands each frame
    /// back as it is written, so the camera goes round the small ring without a drop (a reader that
    /// held on would have the producer drop everything after the 16th frame). Half a second of
    /// slack at 30 fps: a loaded test run does not stall the writer that long.
    @Test func theRecorderReleasesWhatItWrote() throws {
        let dir = TemporaryDirectory()
        var limits = CaptureLimits(frames: 90)
        limits.ringFrames = 16
        let (r, p) = try capture("synthetic:fps=30,size=320x180,format=mjpeg", dir, limits: limits)
        #expect(r.framesCaptured == 90 && r.droppedBySlomo == 0 && r.framesWritten == 90, "\(r.droppedBySlomo) dropped")
        #expect(p.frames?.map(\.calibrationIndex) == (0..<90).map { Optional($0) })
    }

    /// An H.264 camera's stream is copied as it arrives into MKV and MP4: the first keyframe's
    /// parameter sets become the header's extradata (Matroska refuses H.264 without them), and the
    /// keyframes are marked (an IDR every 10 frames here), so every frame decodes in order.
    @Test(arguments: ["cap.mkv", "cap.mp4"])
    func h264IsStoredAsArrivedWithItsKeyframes(name: String) throws {
        let dir = TemporaryDirectory()
        let (r, p) = try capture("synthetic:fps=120,size=320x180,format=h264,gop=10,pace=0", dir, name: name, limits: CaptureLimits(frames: 40))
        #expect(r.framesWritten == 40 && r.droppedBySlomo == 0)
        #expect(p.streams.first?.codec == "h264")
        #expect(p.frames?.map(\.calibrationIndex) == (0..<40).map { Optional($0) })
        #expect(p.frames?.enumerated().filter { $0.element.keyframe }.map(\.offset) == [0, 10, 20, 30])
    }

    @Test func rawIsEncodedWithAReferenceFrameEveryThirtiethOfASecond() throws {
        let dir = TemporaryDirectory()
        let (r, p) = try capture("synthetic:fps=240,size=320x180,format=yuyv,pace=0", dir, limits: CaptureLimits(frames: 96))
        #expect(r.framesWritten == 96)
        #expect(p.frames?.map(\.calibrationIndex) == (0..<96).map { Optional($0) })
        // the first frame at time 0 although B-frames delay its decoding (the moov's edit list):
        // the file's times are the kernel's from the first frame, and the sound starts with it
        #expect(p.frames?.first?.ptsTicks == 0 && p.frames?.dropFirst().first?.ptsTicks == Int64((Rational(1_000_000) / Rational(240)).rounded(.nearest)))
        // export at rate 1 to 30 fps decodes only the reference frames (1 in 8)
        let e = try Exporter.export(ExportRequest(input: dir.file("cap.mp4"), output: dir.file("e.mp4"), spec: RetimeSpec()))
        // (the last partial GOP ends on P-frames x264 adds, so a few more than the 12 shown)
        #expect(e.outputFrames == 12 && e.decodedPackets <= 12 + 7 && e.skippedPackets >= 72)
    }

    @Test func driverDropsAreCountedFromSequenceGaps() throws {
        let dir = TemporaryDirectory()
        let (r, _) = try capture("synthetic:fps=240,size=320x180,pace=0,drop-every=10", dir, limits: CaptureLimits(frames: 50))
        // a sequence number is skipped at 10, 20, 30, 40, 50: 50 delivered frames span 5 gaps
        #expect(r.droppedByDriver == 5 && r.framesCaptured == 50)
    }

    /// A machine-vision camera's numbering (GigE Vision 1.x: 1…65535, then 1) crossed mid-capture:
    /// the wrap is no drop, the skipped ids are; frames delivered incomplete are counted, never stored.
    @Test func aProducersOwnNumberingAndDamageReachTheReport() throws {
        let dir = TemporaryDirectory()
        let (r, p) = try capture(
            "synthetic:fps=240,size=320x180,pace=0,counter=gev16,first-id=65526,drop-every=10,damage-every=7",
            dir, limits: CaptureLimits(frames: 50))
        // ids skipped at frames 10 (id 1, right after the wrap from 65535: one lost, not a wrap), 20, 30, 40, 50
        #expect(r.droppedByDriver == 5 && r.framesCaptured == 50)
        // frames 7, 14, … 56 of the 55 indices delivered: 7 of them damaged, none of them in the file
        let damaged = (1...55).filter { $0 % 7 == 0 && $0 % 10 != 0 }.count
        #expect(r.driverErrors == Int64(damaged) && r.framesWritten == 50 - Int64(damaged))
        #expect(p.frames?.contains { ($0.calibrationIndex ?? 0) % 7 == 0 && $0.calibrationIndex != 0 } == false)
        #expect(r.warnings.contains("\(damaged) frames incomplete (packets missing) were not stored"))
    }

    @Test func segmentsAreSlowedWhileRecordingAndTheOriginalTimingIsKept() throws {
        let dir = TemporaryDirectory()
        let map = try RetimeSpec(segments: [try SegmentSpec(parsing: "0.1-0.2@1/4")]).resolve(duration: Rational(3600), frameRate: nil)
        let (r, p) = try capture("synthetic:fps=100,size=320x180,pace=0", dir, limits: CaptureLimits(frames: 40), map: map)
        // 40 frames at ideal 1/100 s: 0.39 s of source; 0.1 s of it slowed 4x
        #expect(r.duration == Rational(39, 100))
        let t = (p.frames ?? []).compactMap { $0.ptsTicks }
        try #require(t.count == 40)
        #expect(t[10] - t[9] == 10_000 && t[11] - t[10] == 40_000 && t[21] - t[20] == 10_000)
        // retiming from the original timing with no segments restores the capture times exactly
        let back = try Retimer.retime(RetimeRequest(input: dir.file("cap.mp4"), output: dir.file("orig.mp4"), spec: RetimeSpec()))
        #expect(back.outputDuration == Rational(39, 100) + Rational(1, 100))
        let o = try Prober.probe(path: back.output, frames: true).frames?.compactMap(\.ptsTicks) ?? []
        #expect(zip(o.dropFirst(), o).allSatisfy { $0 - $1 == o[1] - o[0] })
    }

    /// `capture --curve`: each frame's stored time is the curve's exact output time (frames at
    /// 1/100 s fall on the 10 ms grid a capture's map is exact on): slowdown 1 → 4 over 0.2 s gives
    /// O(t) = t + 7.5 t², then rate 1/4.
    @Test func aCurveWhileRecordingPutsEveryFrameAtItsExactTime() throws {
        let dir = TemporaryDirectory()
        let map = try RetimeSpec(curve: try SpeedCurve(parsing: "0@1,0.2@1/4")).resolve(duration: Rational(3600), frameRate: nil)
        let (_, p) = try capture("synthetic:fps=100,size=320x180,pace=0", dir, limits: CaptureLimits(frames: 40), map: map)
        let t = (p.frames ?? []).compactMap { $0.ptsTicks }
        try #require(t.count == 40)
        for k in 0..<40 {
            let want = k <= 20 ? Int64(10_000 * k + 750 * k * k) : 500_000 + Int64(40_000 * (k - 20))
            #expect(t[k] == want, "frame \(k)")
        }
    }

    /// A full disk is recognised by the errno the failure carries, whatever its text.
    @Test func aFullDiskIsKnownByItsErrnoNotItsText() {
        let full = CaptureSession.stopped("o.mkv", frames: 7, FFmpegError(path: "o.mkv", operation: "av_interleaved_write_frame", code: -ENOSPC))
        #expect(full.systemErrno == ENOSPC && full.kind == .ioFailed)
        #expect(
            full.description == "o.mkv: recording stopped after 7 frames: no space left on the device (ENOSPC); the file plays up to its last complete fragment"
        )
        let io = CaptureSession.stopped("o.mkv", frames: 7, CaptureError.syncFailed(output: "o.mkv", errno: EIO))
        #expect(io.systemErrno == EIO && io.description.contains("fdatasync failed: Input/output error (EIO)"), "\(io)")
        let other = CaptureSession.stopped("o.mkv", frames: 7, OutputError("o.mkv", .writeFailed(errno: nil)))
        #expect(other.systemErrno == nil && other.description.contains("frames: cannot write: write failed;"), "\(other)")
    }

    @Test func fullQueueDropsInsteadOfWaiting() throws {
        let dir = TemporaryDirectory()
        var settings = RecordingSettings(output: dir.file("q.mp4"))
        settings.preset = "veryslow"  // a writer much slower than an unpaced source
        var limits = CaptureLimits(frames: 200)
        limits.ringFrames = 4
        limits.realtime = false
        let session = try CaptureSession(
            source: try SyntheticSource(spec: "synthetic:fps=1000,size=640x360,format=yuv420p,pace=0"),
            settings: settings, limits: limits)
        let r = try session.run()
        #expect(r.framesCaptured == 200)
        #expect(r.droppedBySlomo > 0 && r.framesWritten + r.droppedBySlomo == 200)
    }

    @Test func svgPlotShowsTheIntervals() {
        var s = CaptureStats()
        for k in 0..<100 { s.record(sequence: UInt64(k), timestamp: Rational(Int64(k), 240)) }
        let svg = StatsPlot.svg(s, nominal: Rational(240), title: "t")
        #expect(svg.hasPrefix("<svg") && svg.contains("<path") && svg.contains("nominal 4.167 ms"))
        #expect(s.intervals?.p50Micros == 4167 && s.achievedFrameRate == Rational(240))
    }
}

/// The RAM ring and pre/post-trigger shots, with the synthetic camera (its frames carry their index).
/// Every test that sends SIGUSR1 is in this one serialized suite: the signal and its pipe are the
/// process's, and suites run side by side.
@Suite(.serialized) struct TriggerCaptureTests {
    @Test func ringNeverOverwritesAPinnedFrame() {
        let ring = FrameRing(capacity: 4, slotBytes: 16, lockInMemory: false)
        let pin = ring.pin(from: 0)
        for k in 0..<4 {
            let s = ring.reserve()
            #expect(s?.index == Int64(k))
            ring.publish(FrameRing.Meta(timestamp: Rational(Int64(k)), sequence: UInt64(k), bytes: 1))
        }
        #expect(ring.reserve() == nil)  // frame 0 is still needed
        ring.advance(pin.id, to: 1)
        #expect(ring.reserve()?.index == 4)  // now slot 0 may take frame 4
        ring.publish(FrameRing.Meta(timestamp: Rational(4), sequence: 4, bytes: 1))
        #expect(!ring.isIntact(0) && ring.isIntact(1) && ring.oldest == 1)
        #expect(ring.firstFrame(from: 1, atOrAfter: Rational(5, 2)) == 3)
        ring.unpin(pin.id)
        #expect(ring.pin(from: 0).start == 1)  // clamped to what is still there
    }

    func shots(
        _ spec: String, _ t: TriggerSettings, _ dir: TemporaryDirectory, name: String,
        armed: (@Sendable () -> Void)? = nil
    ) throws -> CaptureReport {
        var limits = CaptureLimits(duration: Rational(6))
        limits.lockMemory = false
        let session = try CaptureSession(
            source: try SyntheticSource(spec: spec), settings: RecordingSettings(output: dir.file(name)),
            limits: limits, trigger: t, hooks: CaptureHooks(onArmed: armed))
        return try session.run()
    }

    @Test func motionTriggerSavesPreAndPostFramesAroundTheFirstMovingFrame() throws {
        let dir = TemporaryDirectory()
        var t = TriggerSettings(kind: .motion(threshold: Rational(1, 2)), pre: Rational(1, 4), post: Rational(1, 4), shots: 2)
        t.region = PixelRegion(x: 0, y: 90, width: 320, height: 90)  // below the code band and digits
        let r = try shots("synthetic:fps=120,size=320x180,format=yuyv,still-until=90", t, dir, name: "m%d.mp4")
        #expect(r.stopReason == .shots && r.shots?.count == 2 && r.droppedBySlomo == 0)
        let s1 = try #require(r.shots?.first)
        // frame 90 is the first that moves: 30 frames (1/4 s at 120 fps) before it, 30 after, all decodable
        #expect(s1.triggerFrame == 30 && s1.preFrames == 30 && s1.postFrames == 30 && s1.complete)
        let p1 = try Prober.probe(path: dir.file("m1.mp4"), frames: true)
        #expect(p1.frames?.map(\.calibrationIndex) == (60...120).map { Optional($0) })
        #expect(p1.container.metadata["slomo_trigger_frame"] == "30" && p1.container.metadata["slomo_trigger_source"] == "motion")
        // re-armed after the post window: the next moving frame (121; the background scrolls by 2 px a
        // frame, a mean change above 1/2) triggers shot 2, whose pre
        // frames overlap shot 1's post frames
        let p2 = try Prober.probe(path: dir.file("m2.mp4"), frames: true)
        #expect(p2.frames?.map(\.calibrationIndex) == (91...151).map { Optional($0) })
        #expect((r.motionFramesEvaluated ?? 0) >= 121 && r.motionFramesSkipped == 0)  // every frame up to the second trigger
        // the motion detector's latency is from the frame's timestamp to its decision: positive, small
        #expect(s1.latency.isPositive && s1.latency < Rational(1, 2))
    }

    /// A trigger before the ring holds the pre-trigger window (here: before the camera's first
    /// frame, SIGUSR1 as soon as the session exists) keeps the frames there are, and the shot says
    /// it is short and by how much.
    @Test func aTriggerBeforeArmedKeepsWhatThereIsAndSaysSo() throws {
        let dir = TemporaryDirectory()
        var limits = CaptureLimits(duration: Rational(6))
        limits.lockMemory = false
        let session = try CaptureSession(
            source: try SyntheticSource(spec: "synthetic:fps=100,size=320x180,format=yuv420p"),
            settings: RecordingSettings(output: dir.file("early.mp4")), limits: limits,
            trigger: TriggerSettings(kind: .signal, pre: Rational(1), post: Rational(1, 10)))
        kill(getpid(), SIGUSR1)
        let r = try session.run()
        let s = try #require(r.shots?.first)
        #expect(s.preFrames < 100 && s.preFramesAsked == 100 && s.postFrames == 10 && !s.complete)
        #expect(s.warning?.contains("\(s.preFrames) of 100 frames before the trigger frame") == true, "\(s.warning ?? "no warning")")
        let ix = try Prober.probe(path: dir.file("early.mp4"), frames: true).frames?.compactMap(\.calibrationIndex) ?? []
        #expect(ix.first == 0 && ix == Array(0...(s.preFrames + 10)), "\(ix)")
    }

    /// A shot triggered by SIGUSR1 half a second after the session is armed (process-directed:
    /// GCD's threads block signals).
    func signalShot(_ spec: String, pre: Rational, post: Rational, _ dir: TemporaryDirectory, name: String) throws -> CaptureReport {
        try shots(spec, TriggerSettings(kind: .signal, pre: pre, post: post), dir, name: name) {
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { kill(getpid(), SIGUSR1) }
        }
    }

    /// A thread's nice value from /proc (field 19 of its stat line, after the name in parentheses).
    static func nice(task: String) -> Int? {
        guard let stat = try? String(contentsOfFile: task == "self" ? "/proc/thread-self/stat" : "/proc/self/task/\(task)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 16 ? Int(fields[16]) : nil
    }

    /// The trigger thread and a triggered capture's shot saver run at the caller's priority, not at
    /// the continuous writer's nice +10: a sound trigger under two CPU hogs once waited 22 s behind a
    /// saver so starved that its pinned shot kept the camera's frames out of the ring. The ring of a
    /// small camera's shots has room for seconds, not a quarter of one.
    @Test func triggersAndShotSaversAreNotLowered() throws {
        let dir = TemporaryDirectory()
        var limits = CaptureLimits(duration: Rational(6))
        limits.lockMemory = false
        limits.realtime = true
        let caller = try #require(Self.nice(task: "self"))
        final class Seen: @unchecked Sendable {
            let lock = NSLock()
            var value: Int?
            func set(_ v: Int?) {
                lock.lock()
                value = v
                lock.unlock()
            }
            func get() -> Int? {
                lock.lock()
                defer { lock.unlock() }
                return value
            }
        }
        let seen = Seen()
        let onArmed: @Sendable () -> Void = {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
            for t in tasks where (try? String(contentsOfFile: "/proc/self/task/\(t)/comm", encoding: .utf8))?.hasPrefix("slomo-trigger") == true {
                seen.set(TriggerCaptureTests.nice(task: t))
            }
            kill(getpid(), SIGUSR1)
        }
        let session = try CaptureSession(
            source: try SyntheticSource(spec: "synthetic:fps=100,size=320x180,format=yuv420p"),
            settings: RecordingSettings(output: dir.file("n.mp4")), limits: limits,
            trigger: TriggerSettings(kind: .signal, pre: Rational(1, 10), post: Rational(1, 10)),
            hooks: CaptureHooks(onArmed: onArmed))
        #expect(session.ringPlan.slots >= (64 << 20) / (320 * 180 * 3 / 2), "\(session.ringPlan.slots) slots")
        let r = try session.run()
        #expect(seen.get() == caller, "the trigger thread's nice \(String(describing: seen.get())), the caller's \(caller)")
        #expect(r.writerThreads.hasPrefix("normal"), "\(r.writerThreads)")
        #expect(r.shots?.count == 1)
    }

    @Test func signalTriggerSelectsTheFirstFrameAtOrAfterTheEvent() throws {
        let dir = TemporaryDirectory()
        let r = try signalShot("synthetic:fps=100,size=320x180,format=yuv420p", pre: Rational(1, 5), post: Rational(1, 10), dir, name: "s.mp4")
        let s = try #require(r.shots?.first)
        #expect(s.preFrames == 20 && s.postFrames == 10 && s.complete && s.framesWritten == 31)
        // the trigger frame's kernel time is at or after the event, by less than one frame period
        #expect(s.triggerFrameTime >= s.triggerTime && s.triggerFrameTime - s.triggerTime < Rational(1, 100))
        let ix = try Prober.probe(path: dir.file("s.mp4"), frames: true).frames?.compactMap(\.calibrationIndex) ?? []
        #expect(ix.count == 31 && zip(ix, ix.dropFirst()).allSatisfy { $1 == $0 + 1 })  // contiguous
        #expect(ix[20] == Int(s.triggerSequence))
    }

    /// An H.264 camera (an IDR every 10 frames, P-frames between): the shot starts at the keyframe
    /// before its first pre-trigger frame, so every saved frame decodes; the frames before the
    /// pre-trigger window are reported as lead-in and the trigger frame's position counts them.
    @Test func h264ShotsStartAtTheKeyframeTheirFirstFrameNeeds() throws {
        let dir = TemporaryDirectory()
        let r = try signalShot("synthetic:fps=100,size=320x180,format=h264,gop=10", pre: Rational(3, 20), post: Rational(1, 10), dir, name: "h.mkv")
        let s = try #require(r.shots?.first)
        let lead = try #require(s.leadInFrames)
        #expect(s.preFrames == 15 && s.postFrames == 10 && s.complete && (0...9).contains(lead))
        #expect(s.triggerFrame == lead + 15 && s.framesWritten == Int64(lead + 26) && s.warning == nil)
        let p = try Prober.probe(path: dir.file("h.mkv"), frames: true)
        let ix = p.frames?.compactMap(\.calibrationIndex) ?? []
        // every frame decodes (none lost before the first keyframe), contiguous, the first one a keyframe
        #expect(ix.count == lead + 26 && zip(ix, ix.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(ix.count) \(lead)")
        #expect(ix.first.map { $0 % 10 == 0 } == true && ix[s.triggerFrame] == Int(s.triggerSequence))
        #expect(p.container.metadata.first { $0.key.lowercased() == "slomo_lead_in_frames" }?.value == String(lead))
    }

    @Test func ringTooLargeForMemoryIsRefusedUpFront() throws {
        let dir = TemporaryDirectory()
        let t = TriggerSettings(kind: .stdin, pre: Rational(3000), post: .zero)
        do {
            _ = try CaptureSession(
                source: try SyntheticSource(spec: "synthetic:fps=240,size=1280x720,format=yuyv"),
                settings: RecordingSettings(output: dir.file("x.mp4")), limits: CaptureLimits(), trigger: t)
            Issue.record("no error")
        } catch let e as CaptureError {
            guard case .ringTooLarge = e else {
                Issue.record("\(e)")
                return
            }
        }
        #expect(dir.entries.isEmpty)
    }

    /// Two cameras on one event (`MultiCapture`): one SIGUSR1 reaches both sessions with the same
    /// stamp, each keeps the frames around it, and the skew is their timestamps'.
    @Test func oneSignalTriggersBothCamerasAtTheSameInstant() throws {
        let dir = TemporaryDirectory()
        let t = TriggerSettings(kind: .signal, pre: Rational(1, 5), post: Rational(1, 10))
        var limits = CaptureLimits(duration: Rational(6))
        limits.lockMemory = false
        let armed = Counter()
        let hooks = CaptureHooks(onArmed: {
            if armed.increment() == 2 { DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { kill(getpid(), SIGUSR1) } }
        })
        let sessions = try (1...2).map { i in
            try CaptureSession(
                source: try SyntheticSource(spec: "synthetic:fps=100,size=320x180,format=yuv420p"),
                settings: RecordingSettings(output: dir.file("cam\(i).mp4")), limits: limits, trigger: t, hooks: hooks)
        }
        try MultiCapture.checkRates(sessions)
        let r = try MultiCapture.run(sessions, trigger: t)
        let shots = r.cameras.compactMap { $0.shots?.first }
        #expect(shots.count == 2 && shots[0].triggerTime == shots[1].triggerTime)
        #expect(shots.allSatisfy { $0.preFrames == 20 && $0.postFrames == 10 && $0.complete })
        // each trigger frame is the first at or after the one event: within a period of each other
        #expect((r.triggerFrameSpreadMs?.first ?? 99) < 10, "\(r.triggerFrameSpreadMs ?? [])")
        let k = try #require(r.skew.first)
        #expect(k.frames > 30 && k.maxMs <= 5, "\(k)")  // nearest frames of two 100 fps cameras
        for i in 1...2 { #expect(FileManager.default.fileExists(atPath: dir.file("cam\(i).mp4"))) }
    }
}
