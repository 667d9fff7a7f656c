import SlomoCore
import SlomoFFmpeg

/// `--codec`, `--preset` and `--crf` of export, checked before anything opens: an encoder this
/// FFmpeg has, that writes video the output container holds, with a preset and a quality in the
/// range that encoder takes. A refusal is one line (exit 64) naming what would work; FFmpeg and
/// the encoder's own log never speak first.
public enum VideoCodecChoice {
    /// The encoder export uses when none is named: libx264, or libvpx-vp9 for WebM.
    public static func defaultEncoder(container: String) -> String { container == "webm" ? "libvpx-vp9" : "libx264" }

    /// What each encoder slomo documents takes: its presets (nil: it has none) and its CRF range
    /// (nil: it has no constant-quality factor). From the encoders' option tables in FFmpeg 5.1
    /// (`ffmpeg -h encoder=NAME`) and x264/x265's preset lists.
    struct Tuning {
        var presets: [String]?
        var crf: ClosedRange<Int>?
    }
    static let x26xPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
    static let tuning: [String: Tuning] = [
        "libx264": Tuning(presets: x26xPresets, crf: 0...51),
        "libx265": Tuning(presets: x26xPresets, crf: 0...51),
        "libsvtav1": Tuning(presets: (0...13).map(String.init), crf: 0...63),
        "libvpx-vp9": Tuning(presets: nil, crf: 0...63),
        "libvpx": Tuning(presets: nil, crf: 4...63),
        "libaom-av1": Tuning(presets: nil, crf: 0...63),
    ]
    /// Names users type for a codec rather than an encoder, and the encoder meant.
    static let encoderFor: [String: String] = [
        "h264": "libx264", "x264": "libx264", "avc": "libx264", "hevc": "libx265", "h265": "libx265", "x265": "libx265",
        "vp9": "libvpx-vp9", "vp8": "libvpx", "av1": "libsvtav1", "svtav1": "libsvtav1", "aom": "libaom-av1",
        "prores": "prores_ks", "dnxhd": "dnxhd", "jpeg": "mjpeg", "mjpg": "mjpeg",
    ]

    /// Checks the three for an output written as `container` (an FFmpeg muxer name).
    public static func check(codec: String?, preset: String?, crf: Int?, container: String) throws(SettingError) {
        let encoder = codec ?? defaultEncoder(container: container)
        if codec != nil { try checkEncoder(encoder, container: container) }
        let t = tuning[encoder]
        if let preset {
            guard let presets = t?.presets else {
                throw SettingError(.preset, preset, "\(encoder) takes no preset (presets: libx264, libx265, libsvtav1)")
            }
            guard presets.contains(preset) else {
                throw SettingError(.preset, preset, "\(encoder) presets are \(presets.first!)…\(presets.last!): \(presets.joined(separator: ", "))")
            }
        }
        if let crf {
            guard let range = t?.crf else {
                throw SettingError(
                    .crf, String(crf),
                    "\(encoder) takes no CRF (it has its own quality options; libx264, libx265, libvpx-vp9, libaom-av1 and libsvtav1 take one)")
            }
            guard range.contains(crf) else {
                throw SettingError(.crf, String(crf), "must be in \(range.lowerBound)...\(range.upperBound) for \(encoder) (lower is better quality)")
            }
        }
    }

    /// An encoder (not a codec name, not an audio encoder) this FFmpeg has, writing video the container holds.
    static func checkEncoder(_ name: String, container: String) throws(SettingError) {
        guard let kind = Encoder.mediaKind(ofEncoder: name) else {
            let hint = encoderFor[name.lowercased()].map { " (did you mean \($0)?)" } ?? closest(to: name).map { " (did you mean \($0)?)" } ?? ""
            throw SettingError(.codec, name, "no such video encoder in this FFmpeg\(hint)")
        }
        guard kind == .video else {
            throw SettingError(.codec, name, "\(name) is a\(kind == .audio ? "n" : "") \(kind.rawValue) encoder (for sound: --audio-codec)")
        }
        guard let codec = Encoder.codecName(ofEncoder: name) else { return }
        let holds = (try? Muxer(path: "/dev/null", formatName: container).accepts(codecName: codec)) ?? true
        guard holds else {
            let containers: [String] = ["mp4", "mov", "matroska", "webm"]
            let ext: [String] = containers.filter { (c: String) -> Bool in
                (try? Muxer(path: "/dev/null", formatName: c).accepts(codecName: codec)) == true
            }.map { (c: String) -> String in c == "matroska" ? ".mkv" : "." + c }
            throw SettingError(.codec, name, "\(container) cannot hold \(codec) video\(ext.isEmpty ? "" : " (use \(ext.joined(separator: " or ")))")")
        }
    }

    /// The documented encoder nearest to a typo (a typo away), if any.
    static func closest(to name: String) -> String? {
        Suggestion.nearest(to: name, in: Array(tuning.keys).sorted() + ["prores_ks", "ffv1", "mjpeg"])
    }
}
