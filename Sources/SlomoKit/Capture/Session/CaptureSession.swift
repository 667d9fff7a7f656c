import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg
import Synchronization

/// Capture: a capture thread (real-time priority where allowed) takes each frame from the source,
/// copies it into the preallocated RAM ring and gives the buffer back at once; it never waits on
/// loading, encoding, writing or a reader. The calling thread writes from the ring: the whole
/// stream (continuous), or the shots triggers select (pre/post-trigger).
public final class CaptureSession: @unchecked Sendable {
    // Safe: `end`, the shot queue and the ring synchronise themselves; the producer's counts are
    // its thread's until it is joined (`captureDone`).
    /// What the stages share (made at `init`): the camera, the ring's plan, the end, the hooks, the
    /// shot queue, the takes shots are held in (`--takes`, `--save lifo`; nil: saved from the ring).
    let stages: StageContext
    let settings: RecordingSettings
    let trigger: TriggerSettings?
    /// The sound card (`--audio`), opened with the session, started before the camera.
    let audioCapture: AudioCapture?
    /// The live preview (`--preview`): the live-picture stage with the preview's stream as its sink.
    let preview: CapturePreview?
    /// SIGUSR1's events, taken from `init` on (a signal sent before the camera streams is kept).
    let signalEvents: TriggerEventSource?

    /// Plans the ring and refuses one that cannot fit in the memory available.
    public init(
        source: CaptureSource, settings: RecordingSettings, limits: CaptureLimits, trigger: TriggerSettings? = nil,
        audio: AudioSettings? = nil, preview: PreviewSettings? = nil, hooks: CaptureHooks = CaptureHooks(),
        stop: StopToken = ProcessSignals.interrupt
    ) throws {
        let end = SessionEnd()
        producer = CaptureThread(source: source, limits: limits, end: end, stop: stop)
        var settings = settings
        let controls = source.cameraControls()
        if !controls.isEmpty { settings.metadata[SlomoTag.controls.rawValue] = AppliedControl.metadataText(controls) }
        self.settings = settings
        self.trigger = trigger
        self.preview = try preview.map { try CapturePreview($0, format: source.format) }
        let fps = source.format.frameDuration.flatMap { try? $0.reciprocal() } ?? Rational(30)
        var plan = RingPlan.plan(format: source.format, fps: fps, pre: trigger?.pre, post: trigger?.post, memory: limits.ringMemory)
        if let n = limits.ringFrames {
            plan = RingPlan(
                slots: max(n, 2), slotBytes: plan.slotBytes, bytes: Int64(max(n, 2)) * Int64(plan.slotBytes),
                preFrames: plan.preFrames, postFrames: plan.postFrames, leadInFrames: plan.leadInFrames)
        }
        if let t = trigger, plan.slots < plan.preFrames + 8 {
            throw CaptureError.ringTooSmall(slots: plan.slots, preTrigger: t.pre, preFrames: plan.preFrames)
        }
        if let available = SystemMemory.available(), plan.bytes > available - (256 << 20) {
            throw CaptureError.ringTooLarge(
                source: source.name, trigger: trigger.map { ($0.pre, $0.post) },
                mode: "\(source.format.fourcc) \(source.format.width)x\(source.format.height) \(Seconds(fps)) fps",
                plan: plan, availableBytes: available)
        }
        // shots held in RAM: the takes, each a shot long, allocated (and locked) now
        let takes = try trigger.flatMap { try TakeStore.make(for: $0.takes, plan: plan, format: source.format, source: source.name, lock: limits.lockMemory) }
        let first = trigger?.firstShot ?? 1
        stages = StageContext(source: source, plan: plan, shots: ShotQueue(), end: end, hooks: hooks, takes: takes, number: { first + $0 - 1 })
        try FrameFiles.check(settings, audio: audio, source: source, trigger: trigger, plan: plan, limits: limits)
        _ = try audio?.encoder(for: settings.output)  // a codec the container cannot hold: refused before anything opens
        // the card keeps a minute of sound, more when the ring holds more (sized from the plan, so
        // --ring-memory and a long pre-trigger count too), ten minutes at most (a slow camera's
        // 64 MiB ring can span hours): a shot's or a lagging writer's start is still there when read
        let ringSeconds = source.format.frameDuration.map { (Rational(Int64(plan.slots)) * $0).ceiling } ?? 0
        audioCapture = try audio.map { try AudioCapture($0, seconds: Int(Swift.min(600, Swift.max(60, 2 * ringSeconds + 10)))) }
        // SIGUSR1 events are taken from now on: a signal sent before the camera streams is stamped
        // and kept (the application's handler stamps it; ProcessSignals)
        if trigger?.kind == .signal {
            guard ProcessSignals.isOwned else { throw CaptureError.signalsNotOwned(source: source.name) }
            signalEvents = TriggerEvents(kind: .signal)
        } else {
            signalEvents = nil
        }
        if let t = trigger, case .motion = t.kind {
            guard LumaLayout.of(fourcc: source.format.fourcc) != nil else {
                throw CaptureError.motionNeedsRawFrames(source: source.name, fourcc: source.format.fourcc)
            }
            if let r = t.region, !r.fits(width: source.format.width, height: source.format.height) {
                throw CaptureError.regionOutsideFrame(region: r, width: source.format.width, height: source.format.height)
            }
        }
    }

    /// The producer: the capture thread, its counts and its clock mending.
    let producer: CaptureThread
    public var source: CaptureSource {
        stages.source
    }
    public var ringPlan: RingPlan {
        stages.plan
    }
    /// How and when the capture ends (asked from any thread; the first reason wins).
    var end: SessionEnd {
        stages.end
    }
    /// What the session tells the world and the readers beside it (given at `init`).
    var hooks: CaptureHooks {
        stages.hooks
    }
    /// The takes, for a server's status.
    var takes: TakeStore? {
        stages.takes
    }

    /// The running capture's counts, readable from any thread.
    public var status: CaptureStatus {
        producer.live.status
    }

    /// The statistics of the last run (intervals for the plot).
    public var lastStats: CaptureStats {
        producer.reported
    }

    /// Runs the capture until its end (duration, frames, shots, a signal, the camera gone).
    /// `shared`: the event source and trigger output several sessions share (several cameras, a
    /// server's queue); without it the session opens its own.
    public func run(progress: ((Int64) -> Void)? = nil) throws -> CaptureReport { try run(shared: nil, progress: progress) }

    func run(shared: SharedTrigger?, progress: ((Int64) -> Void)? = nil) throws -> CaptureReport {
        let ring = FrameRing(capacity: ringPlan.slots, slotBytes: ringPlan.slotBytes, lockInMemory: producer.limits.lockMemory)
        // the trigger thread first, at the caller's priority (it waits until the camera streams)
        let gate = StartGate()
        defer { gate.close() }  // an early failure ends it
        let placer = trigger.map { ShotPlacer(trigger: $0, context: stages) }
        placer?.start(ring: ring, gate: gate)
        written.setWriterPriority(realtime: producer.limits.realtime, triggered: trigger != nil, takes: takes != nil)
        // everything costly before the camera streams: FFmpeg loaded, encoder open, buffers mapped
        var first = FrameFiles.firstFile(settings, trigger: trigger)
        if takes != nil { first.output = TakeStore.partialName(first.output) ?? first.output }
        let firstWriter = try FrameFiles.open(
            settings: first, format: source.format, sourceName: source.name,
            frames: FrameFiles.capacity(triggered: trigger != nil, plan: ringPlan, format: source.format, limits: producer.limits))
        firstWriter.audio = audioCapture
        try firstWriter.prepare()
        try source.prepare()
        // the sound first: its clock has settled by the time the first frame comes
        try audioCapture?.start()
        defer { audioCapture?.stop() }
        // the trigger's line or port is taken before the camera streams (one in use is refused now)
        let sources = try trigger.map { t in
            let events = try shared?.events ?? signalEvents ?? TriggerSources.open(t, camera: source.name, audio: audioCapture, onEvent: hooks.onEvent)
            let out = try shared?.output ?? t.output.map { try TriggerOutput($0) }
            return TriggerSources(events: events, output: out, ownsEvents: shared?.events == nil, ownsOutput: shared?.output == nil)
        }
        defer { sources?.close() }
        placer?.sources = sources
        let captureDone = DispatchSemaphore(value: 0)
        // the recorder holds the ring from its first frame before the camera can publish one
        let recordReader = trigger == nil ? ContinuousRecorder.reader(ring) : nil
        let thread = Thread { [producer] in
            producer.run(ring)
            captureDone.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        // the ring's readers beside the stages: the live pictures (the preview's, a server's viewers)
        let taps = hooks.taps + (preview.map { [$0.pictures] } ?? [])
        for t in taps { t.start(ring: ring, format: source.format) }
        // also when the camera never streams (no report is made then); a second stop only returns the report
        defer { for t in taps { t.stop() } }

        var report: CaptureReport
        if let trigger, let placer {
            gate.open()
            let run = TriggeredRun(
                trigger: trigger, settings: settings, context: stages, audio: audioCapture, written: written, reports: reports, interrupt: producer.stopToken)
            report = try run.run(ring: ring, firstWriter: firstWriter, captureDone: captureDone, placer: placer)
        } else {
            // (the reader is made above whenever there is no trigger)
            report = try runContinuous(
                reader: recordReader ?? ContinuousRecorder.reader(ring), ring: ring, writer: firstWriter, captureDone: captureDone, progress: progress)
        }
        if let e = end.startFailure { throw e }
        return report
    }

    // MARK: continuous recording

    func runContinuous(
        reader: RingReader, ring: FrameRing, writer: any FrameFile, captureDone: DispatchSemaphore,
        progress: ((Int64) -> Void)?
    ) throws -> CaptureReport {
        let recorded = ContinuousRecorder(writer: writer, source: source).record(reader, end: end, progress: progress)
        captureDone.wait()
        if let e = end.startFailure { throw e }  // the camera never streamed: no recording, no report
        let catchUp = CaptureClock.now() - (end.cameraStoppedAt ?? CaptureClock.now())
        var finishError: Error?
        do { try writer.finish() } catch { finishError = error }
        written.add(writer)
        var report = reports.report(
            output: settings.output, framesWritten: writer.framesWritten, bytesWritten: writer.bytesWritten, ring: ring,
            backlog: recorded.backlog, catchUp: catchUp.isNegative ? .zero : catchUp, shortFrames: recorded.short)
        if let e = recorded.writeError { report.message = report.message ?? "\(e)" }
        written.writeSidecar(report, for: [settings.output])
        if let e = recorded.writeError ?? finishError {
            throw CaptureSession.stopped(settings.output, frames: writer.framesWritten, e, report: written.reportNote)
        }
        return report
    }

    // MARK: the report (CaptureReportMaker.swift)

    var reports: CaptureReportMaker {
        CaptureReportMaker(
            source: source, producer: producer, end: end, plan: ringPlan, sync: settings.sync, preview: preview, audio: audioCapture,
            written: written)
    }

    /// What the finished recordings wrote beside their video: sound, file syncs, where the report went.
    let written = WrittenTotals()
}
