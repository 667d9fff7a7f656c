import Foundation
import SlomoCore
import SlomoSystem

/// `slomo serve` under systemd (`Type=notify`, `WatchdogSec=`; Samples/systemd): `READY=1` once the
/// camera's first frame has arrived and the server listens, a `STATUS=` line whenever what it says
/// changes, and `WATCHDOG=1` every half watchdog period only while frames keep arriving and the
/// server answers a request on its own address (a hung camera or a stuck server loop stops the
/// pings, and systemd restarts the service). Nothing is sent without `NOTIFY_SOCKET`.
public final class RigNotifier: @unchecked Sendable {
    // Safe: `stopped` under `lock`; the rest is read-only after init or used on the notifier's thread only.
    private let rig: Rig
    private let answers: @Sendable () -> Bool
    private let send: @Sendable (String) -> Bool
    private let watchdog: Int64?
    private let lock = NSLock()
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    /// `answers`: whether the server answers now; `send`: one notification (systemd's socket by default).
    public init(
        rig: Rig, watchdogMicroseconds: Int64? = SystemdNotify.watchdogMicroseconds, answers: @escaping @Sendable () -> Bool,
        send: @escaping @Sendable (String) -> Bool = { SystemdNotify.send($0) }
    ) {
        self.rig = rig
        self.answers = answers
        self.send = send
        watchdog = watchdogMicroseconds
    }

    /// Whether systemd listens (`NOTIFY_SOCKET`): only then is a notifier worth starting.
    public static var wanted: Bool { SystemdNotify.socketPath != nil }

    /// How often the notifier looks: half the watchdog period (at most 1 s, at least 10 ms).
    var period: Double { min(1, max(0.01, Double(watchdog ?? 2_000_000) / 2e6)) }

    public func start() {
        let t = Thread { [self] in loop() }
        t.name = "slomo-notify"
        t.start()
    }

    /// `STOPPING=1` and the loop ended.
    public func stop(_ status: String) {
        lock.lock()
        let first = !stopped
        stopped = true
        lock.unlock()
        guard first else { return }
        done.wait()
        _ = send("STOPPING=1\nSTATUS=\(status)")
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func loop() {
        var ready = false, lastFrames: [Int: Int64] = [:], lastStatus = ""
        while !isStopped {
            let s = rig.status()
            // every camera still streaming gave frames since the last look (a rig of several: one
            // hung camera stops the pings too; a lost one is the rig's to say, not the watchdog's)
            let frames = Self.framesByCamera(s)
            let moving = !frames.isEmpty && frames.allSatisfy { $0.value > lastFrames[$0.key, default: -1] } && s.state != .stopped
            lastFrames = frames
            var lines: [String] = []
            if !ready && s.framesCaptured > 0 && answers() {
                ready = true
                lines.append("READY=1\nMAINPID=\(getpid())")
            }
            let status = Self.statusLine(s)
            if status != lastStatus {
                lines.append("STATUS=\(status)")
                lastStatus = status
            }
            if ready, watchdog != nil, moving, answers() { lines.append("WATCHDOG=1") }
            if !lines.isEmpty { _ = send(lines.joined(separator: "\n")) }
            Thread.sleep(forTimeInterval: period)
        }
        done.signal()
    }

    /// Frames captured by each camera streaming (a rig of one: its one camera).
    static func framesByCamera(_ s: RigStatus) -> [Int: Int64] {
        guard let cams = s.cameras else { return [1: s.framesCaptured] }
        return Dictionary(uniqueKeysWithValues: cams.filter { $0.state == .streaming }.map { ($0.camera, $0.framesCaptured) })
    }

    /// `armed, 240 fps, 3 shots saved, 0 dropped` (what `systemctl status` shows).
    static func statusLine(_ s: RigStatus) -> String {
        var parts = [s.state.rawValue]
        if let f = s.achievedFps { parts.append("\(Int(f.rounded())) fps") }
        parts.append("\(s.shotsSaved) shot\(s.shotsSaved == 1 ? "" : "s") saved")
        parts.append("\(s.droppedByDriver + s.droppedBySlomo) dropped")
        let lost = s.cameras?.filter { $0.state == .lost }.map { "camera \($0.camera) lost" } ?? []
        parts += lost
        if s.state == .stopped, let m = s.message { parts.append(m) }
        return parts.joined(separator: ", ")
    }
}
