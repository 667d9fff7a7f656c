import Foundation
import SlomoCore
import SlomoSystem

/// One run of the rig's cameras: a pre/post-trigger `CaptureSession` per camera, each on its own
/// thread with its own ring, the queues their triggers come through (`.api`; every trigger goes to
/// every camera with the same instant, so each keeps the frames around it), and how they are ended
/// (after the shots they triggered are saved, or outright when one stalls). The rig reads the
/// sessions through their public status and ring plans.
final class RigSession: @unchecked Sendable {
    // Safe: every stored property is a `let`; the queues, stop tokens and semaphores synchronise themselves.
    let sessions: [CaptureSession]
    /// The cameras' names as the rig shows them.
    let names: [String]
    private let triggers: [TriggerQueue]
    private let stops: [StopToken]
    private let done: [DispatchSemaphore]
    private let output: TriggerOutput?
    /// Seconds a session may take to save its shots once asked to end.
    private let grace: Int

    /// The first camera's session (the one a rig of one runs).
    var session: CaptureSession { sessions[0] }

    /// Opens every camera with `settings`' window; shots are numbered from after `listed`, the
    /// highest the rig lists, and after any shot file in the directory, the same numbers for every
    /// camera. `hooks(k)`: camera `k`'s. The cameras must run at one rate.
    init(_ config: RigConfig, settings s: RigSettings, listed: Int, output: TriggerOutput?, hooks: (Int) -> CaptureHooks) throws {
        let n = config.cameraCount
        var t = TriggerSettings(kind: .api, pre: s.preTrigger, post: s.postTrigger, shots: 0)
        t.takes = config.takes
        t.output = config.triggerOutput  // raised once for every shot, whatever fired it (the rig's line)
        t.firstShot = (0..<n).reduce(listed + 1) { first, k in
            RigConfig.shotExtensions.reduce(first) { m, ext in
                Swift.max(m, TriggerSettings.nextFreeShot(Self.template(config.outDir, ext, camera: k, of: n)))
            }
        }
        var sessions: [CaptureSession] = [], stops: [StopToken] = []
        for k in 0..<n {
            let source = try config.open(camera: k)
            var recording = config.recording
            // MP4 for x264 and the camera's own compressed frames, Matroska for FFV1 and raw, or --shot-format
            recording.output = Self.template(config.outDir, config.shotExtension, camera: k, of: n)
            let stop = StopToken()
            stops.append(stop)
            sessions.append(
                try CaptureSession(
                    source: source, settings: recording, limits: config.limits, trigger: t,
                    audio: k == 0 ? config.audio : nil, preview: nil, hooks: hooks(k), stop: stop))
        }
        try MultiCapture.checkRates(sessions)
        self.sessions = sessions
        self.stops = stops
        names = sessions.enumerated().map { k, s in k < config.cameraNames.count ? config.cameraNames[k] : s.source.name }
        triggers = sessions.map { _ in TriggerQueue() }
        done = sessions.map { _ in DispatchSemaphore(value: 0) }
        self.output = output
        grace = Int(5 + 2 * (s.preTrigger + s.postTrigger).ceiling)
    }

    /// The shot files' name template in the output directory: `shot%04d.EXT` for a rig of one
    /// camera, `shot%04d-camK.EXT` (K from 1) for a rig of several.
    static func template(_ dir: String, _ ext: String, camera k: Int = 0, of n: Int = 1) -> String {
        (dir as NSString).appendingPathComponent(n > 1 ? "shot%04d-cam\(k + 1).\(ext)" : "shot%04d.\(ext)")
    }

    /// Runs each session on its own thread; `ended` is called with the camera's number (0 first)
    /// and its report or its failure.
    func start(ended: @escaping @Sendable (Int, CaptureReport?, String?) -> Void) {
        for (k, session) in sessions.enumerated() {
            let shared = SharedTrigger(events: triggers[k], output: output)
            let thread = Thread { [session, done] in
                var report: CaptureReport?
                var failure: String?
                do { report = try session.run(shared: shared) } catch { failure = "\(error)" }
                ended(k, report, failure)
                done[k].signal()
            }
            thread.name = sessions.count > 1 ? "slomo-rig-camera-\(k + 1)" : "slomo-rig-camera"
            thread.start()
        }
    }

    /// The trigger, with its own instant, to every camera.
    func push(_ t: RigTrigger) { for q in triggers { q.push(.trigger(t.time, wall: t.wall, source: t.source)) } }

    /// Ends the sessions after the shots they have triggered are saved; one that has not ended by
    /// then (a stalled camera) is stopped outright. A second call returns at once.
    func end() {
        for q in triggers { q.push(.quit) }
        let deadline = DispatchTime.now() + .seconds(grace)
        for (k, d) in done.enumerated() {
            if d.wait(timeout: deadline) == .timedOut {
                stops[k].raise()
                d.wait()
            }
            d.signal()
        }
    }
}
