import Foundation
import SlomoCore
import SlomoFFmpeg

/// How a recording is encoded and stored.
public struct RecordingSettings: Sendable {
    /// What raw (uncompressed) camera frames become: x264 (small, lossy), FFV1 (lossless, the
    /// camera's own sampling and depth), or the frames' bytes as they are (`raw`: no encoder at all,
    /// for rates no encoder follows).
    public enum RawCodec: String, Sendable, CaseIterable {
        case x264, ffv1, raw
        /// FFmpeg's encoder.
        var encoder: String {
            switch self {
            case .x264: "libx264"
            case .ffv1: "ffv1"
            case .raw: "rawvideo"
            }
        }
    }
    public var output: String
    public var rawCodec = RawCodec.x264
    /// x264 preset for raw cameras (real-time by default).
    public var preset = "superfast"
    public var crf = 20
    /// Raw → x264: a reference frame every N frames, non-reference B-frames between (nil: frames per 1/30 s).
    public var referenceInterval: Int?
    /// Per-segment time scaling applied while recording (source time from the first frame).
    public var map: RetimeMap?
    public var overwrite = false
    /// `fdatasync` the file at least every second of frames and at the end, so a power cut loses at
    /// most the last second (false: `--no-sync`, the kernel writes back when it chooses).
    public var sync = true
    /// Further `slomo_*` container metadata (a shot's trigger facts).
    public var metadata: [String: String] = [:]
    public init(output: String) { self.output = output }

    /// The time-pitch algorithm that plays the sound through a slowed-while-recording map: time-domain
    /// (SoundTouch; cheap beside a camera) where every rate of the map is in its range (1/2…2), else
    /// spectral (Rubber Band, 1/32…32). `slomo export --pitch …` of a 1x capture can choose any.
    public static func soundAlgorithm(for map: RetimeMap) -> TimePitchAlgorithm {
        map.mappings.allSatisfy { TimePitchAlgorithm.timeDomain.range.contains($0.rate) } ? .timeDomain : .spectral
    }

    /// Refuses a codec the output's container cannot hold before any device is opened:
    /// FFV1 and raw frames go into MOV, MKV or NUT, not MP4.
    public func validate() throws {
        // a lab format (`.cine`, `.h5`, `DIR/`, frame patterns): its name now, the camera's samples when it opens
        if LabOutput.isLabName(output) {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory)
            _ = try LabOutput(parsing: output, isDirectory: exists && isDirectory.boolValue)
            return
        }
        let container = try ContainerFormat.forOutput(output)
        guard rawCodec != .x264 else { return }
        let holds: Bool
        do { holds = try Muxer(path: output, formatName: container).accepts(codecName: rawCodec.encoder) } catch {
            throw CaptureError.containerRefused(output: output, "\(error)")
        }
        guard holds else {
            throw CaptureError.codecNotInContainer(output: output, codec: rawCodec.rawValue, container: container)
        }
    }
}

/// How often a recording was forced to disk, and what it cost.
public struct FileSyncs: Codable, Sendable, Equatable {
    public var count: Int64 = 0
    public var totalMicros: Int64 = 0
    public var maxMicros: Int64 = 0
    /// Why syncing stopped early (a file system that refuses `fdatasync`); nil when it did not.
    public var refused: String?
    public init() {}
    mutating func add(_ o: FileSyncs) {
        count += o.count
        totalMicros += o.totalMicros
        maxMicros = max(maxMicros, o.maxMicros)
        refused = refused ?? o.refused
    }
}
