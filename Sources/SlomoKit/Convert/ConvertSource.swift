import Foundation
import SlomoCore
import SlomoFFmpeg

/// What `slomo convert` reads from its input before writing anything: the video's frame times on
/// the recording's own clock, the trigger frame, the frames `--start`/`--end` keep, the samples the
/// frames hold, and what the recording says of itself (camera, rate, clock).
struct ConvertSource {
    let timeline: MediaTimeline
    let table: LabFrameTable
    /// Source indices kept, in order.
    let kept: Range<Int>
    let samples: LabSamples
    /// The clock of `table.times`: the capture's (`slomo_capture_clock`, CLOCK_MONOTONIC) or the file's own timestamps.
    let clock: String
    /// The recording's tags that lab files repeat (camera, capture format and rate, CFA pattern).
    let tags: [String: String]
    /// The trigger frame's index when the recording names one (`slomo_trigger_frame`).
    let namedTrigger: Int?
    /// Seconds from the recording's clock to UTC, from its `creation_time` (the wall-clock time of its
    /// first frame, or of a slomo capture's start): nil when the recording has none.
    let utcOffset: Rational?
    /// A codec that does not keep samples exactly: the frames written are its decoded pictures.
    let lossy: Bool
    var width: Int { timeline.info.width }
    var height: Int { timeline.info.height }
    var frameRate: Rational? { timeline.frameRate }

    /// Codecs whose every decoded sample is the one stored (FFmpeg's intra lossless and raw ones).
    static let lossless: Set<String> = [
        "rawvideo", "ffv1", "huffyuv", "ffvhuff", "utvideo", "magicyuv", "png", "apng", "tiff", "bmp", "qoi", "pam", "pgm", "pgmyuv",
        "ppm", "pbm", "sgi", "targa", "v210", "v410", "r210", "r10k", "y41p", "ayuv", "yuv4", "bitpacked", "cfhd-lossless",
    ]

    init(path: String, trim: SourceTrim) throws {
        let timeline = try MediaTimeline(path: path)
        self.timeline = timeline
        let demuxer = try MediaInput.openInput(path)
        let meta = Dictionary(demuxer.metadata.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        func tag(_ t: SlomoTag) -> String? { t.value(in: meta) }
        let start = tag(.captureStart).flatMap { try? Rational(parsing: $0) }
        clock = start != nil ? tag(.captureClock) ?? "CLOCK_MONOTONIC" : "file timestamps"
        let base = start ?? timeline.origin
        utcOffset = meta["creation_time"].flatMap { utcSeconds(iso8601: $0) }.map { $0 - base }
        let times = timeline.frameTimes.map { base + timeline.originalTime($0) }
        let trigger = tag(.triggerFrame).flatMap { Int($0) }.flatMap { times.indices.contains($0) ? $0 : nil }
        namedTrigger = trigger
        table = LabFrameTable(
            times: times, end: base + timeline.originalTime(timeline.duration), triggerFrame: trigger ?? 0,
            firstSequence: ConvertSource.firstSequence(path: path, frames: times.count))
        var kept = 0..<times.count
        if let w = try trim.window(timeline: timeline, map: RetimeMap.identity(TimeRange(start: .zero, end: timeline.duration))) {
            let first = timeline.frameTimes.firstIndex { $0 >= w.source.start } ?? times.count
            let end = timeline.frameTimes.firstIndex { $0 >= w.source.end } ?? times.count
            kept = first..<Swift.max(first, end)
        }
        guard !kept.isEmpty else { throw SettingError(.start, trim.start?.description ?? "", "keeps no frame of \(path)") }
        self.kept = kept
        let format = timeline.info.pixelFormat ?? "none"
        samples = LabSamples(pixelFormat: format, bitDepth: PixelFormat(name: format)?.bitDepth ?? 0)
        tags = [SlomoTag.device, .captureFormat, .captureFps, .cfaPattern, .triggerSource].reduce(into: [:]) { d, t in
            if let v = tag(t) { d[t.rawValue] = v }
        }
        lossy = !ConvertSource.lossless.contains(timeline.info.codecName)
    }

    /// The driver's sequence number of the first frame, when the capture's report beside the file
    /// (`FILE.capture.json`) gives this shot's first and last with no gap between them and as many
    /// frames as the file holds; nil otherwise (a continuous recording's report has no sequence numbers).
    static func firstSequence(path: String, frames: Int) -> Int64? {
        guard let data = FileManager.default.contents(atPath: path + ".capture.json"),
            let report = try? JSONDecoder().decode(CaptureReport.self, from: data)
        else { return nil }
        let name = (path as NSString).lastPathComponent
        guard let shot = report.shots?.first(where: { ($0.output as NSString).lastPathComponent == name }), shot.sequenceGaps == 0,
            shot.lastSequence >= shot.firstSequence, shot.lastSequence - shot.firstSequence + 1 == UInt64(frames),
            let first = Int64(exactly: shot.firstSequence)
        else { return nil }
        return first
    }

    /// One sentence on what the samples written are, when they are not the source's own.
    var note: String? {
        if samples.fidelity == .converted {
            return "the frames are \(samples.source), converted to \(samples.format.ffmpegName): not the source's samples"
        }
        if lossy {
            return "\(timeline.info.codecName) is lossy: the frames written are its decoded pictures, not the camera's samples"
        }
        return nil
    }
}
