import Foundation
import SlomoCore
import SlomoFFmpeg

/// `--burn-in`: each output frame's label, computed here from the exact time map (which source
/// frame the frame shows, `CFRSchedule.labelledFrameIndex`), set as the frame's metadata and drawn
/// by libavfilter's drawtext (`%{metadata:slomo.burnin}`). drawtext does no time arithmetic of its
/// own: the text is the label Swift made.
final class BurnInStage {
    static let key = "slomo.burnin"
    /// Debian's fonts-dejavu-core; without it, fontconfig's monospace font.
    static let fontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
    private let graph: FilterGraph
    private let drawn = Frame()
    private let labels: BurnInLabels

    init(labels: BurnInLabels, width: Int, height: Int, pixelFormat: PixelFormat, threads: Int) throws {
        self.labels = labels
        // drawtext works on 8-bit and wider YUV alike; `format` keeps the encoder's format either way
        graph = try FilterGraph(
            width: width, height: height, pixelFormat: pixelFormat, timeBase: Rational(1, 1),
            description: Self.filter(labels.settings, pictureHeight: height) + ",format=\(pixelFormat)", threads: threads)
    }

    /// The drawtext description: white text on a dark box in the chosen corner.
    static func filter(_ s: BurnInSettings, pictureHeight: Int) -> String {
        let size = s.textSize(pictureHeight: pictureHeight), border = Swift.max(2, size / 4), margin = Swift.max(4, size / 2)
        let font = FileManager.default.fileExists(atPath: fontFile) ? "fontfile=\(fontFile)" : "font=monospace"
        let x = [.topLeft, .bottomLeft].contains(s.corner) ? "\(margin)" : "w-tw-\(margin)"
        let y = [.topLeft, .topRight].contains(s.corner) ? "\(margin)" : "h-th-\(margin)"
        return "drawtext=\(font):text='%{metadata\\:\(key)}':fontsize=\(size):fontcolor=white:box=1:boxcolor=black"
            + ":boxborderw=\(border):line_spacing=\(border):x=\(x):y=\(y)"
    }

    /// Output frame `n` with its label drawn.
    func draw(_ f: Frame, _ n: Int64) throws -> Frame {
        f.setMetadata(Self.key, labels.text(ofFrame: n))
        f.pts = n
        try graph.push(f)
        guard case .got = try graph.pull(into: drawn) else {
            throw FFmpegError(path: "filter", operation: "drawtext", message: "no frame came out of the burn-in", category: .internalError)
        }
        return drawn
    }
}

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
