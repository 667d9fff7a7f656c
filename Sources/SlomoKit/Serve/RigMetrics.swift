import Foundation
import SlomoCore

/// `GET /metrics`: the rig in Prometheus's text exposition format (0.0.4), behind the server's token
/// (Prometheus sends it as `authorization: { credentials: … }`, a bearer token). Names carry the
/// `slomo_` prefix, counters end in `_total`, units are base units (`_seconds`, `_bytes`, `_ratio`).
/// Each scrape reads `status()`, the shots and the jobs: the same numbers `GET /api/v1/status` gives.
public enum RigMetrics {
    /// Buckets of `slomo_trigger_decision_latency_seconds`: 0.5 ms to 1 s.
    static let latencyBuckets: [Double] = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1]

    public static func text(_ rig: Rig) -> String {
        rig.lock.lock()
        let refusals = rig.diskRefusals
        rig.lock.unlock()
        return render(
            status: rig.status(), shots: rig.shots(), jobs: rig.allJobs(), diskFree: rig.diskFree, outDir: rig.config.outDir,
            diskRefusals: refusals)
    }

    static func render(status s: RigStatus, shots: [RigShot], jobs: [RigJob], diskFree: Int64?, outDir: String, diskRefusals: Int64 = 0) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for (labels, value) in samples { out += name + (labels.isEmpty ? "" : "{\(labels)}") + " " + value + "\n" }
        }
        metric("slomo_frames_captured_total", "counter", "Frames the camera gave since the server started.", [("", "\(s.framesCaptured)")])
        metric(
            "slomo_frames_dropped_total", "counter", "Frames lost: by the camera or its driver (sequence gaps), or by slomo (the ring full).",
            [("by=\"camera\"", "\(s.droppedByDriver)"), ("by=\"slomo\"", "\(s.droppedBySlomo)")])
        metric("slomo_frames_damaged_total", "counter", "Frames the driver marked damaged.", [("", "\(s.damagedFrames)")])
        if let cams = s.cameras {
            // a rig of several: the totals above are the sums, each camera's own here
            func label(_ c: RigCameraStatus) -> String { "camera=\"\(c.camera)\",name=\"\(escaped(c.name))\"" }
            metric(
                "slomo_camera_up", "gauge", "1 while the camera streams; 0 once lost or stopped.", cams.map { (label($0), $0.state == .streaming ? "1" : "0") }
            )
            metric("slomo_camera_frames_captured_total", "counter", "Frames each camera gave.", cams.map { (label($0), "\($0.framesCaptured)") })
            metric(
                "slomo_camera_frames_dropped_total", "counter", "Frames each camera lost, by the camera or by slomo.",
                cams.flatMap { c in [(label(c) + ",by=\"camera\"", "\(c.droppedByDriver)"), (label(c) + ",by=\"slomo\"", "\(c.droppedBySlomo)")] })
        }
        metric("slomo_capture_frames_per_second", "gauge", "Frames a second over the last second or more.", [("", number(s.achievedFps ?? 0))])
        metric(
            "slomo_rig_state", "gauge", "The rig's state: 1 for the one it is in.",
            RigState.allCases.map { ("state=\"\($0.rawValue)\"", $0 == s.state ? "1" : "0") })
        metric("slomo_ring_frames", "gauge", "Frames the RAM ring holds.", [("", "\(s.ringFrames)")])
        metric(
            "slomo_ring_fill_ratio", "gauge", "How full the pre-trigger window (while armed) and the post-trigger window (once triggered) are.",
            [("window=\"pre\"", number(s.preTriggerFill ?? 0)), ("window=\"post\"", number(s.postTriggerFill ?? 0))])
        metric("slomo_shots_saved_total", "counter", "Shots saved since the server started.", [("", "\(s.shotsSaved)")])
        metric("slomo_shots", "gauge", "Shots listed in the output directory (this server's and earlier ones').", [("", "\(shots.count)")])
        metric("slomo_shot_saving", "gauge", "1 while a shot is being saved.", [("", s.savingShot == nil ? "0" : "1")])
        metric("slomo_shot_saving_progress_ratio", "gauge", "How far the shot being saved is.", [("", number(s.savingProgress ?? 0))])
        if let t = s.takes {
            metric(
                "slomo_takes", "gauge", "Takes in RAM by state: holding a shot not yet saved, being saved, free.",
                [("state=\"held\"", "\(t.held)"), ("state=\"saving\"", "\(t.saving)"), ("state=\"free\"", "\(t.free)")])
        }
        histogram(&out, shots.map { $0.report.decisionLatency.doubleValue })
        metric("slomo_preview_clients", "gauge", "Viewers of the live picture (page, MJPEG, WebSocket).", [("", "\(s.live.viewers)")])
        metric("slomo_preview_pictures_total", "counter", "Live pictures made.", [("", "\(s.live.pictures)")])
        if let diskFree {
            metric(
                "slomo_disk_free_bytes", "gauge", "Bytes free for the output directory.", [("path=\"\(escaped(outDir))\"", "\(diskFree)")])
        }
        metric("slomo_disk_refusals_total", "counter", "Arms refused because the output directory could not hold the take.", [("", "\(diskRefusals)")])
        metric(
            "slomo_export_jobs", "gauge", "Export jobs by state.",
            RigJob.State.allCases.map { st in ("state=\"\(st.rawValue)\"", "\(jobs.filter { $0.state == st }.count)") })
        return out
    }

    /// `slomo_trigger_decision_latency_seconds`: from each shot's trigger event to the moment slomo decided it.
    static func histogram(_ out: inout String, _ values: [Double]) {
        let name = "slomo_trigger_decision_latency_seconds"
        out += "# HELP \(name) From a trigger's event to the moment slomo decided its shot, for the shots listed.\n# TYPE \(name) histogram\n"
        for b in latencyBuckets { out += "\(name)_bucket{le=\"\(number(b))\"} \(values.filter { $0 <= b }.count)\n" }
        out += "\(name)_bucket{le=\"+Inf\"} \(values.count)\n\(name)_sum \(number(values.reduce(0, +)))\n\(name)_count \(values.count)\n"
    }

    static func number(_ v: Double) -> String { v.isFinite ? "\(v)" : "0" }

    /// A label value with `\`, `"` and newlines escaped.
    static func escaped(_ s: String) -> String {
        s.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
    }
}
