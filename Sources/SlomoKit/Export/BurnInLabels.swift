import SlomoCore

/// The label of every output frame of an export: the source frame it shows, counted from the
/// trigger frame (`slomo_trigger_frame`) or the first, on the recording's own timing.
struct BurnInLabels {
    let settings: BurnInSettings
    let source: BurnInSource
    let plan: ExportFramePlan
    /// Blended, interpolated frames: labelled with the nearer source frame.
    let made: Bool

    init(_ settings: BurnInSettings, timeline: MediaTimeline, plan: ExportFramePlan, blend: ExportRequest.FrameBlend, metadata: [String: String]) {
        self.settings = settings
        self.plan = plan
        made = blend != .none
        let meta = Dictionary(metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        let times = plan.times.map { timeline.originalTime($0) }
        let trigger = SlomoTag.triggerFrame.value(in: meta).flatMap { Int($0) } ?? 0
        let rate =
            SlomoTag.captureFps.value(in: meta).flatMap { try? Rational(parsing: $0) } ?? timeline.captureRate?.captureFrameRate
            ?? timeline.originalFrameRate ?? timeline.frameRate
        source = BurnInSource(
            times: times, originIndex: trigger, frameRate: rate,
            exposure: SlomoTag.controls.value(in: meta).flatMap(BurnInSource.exposure(controls:)),
            utcAtZero: meta["creation_time"].flatMap { utcSeconds(iso8601: $0) })
    }

    /// The source frame output frame `n` is labelled with.
    func sourceFrame(ofFrame n: Int64) -> Int {
        plan.schedule.labelledFrameIndex(ofFrame: n, sourceTimes: plan.times, made: made)
    }

    func text(ofFrame n: Int64) -> String { source.label(ofFrame: sourceFrame(ofFrame: n), settings) }
}
