import Foundation
import SlomoCore
import SlomoSystem

/// How far apart two cameras' frames are: for every frame of a camera, its kernel timestamp minus
/// that of the first camera's nearest frame (both CLOCK_MONOTONIC, so directly comparable).
public struct CameraSkew: Codable, Sendable, Equatable {
    /// The camera compared with the first one (its device name).
    public var camera: String
    public var reference: String
    /// Frames of this camera within the reference camera's capture, each matched to its nearest.
    public var frames: Int
    /// Signed offsets in milliseconds (display; from exact microsecond timestamps).
    public var meanMs: Double
    /// |offset| percentiles and maximum, milliseconds.
    public var p50Ms: Double
    public var p99Ms: Double
    public var maxMs: Double

    /// Nil when either list has no frame in common time.
    public static func between(_ a: [Rational], reference r: [Rational], camera: String, referenceName: String) -> CameraSkew? {
        guard !a.isEmpty, !r.isEmpty else { return nil }
        var offsets: [Int64] = []  // µs
        var j = 0
        for t in a where t >= r.first! && t <= r.last! {
            while j + 1 < r.count && r[j + 1] <= t { j += 1 }
            let before = t - r[j]
            let after = j + 1 < r.count ? r[j + 1] - t : before
            let o = before <= after ? before : -after
            offsets.append((o * Rational(1_000_000)).rounded(.nearest))
        }
        guard !offsets.isEmpty else { return nil }
        let mags = offsets.map { abs($0) }.sorted()
        func ms(_ us: Int64) -> Double { Double(us) / 1000 }
        let mean = Double(offsets.reduce(0, +)) / Double(offsets.count) / 1000
        return CameraSkew(
            camera: camera, reference: referenceName, frames: offsets.count, meanMs: (mean * 1000).rounded() / 1000,
            p50Ms: ms(CaptureStats.percentile(mags, 50)), p99Ms: ms(CaptureStats.percentile(mags, 99)),
            maxMs: ms(mags.last!))
    }
}

/// `slomo capture DEV1 DEV2 …`: what each camera did, and their skew.
public struct MultiCaptureReport: Codable, Sendable {
    public var cameras: [CaptureReport]
    /// Each camera after the first against the first.
    public var skew: [CameraSkew]
    /// Triggered: per shot number, the spread of the cameras' trigger-frame times (ms; display).
    public var triggerFrameSpreadMs: [Double]?
}

/// Several cameras on one event: each has its own session (ring, capture thread, writer), they run
/// side by side on one CLOCK_MONOTONIC timeline, and a stdin or SIGUSR1 trigger reaches all of
/// them with the same stamp (`TriggerFanOut`), so each keeps the frames around the same instant.
public enum MultiCapture {
    /// The cameras must run at one rate; `names` are their device names for messages.
    public static func checkRates(_ sessions: [CaptureSession]) throws {
        guard let first = sessions.first, let d0 = first.source.format.frameDuration else { return }
        for s in sessions.dropFirst() {
            guard let d = s.source.format.frameDuration, d == d0 else {
                throw CaptureError.ratesDiffer(camera: s.source.name, rate: s.source.format.frameDuration, first: first.source.name, firstRate: d0)
            }
        }
    }

    /// The one event source every camera's shots come from (nil: each camera decides alone, motion):
    /// the first camera says the network listener's warnings, and its sound input (the one
    /// `--audio` records) hears for every camera unless the trigger has its own microphone.
    static func sharedEvents(_ t: TriggerSettings, _ sessions: [CaptureSession]) throws -> TriggerEventSource? {
        let first = sessions.first
        return try TriggerSources.open(t, camera: first?.source.name ?? "?", audio: first?.audioCapture, onEvent: first?.hooks.onEvent)
    }

    /// Runs every session on its own thread and waits for all; the first failure is thrown after
    /// every camera has finished (each recording is finished either way).
    public static func run(_ sessions: [CaptureSession], trigger: TriggerSettings?) throws -> MultiCaptureReport {
        let fanOut = try trigger.flatMap { t in try sharedEvents(t, sessions).map { TriggerFanOut(source: $0, cameras: sessions.count) } }
        defer { fanOut?.close() }
        // one output line for every camera, raised once per event
        let output = try trigger?.output.map { try TriggerOutput($0) }
        defer { output?.close() }
        let results = Locked<[Result<CaptureReport, Error>?]>(Array(repeating: nil, count: sessions.count))
        let group = DispatchGroup()
        for (i, s) in sessions.enumerated() {
            group.enter()
            let t = Thread {
                let r = Result { try s.run(shared: SharedTrigger(events: fanOut?.shares[i], output: output)) }
                results.update { $0[i] = r }
                group.leave()
            }
            t.name = "slomo-camera-\(i + 1)"
            t.stackSize = 1 << 20
            t.start()
        }
        group.wait()
        var reports: [CaptureReport] = []
        var failure: Error?
        for r in results.value {
            switch r {
            case .success(let rep)?: reports.append(rep)
            case .failure(let e)?: if failure == nil { failure = e }
            case nil: break
            }
        }
        if let failure { throw failure }
        let times = sessions.map { $0.lastStats.timestamps }
        var skew: [CameraSkew] = []
        for i in 1..<sessions.count {
            if let s = CameraSkew.between(times[i], reference: times[0], camera: sessions[i].source.name, referenceName: sessions[0].source.name) {
                skew.append(s)
            }
        }
        var spread: [Double]?
        if trigger != nil {
            let shots = reports.map { $0.shots ?? [] }
            let n = shots.map(\.count).min() ?? 0
            spread = (0..<n).map { k in
                let ts = shots.map { $0[k].triggerFrameTime }
                return ((ts.max()! - ts.min()!).doubleValue * 1e6).rounded() / 1e3
            }
        }
        return MultiCaptureReport(cameras: reports, skew: skew, triggerFrameSpreadMs: spread)
    }

    /// `{camera}` in an output name: the camera's number (1, 2, …).
    public static func path(_ template: String, camera: Int) -> String {
        template.replacingOccurrences(of: "{camera}", with: String(camera))
    }
}

extension CaptureStats {
    /// Every recorded frame's kernel timestamp: the first plus the intervals (kept in µs, as V4L2
    /// stamps them, so the sum is exact).
    var timestamps: [Rational] {
        guard let first = firstTimestamp else { return [] }
        var out = [first]
        out.reserveCapacity(intervalsMicros.count + 1)
        var us: Int64 = 0
        for d in intervalsMicros {
            us += d
            out.append(first + Rational(us, 1_000_000))
        }
        return out
    }
}
