import Foundation
import SlomoCore
import Synchronization

/// When a capture stops, and how much memory its ring may take.
public struct CaptureLimits: Sendable {
    /// Stop before the first frame at or after this much time from the first frame.
    public var duration: Rational?
    public var frames: Int64?
    /// Ring slots (frames); nil: sized from the rate (continuous: 2 s or 64 MiB within 1 GiB;
    /// triggered: the shot plus a quarter second of headroom).
    public var ringFrames: Int?
    /// Ring size in bytes (instead of `ringFrames`).
    public var ringMemory: Int64?
    /// Lock the ring in RAM (`mlock`).
    public var lockMemory = true
    /// Run the capture thread at real-time priority (SCHED_FIFO, else a raised nice value).
    public var realtime = true
    public init(duration: Rational? = nil, frames: Int64? = nil) { self.duration = duration; self.frames = frames }
}

/// What fires a pre/post-trigger shot.
public enum TriggerKind: Sendable, Equatable {
    /// A line `trigger` on standard input (`quit` ends the capture).
    case stdin
    /// SIGUSR1.
    case signal
    /// The image trigger: mean absolute brightness difference to the previous frame above this
    /// threshold (8-bit units, 0 < threshold ≤ 255).
    case motion(threshold: Rational)

    public var name: String {
        switch self { case .stdin: "stdin"; case .signal: "signal"; case .motion: "motion" }
    }
}

/// Pre/post-trigger recording: the ring holds the last `pre` seconds; a trigger saves them and the
/// next `post` seconds as one shot.
public struct TriggerSettings: Sendable {
    public var kind: TriggerKind
    public var pre: Rational
    public var post: Rational
    /// Shots before the capture ends (0: until stopped).
    public var shots: Int
    /// The image trigger's region (nil: the whole frame).
    public var region: PixelRegion?
    public init(kind: TriggerKind, pre: Rational, post: Rational, shots: Int = 1) {
        self.kind = kind; self.pre = pre; self.post = post; self.shots = shots
    }

    /// Shot `n`'s file: `%d`, `%0Nd` in `template` become the shot number.
    public static func path(_ template: String, shot: Int) -> String {
        guard let r = template.range(of: shotNumber, options: .regularExpression) else { return template }
        let spec = template[r]
        let width = Int(spec.dropFirst().dropLast()) ?? 0
        var n = String(shot)
        if spec.hasPrefix("%0"), n.count < width { n = String(repeating: "0", count: width - n.count) + n }
        return template.replacingCharacters(in: r, with: n)
    }

    public static func hasShotNumber(_ template: String) -> Bool { template.range(of: shotNumber, options: .regularExpression) != nil }

    /// `%d` or `%0Nd` in an output name.
    static let shotNumber = #"%0?[0-9]*d"#
}

/// One saved shot, as the report and the recording's metadata tell it.
public struct ShotReport: Codable, Sendable {
    public var shot: Int
    public var output: String
    public var trigger: String
    /// The trigger frame's position in the file (= `leadInFrames` + `preFrames`): frame 0 of the shot's own time.
    public var triggerFrame: Int
    /// H.264/HEVC cameras: frames saved before the first pre-trigger frame, from the keyframe it
    /// needs to decode (0 when it is a keyframe); nil for raw and MJPEG cameras, whose every frame decodes.
    public var leadInFrames: Int?
    public var preFrames: Int
    public var postFrames: Int
    public var preFramesAsked: Int
    public var postFramesAsked: Int
    public var framesWritten: Int64
    public var triggerSequence: UInt32
    public var firstSequence: UInt32
    public var lastSequence: UInt32
    /// Sequence gaps inside the shot (frames the driver dropped).
    public var sequenceGaps: Int64
    /// When the trigger happened (CLOCK_MONOTONIC; for the image trigger, the frame's time).
    public var triggerTime: Rational
    public var triggerWallTime: String
    /// The trigger frame's kernel timestamp.
    public var triggerFrameTime: Rational
    /// From the trigger event to the frame it selects (stdin/signal: the frame's timestamp minus the
    /// event time; motion: from the frame's timestamp to the moment the detector decided).
    public var latency: Rational
    public var latencyMs: Double
    public var motionScore: Double?
    /// False when the capture ended before all post-trigger frames arrived, or the ring no longer
    /// held all pre-trigger frames.
    public var complete: Bool
    public var bytesWritten: Int64
    /// Something the shot lacks, in one sentence (no keyframe to decode its first frames from).
    public var warning: String?
}

public struct RingReport: Codable, Sendable {
    public var slots: Int
    public var slotBytes: Int
    public var bytes: Int64
    public var mebibytes: Double
    public var locked: Bool
    public var note: String?
}

public struct CaptureReport: Codable, Sendable {
    public var output: String
    public var device: String
    public var format: CaptureFormat
    public var nominalFrameRate: Rational?
    public var achievedFrameRate: Rational?
    public var achievedFps: Double?
    public var framesCaptured: Int64
    public var framesWritten: Int64
    public var droppedByDriver: Int64
    /// Frames the ring had no free slot for (a writer or shot saver too far behind).
    public var droppedBySlomo: Int64
    public var repeatedSequence: Int64
    public var driverErrors: Int64
    public var shortFrames: Int64
    public var duration: Rational
    public var durationSeconds: Double
    public var intervals: CaptureStats.Intervals?
    /// duration, frames, signal, disconnected, driverError (a buffer call failed mid-stream), writeError, shots, quit.
    public var stopReason: String
    public var message: String?
    public var bytesWritten: Int64
    /// The buffers' clock as the driver flags it.
    public var timestampClock: String
    /// What the driver changed of the request (asked 35 fps, got 40).
    public var driverAdjustments: [String]
    public var ring: RingReport
    /// The capture thread's scheduling (`SCHED_FIFO 50`, `nice -10`, or `normal` with the reason).
    public var captureThread: String
    /// The writer's and encoder's scheduling (`nice 10`: below the camera's threads).
    public var writerThreads: String
    /// The most frames the writer was behind the camera, and how long it took to catch up after
    /// the camera stopped.
    public var writerBacklogMax: Int64
    public var catchUpSeconds: Double
    public var warnings: [String]
    /// Pre/post-trigger captures: the trigger, and each shot saved.
    public var trigger: String?
    public var shots: [ShotReport]?
    /// The image trigger: frames evaluated, frames it could not read in time, CPU per frame.
    public var motionFramesEvaluated: Int64?
    public var motionFramesSkipped: Int64?
    public var motionCpuMicrosPerFrame: Double?
    /// `--audio`: the sound card, its clock against the camera's and what was written.
    public var audio: AudioReport?
    /// `--preview`: where the live picture went and how many were sent.
    public var preview: PreviewReport?
    /// `--shutter`, `--gain`, `--control`…: each control as written, read back, and read again at the end.
    public var controls: [AppliedControl]?
    /// `fdatasync`s of the recording (each second and at the end; absent with `--no-sync`).
    public var fileSyncs: FileSyncs?
}

/// SIGINT/SIGTERM as a flag: a capture finishes its file cleanly instead of dying.
/// The flag is an atomic (ThreadSanitizer found the plain `sig_atomic_t` racing with the capture
/// thread's read), made before the handlers exist, and the handler keeps `errno` as it found it:
/// it may interrupt any call on any thread.
public enum StopFlag {
    static let raised = Atomic<Int32>(0)
    public static var isRaised: Bool { raised.load(ordering: .acquiring) != 0 }
    public static func install() {
        _ = isRaised
        let handler: @convention(c) (Int32) -> Void = { _ in
            let saved = errno
            StopFlag.raised.store(1, ordering: .releasing)
            errno = saved
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }
}

/// Capture: a capture thread (real-time priority where allowed) takes each frame from the source,
/// copies it into the preallocated RAM ring and gives the buffer back at once; it never waits on
/// loading, encoding, writing or a reader. The calling thread writes from the ring: the whole
/// stream (continuous), or the shots triggers select (pre/post-trigger).
public final class CaptureSession: @unchecked Sendable {
    // Safe: `endReason`/`endMessage`/`endRequested`/`cameraStoppedAt`/`threadNote` are touched under
    // `lock`; `stats` only by the capture thread until it is joined (`captureDone`); `shotsTriggered`,
    // `armedSaid` and the `motion*` counters only by the trigger thread, and read by the caller after
    // `triggersDone` (under `shotCond`); `pendingShots`/`triggersDone` under `shotCond`; the ring
    // synchronises itself.
    public let source: CaptureSource
    let settings: RecordingSettings
    let limits: CaptureLimits
    let trigger: TriggerSettings?
    /// The sound card (`--audio`), opened with the session, started before the camera.
    let audioCapture: AudioCapture?
    /// The live preview (`--preview`), started with the camera, never holding a frame.
    let previewWriter: PreviewWriter?
    public let ringPlan: RingPlan
    private let lock = NSLock()
    private var endRequested = false
    private var endReason = "signal"
    private var endMessage: String?
    private var stats = CaptureStats()
    private var threadNote = "normal"
    private var encoderNice = "normal"
    private var signalEvents: TriggerEvents?
    /// Several cameras, one event: this camera's share of the events (set before `run`).
    var sharedEvents: TriggerEventSource?
    /// When the capture thread stopped the camera (the writer's catch-up is measured from it).
    private var cameraStoppedAt: Rational?
    private var startError: Error?

    /// Plans the ring and refuses one that cannot fit in the memory available.
    public init(source: CaptureSource, settings: RecordingSettings, limits: CaptureLimits, trigger: TriggerSettings? = nil,
                audio: AudioSettings? = nil, preview: PreviewSettings? = nil) throws {
        self.source = source
        var settings = settings
        let controls = source.cameraControls()
        if !controls.isEmpty { settings.metadata["slomo_controls"] = AppliedControl.metadataText(controls) }
        self.settings = settings
        self.limits = limits
        self.trigger = trigger
        _ = try audio?.encoder(for: settings.output)     // a codec the container cannot hold: refused before anything opens
        // the card keeps a minute of sound (more when the ring holds more): a shot's or a lagging
        // writer's start is still there when it is read
        let ringSeconds = source.format.frameDuration.map { (Rational(Int64(limits.ringFrames ?? 0)) * $0).ceiling } ?? 0
        previewWriter = try preview.map { try PreviewWriter($0, format: source.format) }
        audioCapture = try audio.map { try AudioCapture($0, seconds: Int(Swift.max(60, 2 * ringSeconds + 10))) }
        let fps = source.format.frameDuration.flatMap { try? $0.reciprocal() } ?? Rational(30)
        var plan = RingPlan.plan(format: source.format, fps: fps, pre: trigger?.pre, post: trigger?.post, memory: limits.ringMemory)
        if let n = limits.ringFrames { plan = RingPlan(slots: max(n, 2), slotBytes: plan.slotBytes, bytes: Int64(max(n, 2)) * Int64(plan.slotBytes),
                                                       preFrames: plan.preFrames, postFrames: plan.postFrames, leadInFrames: plan.leadInFrames) }
        if let t = trigger, plan.slots < plan.preFrames + 8 {
            throw CaptureError.ringTooSmall(slots: plan.slots, preTrigger: t.pre, preFrames: plan.preFrames)
        }
        if let available = CaptureSession.availableMemory(), plan.bytes > available - (256 << 20) {
            throw CaptureError.ringTooLarge(source: source.name, trigger: trigger.map { ($0.pre, $0.post) },
                                            mode: "\(source.format.fourcc) \(source.format.width)x\(source.format.height) \(Seconds(fps)) fps",
                                            plan: plan, availableBytes: available)
        }
        ringPlan = plan
        // SIGUSR1's handler goes in now: a signal sent before the camera streams is stamped and
        // kept, never the default action (which ends the process)
        if trigger?.kind == .signal { signalEvents = TriggerEvents(kind: .signal) }
        if let t = trigger, case .motion = t.kind {
            guard LumaLayout.of(fourcc: source.format.fourcc) != nil else {
                throw CaptureError.motionNeedsRawFrames(source: source.name, fourcc: source.format.fourcc)
            }
            if let r = t.region, !r.fits(width: source.format.width, height: source.format.height) {
                throw CaptureError.regionOutsideFrame(region: r, width: source.format.width, height: source.format.height)
            }
        }
    }

    /// MemAvailable from /proc/meminfo, in bytes.
    static func availableMemory() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            if let kb = Int64(line.split(separator: " ")[1]) { return kb * 1024 }
        }
        return nil
    }

    /// Called once (from a capture thread) when a triggered capture is armed: the ring holds the
    /// whole pre-trigger window. Scripts wait for it before they trigger.
    public var onArmed: (@Sendable () -> Void)?
    private var armedSaid = false

    private func sayArmed(_ ring: FrameRing, preCount: Int64) {
        guard !armedSaid, ring.count >= Swift.max(preCount, 1) else { return }
        armedSaid = true
        onArmed?()
    }

    /// The statistics of the last run (intervals for the plot).
    public private(set) var lastStats = CaptureStats()

    public func run(progress: ((Int64) -> Void)? = nil) throws -> CaptureReport {
        let ring = FrameRing(capacity: ringPlan.slots, slotBytes: ringPlan.slotBytes, lockInMemory: limits.lockMemory)
        // The writer (this thread) and the encoder threads it starts inherit a lower priority than
        // the camera's: on a loaded machine the driver's own thread and the capture thread get the
        // CPU first, and the encoder catches up from the ring (measured on vivid: Docs/Capture.md).
        if limits.realtime { encoderNice = CaptureSession.lowerPriority() }
        // everything costly before the camera streams: FFmpeg loaded, encoder open, buffers mapped
        let firstOutput = trigger.map { _ in TriggerSettings.path(settings.output, shot: 1) } ?? settings.output
        var firstSettings = settings
        firstSettings.output = firstOutput
        let firstWriter = try RecordingWriter(settings: firstSettings, format: source.format, sourceName: source.name)
        firstWriter.audio = audioCapture
        try firstWriter.prepare()
        try source.prepare()
        // the sound first: its clock has settled by the time the first frame comes
        try audioCapture?.start()
        defer { audioCapture?.stop() }
        let captureDone = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            captureLoop(ring)
            captureDone.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        previewWriter?.start(ring: ring)
        // also when the camera never streams (no report is made then); a second stop only returns the report
        defer { _ = previewWriter?.stop() }

        var report: CaptureReport
        if let trigger {
            report = try runTriggered(trigger, ring: ring, firstWriter: firstWriter, captureDone: captureDone)
        } else {
            report = try runContinuous(ring: ring, writer: firstWriter, captureDone: captureDone, progress: progress)
        }
        if let e = startError { throw e }
        return report
    }

    // MARK: the capture thread

    /// The capture thread's mending of clock jumps (read for the report once the camera stopped).
    private var continuity = TimestampContinuity(frameDuration: nil)

    private func captureLoop(_ ring: FrameRing) {
        defer { ring.close() }
        let note = limits.realtime && source.isPaced ? CaptureSession.raisePriority()
            : "normal (\(source.isPaced ? "not asked" : "unpaced source"))"
        lock.lock(); threadNote = note; lock.unlock()
        do { try source.start() } catch {
            lock.lock(); startError = error; endRequested = true; endReason = "error"; lock.unlock()
            return
        }
        let multiPlane = source.format.planes.count > 1 ? try? RecordingWriter.layout(of: source.format) : nil
        // the interval list grows on this thread: room for a minute (or the asked length) up front
        let fps = source.format.frameDuration.flatMap { try? $0.reciprocal() } ?? Rational(30)
        stats.intervalsMicros.reserveCapacity(Swift.min(1_000_000, Swift.max(16, Int(limits.frames ?? (limits.duration.map { ($0 * fps).ceiling } ?? (fps * Rational(60)).ceiling)))))
        var firstTime: Rational?
        var stop: (String, String?)?
        continuity = TimestampContinuity(frameDuration: source.format.frameDuration)
        while stop == nil {
            if StopFlag.isRaised { stop = ("signal", nil); break }
            lock.lock(); let ended = endRequested; lock.unlock()
            if ended { break }
            let end: CaptureEnd?
            do {
                end = try source.next { f in
                    let time = continuity.mend(f.timestamp, sequence: f.sequence)
                    if firstTime == nil { firstTime = time }
                    if let d = limits.duration, time - firstTime! >= d { stop = ("duration", nil); return }
                    stats.record(sequence: f.sequence, timestamp: time)
                    if let n = limits.frames, stats.framesCaptured >= n { stop = ("frames", nil) }
                    if f.driverError { stats.driverErrors += 1; return }
                    if f.byteCount == 0 { stats.shortFrames += 1; return }
                    // multi-planar: every plane whole, each where the picture's layout puts it
                    if let l = multiPlane {
                        guard f.planes.count >= l.offsets.count,
                              zip(f.planes, l.planeSizes).allSatisfy({ $0.count >= $1 }) else { stats.shortFrames += 1; return }
                    }
                    guard let slot = ring.reserve() else { stats.droppedBySlomo += 1; return }
                    var offset = 0
                    if let l = multiPlane {
                        for k in 0..<l.offsets.count {
                            (slot.pointer + l.offsets[k]).copyMemory(from: f.planes[k].baseAddress!, byteCount: l.planeSizes[k])
                        }
                        offset = l.size
                    } else {
                        let p = f.planes[0]
                        offset = Swift.min(p.count, ring.slotBytes)
                        if offset > 0 { slot.pointer.copyMemory(from: p.baseAddress!, byteCount: offset) }
                    }
                    ring.publish(FrameRing.Meta(timestamp: time, sequence: f.sequence, bytes: Swift.min(offset, ring.slotBytes)))
                }
            } catch {
                stop = ("driverError", "\(error)")
                break
            }
            switch end {
            case nil: break
            case .finished?: stop = ("frames", nil)
            case .disconnected(let why)?: stop = ("disconnected", why)
            }
        }
        source.stop()
        lock.lock(); cameraStoppedAt = CaptureClock.now(); lock.unlock()
        if let (reason, message) = stop { requestEnd(reason, message) }
    }

    private func requestEnd(_ reason: String, _ message: String? = nil) {
        lock.lock()
        if !endRequested { endReason = reason; endMessage = message }
        endRequested = true
        lock.unlock()
    }

    /// SCHED_FIFO for the calling thread where allowed (root, CAP_SYS_NICE, an rtprio limit), else a
    /// raised nice value (Linux applies it to this thread only), else nothing; says which.
    static func raisePriority() -> String {
        var param = sched_param()
        param.sched_priority = Swift.min(50, sched_get_priority_max(Int32(SCHED_FIFO)))
        let rc = pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &param)
        if rc == 0 { return "SCHED_FIFO \(param.sched_priority)" }
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, -10) == 0 { return "nice -10 (SCHED_FIFO refused: \(String(cString: strerror(rc))))" }
        return "normal (SCHED_FIFO and nice refused: \(String(cString: strerror(rc))); run as root or grant CAP_SYS_NICE)"
    }

    /// nice +10 for the calling thread (Linux: this thread only; threads it starts inherit it).
    static func lowerPriority() -> String {
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10) == 0 ? "nice 10" : "normal"
    }

    // MARK: continuous recording

    private func runContinuous(ring: FrameRing, writer: RecordingWriter, captureDone: DispatchSemaphore,
                               progress: ((Int64) -> Void)?) throws -> CaptureReport {
        let pin = ring.pin(from: 0)
        var k = pin.start
        var writeError: Error?
        var backlog: Int64 = 0
        var short: Int64 = 0
        while true {
            guard let arrived = ring.wait(for: k, seconds: 0.2) else { continue }
            guard arrived else { break }
            let m = ring.meta(k)
            if k == pin.start { stampClock(writer) }
            do {
                if try !writer.write(UnsafeRawBufferPointer(start: ring.pointer(k), count: m.bytes), timestamp: m.timestamp) { short += 1 }
            } catch {
                writeError = error
                requestEnd("writeError", "\(error)")
                break
            }
            k += 1
            let behind = ring.advance(pin.id, to: k) - k
            if behind > backlog { backlog = behind }
            progress?(writer.framesWritten)
        }
        ring.unpin(pin.id)
        captureDone.wait()
        if let e = startError { throw e }      // the camera never streamed: no recording, no report
        let catchUp = CaptureClock.now() - (cameraStoppedAt ?? CaptureClock.now())
        var finishError: Error?
        do { try writer.finish() } catch { finishError = error }
        var report = makeReport(output: settings.output, framesWritten: writer.framesWritten, bytesWritten: writer.bytesWritten, ring: ring,
                                backlog: backlog, catchUp: catchUp.isNegative ? .zero : catchUp, shortFrames: short)
        audioWritten(writer)
        report.audio = audioReport()
        syncReport(&report)
        if writeError != nil { report.message = report.message ?? writeError.map { "\($0)" } }
        writeSidecar(report, for: settings.output)
        if let e = writeError ?? finishError { throw CaptureSession.stopped(settings.output, frames: writer.framesWritten, e, report: reportNote) }
        return report
    }

    static func stopped(_ output: String, frames: Int64, _ e: Error, report: String? = nil) -> CaptureError {
        let cause: Wording = "\(e)"
        let text = cause.description
        let full = text.contains("No space") || text.contains("ENOSPC")
        return .stopped(output: output, frames: frames,
                        cause: full ? "no space left on the device (ENOSPC)" : cause.dropping(prefix: "\(output): "),   // named once, at the start
                        report: report)
    }

    // MARK: pre/post-trigger

    private struct Shot {
        var number: Int
        var pin: Int
        var start: Int64
        var triggerIndex: Int64
        var end: Int64            // last frame index wanted
        var eventTime: Rational
        var wallTime: Rational
        var latency: Rational?
        var score: Double?
        /// Frames before `start + leadIn` kept only so the first pre-trigger frame decodes (H.264/HEVC).
        var leadIn: Int64 = 0
        var warning: String?
    }

    /// Compressed streams with inter frames: a shot must begin at a keyframe.
    private var keyframed: Bool { ["H264", "HEVC"].contains(source.format.fourcc) }

    /// Shots triggered and not yet saved, and whether triggers are done.
    private let shotCond = NSCondition()
    private var pendingShots: [Shot] = []
    private var triggersDone = false
    private var shotsTriggered = 0
    /// Shots whose frames have all been read from the ring (under `shotCond`).
    private var shotsRead = 0
    private var motionEvaluated: Int64 = 0
    private var motionSkipped: Int64 = 0
    private var motionCPU: Double = 0

    private func runTriggered(_ t: TriggerSettings, ring: FrameRing, firstWriter: RecordingWriter,
                              captureDone: DispatchSemaphore) throws -> CaptureReport {
        let preCount = Int64(ringPlan.preFrames), postCount = Int64(ringPlan.postFrames)
        let triggerThread = Thread { [self] in
            switch t.kind {
            case .stdin, .signal: eventTriggers(t, ring: ring, preCount: preCount, postCount: postCount)
            case .motion(let threshold): motionTrigger(t, threshold: threshold, ring: ring, preCount: preCount, postCount: postCount)
            }
            shotCond.lock(); triggersDone = true; shotCond.broadcast(); shotCond.unlock()
        }
        triggerThread.start()

        var shots: [ShotReport] = []
        var written: Int64 = 0, bytes: Int64 = 0
        var nextWriter: RecordingWriter? = firstWriter
        var failure: Error?
        while true {
            shotCond.lock()
            while pendingShots.isEmpty && !triggersDone { shotCond.wait() }
            if pendingShots.isEmpty { shotCond.unlock(); break }
            let shot = pendingShots.removeFirst()
            shotCond.unlock()
            do {
                let r = try save(shot, trigger: t, ring: ring, preCount: preCount, postCount: postCount, writer: &nextWriter)
                shots.append(r)
                written += r.framesWritten; bytes += r.bytesWritten
            } catch {
                failure = error
                shotRead()
                ring.unpin(shot.pin)
                requestEnd("writeError", "\(error)")
                break
            }
            if t.shots > 0 && shots.count >= t.shots { requestEnd("shots"); break }
            // armed again: the next shot's encoder is ready before its trigger
            if nextWriter == nil {
                var s = settings
                s.output = TriggerSettings.path(settings.output, shot: shots.count + 1)
                if let w = try? RecordingWriter(settings: s, format: source.format, sourceName: source.name) { w.audio = audioCapture; try? w.prepare(); nextWriter = w }
            }
        }
        captureDone.wait()
        shotCond.lock()
        while !triggersDone { shotCond.wait() }
        if let e = startError { shotCond.unlock(); throw e }
        for s in pendingShots { ring.unpin(s.pin) }
        pendingShots.removeAll()
        shotCond.unlock()
        var report = makeReport(output: settings.output, framesWritten: written, bytesWritten: bytes, ring: ring, backlog: 0, catchUp: .zero, shortFrames: 0)
        report.trigger = t.kind.name
        report.shots = shots
        report.audio = audioReport()
        syncReport(&report)
        if case .motion = t.kind {
            report.motionFramesEvaluated = motionEvaluated
            report.motionFramesSkipped = motionSkipped
            report.motionCpuMicrosPerFrame = motionEvaluated > 0 ? (motionCPU / Double(motionEvaluated) * 1e7).rounded() / 10 : nil
        }
        if shots.isEmpty { report.warnings.append("no trigger arrived: nothing was saved") }
        // each shot's file gets the whole capture's report beside it
        for shot in shots { writeSidecar(report, for: shot.output) }
        if let failure { throw CaptureSession.stopped(TriggerSettings.path(settings.output, shot: shots.count + 1), frames: 0, failure, report: reportNote) }
        return report
    }

    /// Saves one shot: its frames from the ring, in order, as they arrive.
    private func save(_ shot: Shot, trigger t: TriggerSettings, ring: FrameRing, preCount: Int64, postCount: Int64,
                      writer: inout RecordingWriter?) throws -> ShotReport {
        var s = settings
        s.output = TriggerSettings.path(settings.output, shot: shot.number)
        let pre = Int(shot.triggerIndex - shot.start - shot.leadIn)
        s.metadata["slomo_trigger_source"] = t.kind.name
        s.metadata["slomo_trigger_frame"] = String(pre + Int(shot.leadIn))
        if keyframed { s.metadata["slomo_lead_in_frames"] = String(shot.leadIn) }
        s.metadata["slomo_pre_frames"] = String(pre)
        s.metadata["slomo_post_frames_asked"] = String(postCount)
        s.metadata["slomo_trigger_time"] = shot.eventTime.description
        let wall = TriggerEvents.iso8601(shot.wallTime)
        s.metadata["slomo_trigger_wall_time"] = wall
        s.metadata["slomo_shot"] = String(shot.number)
        let w: RecordingWriter
        if let ready = writer, ready.settings.output == s.output { w = ready } else {
            w = try RecordingWriter(settings: s, format: source.format, sourceName: source.name)
            w.audio = audioCapture
            try w.prepare()
        }
        w.metadata = s.metadata
        writer = nil
        var k = shot.start
        var first: FrameRing.Meta?, last: FrameRing.Meta?, trig: FrameRing.Meta?
        var gaps: Int64 = 0
        var prev: UInt32?
        while k <= shot.end {
            guard ring.wait(for: k) else { break }
            let m = ring.meta(k)
            if first == nil { stampClock(w) }
            _ = try w.write(UnsafeRawBufferPointer(start: ring.pointer(k), count: m.bytes), timestamp: m.timestamp)
            if first == nil { first = m }
            if k == shot.triggerIndex { trig = m }
            if let p = prev, m.sequence &- p > 1 { gaps += Int64(m.sequence &- p) - 1 }
            prev = m.sequence
            last = m
            k += 1
            ring.advance(shot.pin, to: k)
        }
        ring.unpin(shot.pin)
        shotRead()
        try w.finish()
        audioWritten(w)
        let tm = trig ?? first ?? FrameRing.Meta()
        let latency = shot.latency ?? (tm.timestamp - shot.eventTime)
        let post = Int(Swift.max(0, k - 1 - shot.triggerIndex))
        return ShotReport(
            shot: shot.number, output: s.output, trigger: t.kind.name, triggerFrame: pre + Int(shot.leadIn),
            leadInFrames: keyframed ? Int(shot.leadIn) : nil, preFrames: pre, postFrames: post,
            preFramesAsked: Int(preCount), postFramesAsked: Int(postCount), framesWritten: w.framesWritten,
            triggerSequence: tm.sequence, firstSequence: first?.sequence ?? 0, lastSequence: last?.sequence ?? 0, sequenceGaps: gaps,
            triggerTime: shot.eventTime, triggerWallTime: wall, triggerFrameTime: tm.timestamp,
            latency: latency, latencyMs: (latency.doubleValue * 1e6).rounded() / 1e3, motionScore: shot.score,
            complete: pre == Int(preCount) && post == Int(postCount), bytesWritten: w.bytesWritten, warning: shot.warning)
    }

    /// Queues a shot whose trigger frame is `index` (pinned from `pin` on).
    private func enqueue(pin: (id: Int, start: Int64), index: Int64, preCount: Int64, postCount: Int64, event: Rational,
                         wall: Rational, latency: Rational?, score: Double?, ring: FrameRing) {
        var start = Swift.max(pin.start, index - preCount)
        var leadIn: Int64 = 0
        var warning: String?
        if keyframed {
            // back from the first pre-trigger frame to the keyframe it is predicted from
            var k = start
            let hevc = source.format.fourcc == "HEVC"
            func key(_ k: Int64) -> Bool { RecordingWriter.isLikelyKeyframe(UnsafeRawBufferPointer(start: ring.pointer(k), count: ring.meta(k).bytes), hevc: hevc) }
            var found = key(k)
            while k > pin.start && !found { k -= 1; found = key(k) }
            if found {
                leadIn = start - k
                start = k
            } else {
                warning = "no keyframe in the ring at or before the first pre-trigger frame: frames before the camera's next keyframe do not decode"
            }
        }
        ring.advance(pin.id, to: start)
        shotCond.lock()
        shotsTriggered += 1
        pendingShots.append(Shot(number: shotsTriggered, pin: pin.id, start: start, triggerIndex: index, end: index + postCount,
                                 eventTime: event, wallTime: wall, latency: latency, score: score, leadIn: leadIn, warning: warning))
        shotCond.broadcast()
        shotCond.unlock()
    }

    private func captureEnded() -> Bool { lock.lock(); defer { lock.unlock() }; return endRequested }

    /// stdin lines (`trigger`, `quit`) or SIGUSR1: each event selects the first frame whose kernel
    /// timestamp is at or after the event's CLOCK_MONOTONIC time.
    private func eventTriggers(_ t: TriggerSettings, ring: FrameRing, preCount: Int64, postCount: Int64) {
        let events: TriggerEventSource = sharedEvents ?? signalEvents ?? TriggerEvents(kind: t.kind)
        defer { events.close() }
        while !captureEnded() {
            if t.shots > 0 && shotsTriggered >= t.shots { return }
            sayArmed(ring, preCount: preCount)
            switch events.next(timeoutMilliseconds: 20) {
            case .none: continue
            case .quit:
                waitForPendingShots()
                requestEnd("quit")
                return
            case .trigger(let time, let wall):
                // H.264/HEVC: the lead-in room too, until the keyframe before the shot is found (never
                // so much that the camera has no free slot for the frames up to the trigger frame)
                let room = Int64(Swift.max(0, Swift.min(ringPlan.leadInFrames, ringPlan.slots - ringPlan.preFrames - ringPlan.postFrames - 17)))
                let pin = ring.pin(from: ring.count - preCount - 4 - room)
                guard let index = ring.firstFrame(from: pin.start, atOrAfter: time) else { ring.unpin(pin.id); return }
                enqueue(pin: pin, index: index, preCount: preCount, postCount: postCount, event: time, wall: wall,
                        latency: nil, score: nil, ring: ring)
            }
        }
    }

    /// Blocks until every triggered shot's frames, post-trigger ones included, are in (the camera
    /// must keep running until then), or the capture ended for another reason.
    private func waitForPendingShots() {
        shotCond.lock()
        while shotsRead < shotsTriggered && !captureEnded() { _ = shotCond.wait(until: Date(timeIntervalSinceNow: 0.05)) }
        shotCond.unlock()
    }

    /// The buffers' clock as the driver flags it, into the file's metadata (called once a frame is
    /// in the ring, so the source has read it).
    private func stampClock(_ w: RecordingWriter) {
        guard let c = source.timestampClock else { return }
        let parts = c.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        w.metadata["slomo_capture_clock"] = parts[0]
        if parts.count > 1 { w.metadata["slomo_timestamp_source"] = parts[1] }
    }

    private func shotRead() {
        shotCond.lock(); shotsRead += 1; shotCond.broadcast(); shotCond.unlock()
    }

    /// The image trigger on every frame, without pinning the ring (a frame overwritten before it
    /// was read is counted as skipped).
    private func motionTrigger(_ t: TriggerSettings, threshold: Rational, ring: FrameRing, preCount: Int64, postCount: Int64) {
        let f = source.format
        let layout = LumaLayout.of(fourcc: f.fourcc)!
        var detector = MotionDetector(region: t.region ?? PixelRegion(x: 0, y: 0, width: f.width, height: f.height),
                                      layout: layout, bytesPerLine: f.bytesPerLine > 0 ? f.bytesPerLine : f.width * layout.pixelStride,
                                      step: 2)
        var k: Int64 = 0
        // armed once the pre-trigger window is full (and never on a camera's first frames, which
        // often differ while it settles)
        var rearm: Int64 = Swift.max(preCount, 4)
        while true {
            if t.shots > 0 && shotsTriggered >= t.shots { return }
            guard let ok = ring.wait(for: k, seconds: 0.2) else { if captureEnded() { return }; continue }
            guard ok else { return }
            if !ring.isIntact(k) { let o = ring.oldest; motionSkipped += o - k; k = o; continue }
            let m = ring.meta(k)
            let c0 = CaptureSession.threadCPUTime()
            let s = detector.score(UnsafeRawBufferPointer(start: ring.pointer(k), count: m.bytes))
            motionCPU += CaptureSession.threadCPUTime() - c0
            guard ring.isIntact(k) else { motionSkipped += 1; k += 1; continue }
            motionEvaluated += 1
            if k >= rearm { sayArmed(ring, preCount: preCount) }
            if let s, k >= rearm, Rational(Int64(s.sum)) > threshold * Rational(Int64(s.samples)) {
                let decided = CaptureClock.now()
                let pin = ring.pin(from: k - preCount)
                enqueue(pin: pin, index: k, preCount: preCount, postCount: postCount, event: m.timestamp,
                        wall: TriggerEvents.wallClock(), latency: decided - m.timestamp,
                        score: (Double(s.sum) / Double(s.samples) * 100).rounded() / 100, ring: ring)
                rearm = k + postCount + 1
            }
            k += 1
        }
    }

    static func threadCPUTime() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    // MARK: report

    private func makeReport(output: String, framesWritten: Int64, bytesWritten: Int64, ring: FrameRing, backlog: Int64,
                            catchUp: Rational, shortFrames: Int64) -> CaptureReport {
        lock.lock(); var s = stats; let reason = endReason; let message = endMessage; let note = threadNote; lock.unlock()
        s.shortFrames += shortFrames
        lastStats = s
        let nominal = source.format.frameDuration.flatMap { try? $0.reciprocal() }
        var warnings: [String] = []
        if let nominal, let achieved = s.achievedFrameRate, achieved * Rational(100) < nominal * Rational(99) {
            let cause = s.droppedByDriver > 0 ? "the driver dropped \(s.droppedByDriver) frames (sequence gaps: no buffer was queued, or the sensor could not keep up)"
                : s.droppedBySlomo > 0 ? "slomo's ring was full \(s.droppedBySlomo) times (the writer fell behind: a faster --codec or preset, or a larger --ring-memory)"
                : "no frame was lost: the camera itself delivered fewer (exposure longer than the frame period, or its clock)"
            warnings.append("achieved \(Seconds(achieved)) fps is more than 1 % below the mode's \(Seconds(nominal)) fps: \(cause)")
        }
        warnings += continuity.warnings
        if s.driverErrors > 0 { warnings.append("\(s.driverErrors) buffers flagged damaged by the driver (V4L2_BUF_FLAG_ERROR) were not stored") }
        if s.shortFrames > 0 { warnings.append("\(s.shortFrames) frames shorter than their format (bytesused) were not stored") }
        if let clock = source.timestampClock, !clock.hasPrefix("CLOCK_MONOTONIC") {
            warnings.append("timestamps are \(clock), not CLOCK_MONOTONIC: times in the file are the driver's")
        }
        var report = CaptureReport(
            output: output, device: source.name, format: source.format, nominalFrameRate: nominal,
            achievedFrameRate: s.achievedFrameRate, achievedFps: s.achievedFrameRate.map { ($0.doubleValue * 1000).rounded() / 1000 },
            framesCaptured: s.framesCaptured, framesWritten: framesWritten, droppedByDriver: s.droppedByDriver,
            droppedBySlomo: s.droppedBySlomo, repeatedSequence: s.repeatedSequence, driverErrors: s.driverErrors,
            shortFrames: s.shortFrames, duration: s.duration,
            durationSeconds: (s.duration.doubleValue * 1e6).rounded() / 1e6, intervals: s.intervals,
            stopReason: reason, message: message, bytesWritten: bytesWritten, timestampClock: source.timestampClock ?? "unknown (no frame)",
            driverAdjustments: source.adjustments,
            ring: RingReport(slots: ringPlan.slots, slotBytes: ringPlan.slotBytes, bytes: ringPlan.bytes,
                             mebibytes: ringPlan.mebibytes, locked: ring.locked, note: ring.lockNote),
            captureThread: note, writerThreads: encoderNice, writerBacklogMax: backlog, catchUpSeconds: (catchUp.doubleValue * 1000).rounded() / 1000, warnings: warnings)
        let controls = source.cameraControls()
        if !controls.isEmpty {
            report.controls = controls
            for c in controls { if let w = c.driftWarning { report.warnings.append(w) } }
        }
        // the camera has stopped: so does the preview (its stream is finished)
        report.preview = previewWriter?.stop()
        if let e = report.preview?.error { report.warnings.append("the preview stopped: \(e) (the recording went on)") }
        return report
    }

    private var audioFrames: Int64 = 0, audioCorrection: Int64 = 0
    private var audioCodec = "pcm_s16le"

    /// Counts a finished recording's sound for the report.
    private var syncs = FileSyncs()

    /// The recordings' `fdatasync`s for the report (nil with `--no-sync`); a refusal is a warning.
    private func syncReport(_ report: inout CaptureReport) {
        guard settings.sync else { return }
        report.fileSyncs = syncs
        if let why = syncs.refused { report.warnings.append("\(report.output): \(why): the recording was not forced to disk (a power cut may lose more than the last second)") }
    }

    private func audioWritten(_ w: RecordingWriter) {
        syncs.add(w.syncs)
        audioFrames += w.audioFramesWritten
        audioCorrection += w.capturedAudio?.correction ?? 0
        audioCodec = w.audioCodec
    }

    /// The sound's part of the report.
    private func audioReport() -> AudioReport? {
        guard let a = audioCapture else { return nil }
        let clock = a.clockNow
        return AudioReport(device: a.settings.device, sampleRate: a.rate, channels: a.channels,
                           codec: audioCodec, measuredRate: clock.rate,
                           ppm: (clock.ppm * 10).rounded() / 10, framesWritten: audioFrames,
                           overruns: a.overruns, framesLost: a.framesLost, driftCorrectionFrames: audioCorrection,
                           timestampPairs: clock.pairs, adjustments: a.pcm.adjustments + (a.failure.map { ["the sound card failed: \($0)"] } ?? []))
    }

    /// Where the report went when it could not go beside the recording (a full disk), or that it
    /// could not be written at all; nil when it is beside the recording.
    public private(set) var reportNote: String?
    /// True when the report could be written nowhere.
    public private(set) var reportLost = false

    /// `OUTPUT.capture.json`: the report, written atomically at the end. Its absence next to a
    /// recording means the capture did not end cleanly (the recording is still playable). Where it
    /// cannot be written (no space, read-only), it goes to the temporary directory and `reportNote`
    /// says where; it never hides the recording's own outcome.
    private func writeSidecar(_ report: CaptureReport, for output: String) {
        let path = output + ".capture.json"
        guard let data = try? JSONSchema.document(report) else { reportNote = "\(path): the report could not be encoded"; reportLost = true; return }
        do { try data.write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            let why = OutputFile.reason(error)
            let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            let fallback = dir + "/" + URL(fileURLWithPath: path).lastPathComponent
            if (try? data.write(to: URL(fileURLWithPath: fallback), options: .atomic)) != nil {
                reportNote = "report not written beside it (\(why)): it is in \(fallback)"
            } else {
                reportNote = "report not written (\(why)), nor in \(dir)"
                reportLost = true
            }
        }
    }
}
