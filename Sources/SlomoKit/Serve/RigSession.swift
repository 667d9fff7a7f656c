import Foundation
import SlomoCore
import SlomoSystem

/// One run of the rig's camera: a pre/post-trigger `CaptureSession` on its own thread, the queue
/// its triggers come through (`.api`), and how it is ended (after the shots it triggered are saved,
/// or outright when it stalls). The rig reads the session through its public status and ring plan.
final class RigSession: @unchecked Sendable {
    // Safe: every stored property is a `let`; the queue, the stop token and the semaphore synchronise themselves.
    let session: CaptureSession
    private let triggers = TriggerQueue()
    private let stop = StopToken()
    private let done = DispatchSemaphore(value: 0)
    private let output: TriggerOutput?
    /// Seconds a session may take to save its shots once asked to end.
    private let grace: Int

    /// Opens the camera with `settings`' window; shots are numbered from after `listed`, the
    /// highest the rig lists, and after any shot file in the directory.
    init(_ config: RigConfig, settings s: RigSettings, listed: Int, output: TriggerOutput?, hooks: CaptureHooks) throws {
        let source = try config.openSource()
        var t = TriggerSettings(kind: .api, pre: s.preTrigger, post: s.postTrigger, shots: 0)
        t.output = config.triggerOutput  // raised for every shot, whatever fired it (the rig's line)
        t.firstShot = RigConfig.shotExtensions.reduce(listed + 1) { n, ext in
            Swift.max(n, TriggerSettings.nextFreeShot(Self.template(config.outDir, ext)))
        }
        var recording = config.recording
        // MP4 for x264 and the camera's own compressed frames, Matroska for FFV1 and raw, or --shot-format
        recording.output = Self.template(config.outDir, config.shotExtension)
        session = try CaptureSession(
            source: source, settings: recording, limits: config.limits, trigger: t,
            audio: config.audio, preview: nil, hooks: hooks, stop: stop)
        self.output = output
        grace = Int(5 + 2 * (s.preTrigger + s.postTrigger).ceiling)
    }

    /// The shot files' name template in the output directory.
    static func template(_ dir: String, _ ext: String) -> String { (dir as NSString).appendingPathComponent("shot%04d.\(ext)") }

    /// Runs the session on its own thread; `ended` is called with its report or its failure.
    func start(ended: @escaping @Sendable (CaptureReport?, String?) -> Void) {
        let shared = SharedTrigger(events: triggers, output: output)
        let thread = Thread { [session, done] in
            var report: CaptureReport?
            var failure: String?
            do { report = try session.run(shared: shared) } catch { failure = "\(error)" }
            ended(report, failure)
            done.signal()
        }
        thread.name = "slomo-rig-camera"
        thread.start()
    }

    func push(_ t: RigTrigger) { triggers.push(.trigger(t.time, wall: t.wall, source: t.source)) }

    /// Ends the session after the shots it has triggered are saved; one that has not ended by then
    /// (a stalled camera) is stopped outright. A second call returns at once.
    func end() {
        triggers.push(.quit)
        if done.wait(timeout: .now() + .seconds(grace)) == .timedOut {
            stop.raise()
            done.wait()
        }
        done.signal()
    }
}
