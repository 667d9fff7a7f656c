import SlomoCore
import SlomoFFmpeg

/// `--audio-codec` of export and retime: the encoder that writes the retimed audio.
///
/// `auto` (the default) writes the source's codec again where this FFmpeg has an encoder for it,
/// the output container holds it and the encoder takes the source's sample rate: FLAC stays
/// FLAC, PCM stays PCM at its depth, Opus stays Opus, AAC stays AAC at the source's bit rate.
/// Anything else becomes AAC at 160 kbit/s, or, in a container without AAC (WebM), Opus or
/// Vorbis (whichever takes the source's sample rate).
public struct AudioCodecChoice: Sendable, Equatable {
    /// FFmpeg encoder name (`aac`, `libopus`, `flac`, `pcm_s24le`…).
    public var encoder: String
    /// 0 for lossless and PCM encoders.
    public var bitRate: Int
    /// Write 32-bit samples where the encoder offers them (a source deeper than 16 bits).
    public var deep: Bool

    /// Names accepted by `--audio-codec`, besides `auto`, and their encoders.
    public static let named: KeyValuePairs<String, String> = [
        "aac": "aac", "opus": "libopus", "mp3": "libmp3lame", "vorbis": "libvorbis",
        "flac": "flac", "alac": "alac", "pcm": "pcm_s16le", "pcm24": "pcm_s24le", "pcm-float": "pcm_f32le",
    ]
    /// Source codecs written again by `auto`, and the encoder that writes each.
    static let sameCodec: [String: String] = [
        "aac": "aac", "opus": "libopus", "mp3": "libmp3lame", "vorbis": "libvorbis", "flac": "flac", "alac": "alac",
        "pcm_s16le": "pcm_s16le", "pcm_s16be": "pcm_s16be", "pcm_s24le": "pcm_s24le", "pcm_s24be": "pcm_s24be",
        "pcm_s32le": "pcm_s32le", "pcm_f32le": "pcm_f32le", "pcm_f32be": "pcm_f32be",
    ]
    /// True for `auto` and the names in `named`.
    public static func isKnown(_ name: String) -> Bool { name == "auto" || named.contains { $0.key == name } }

    /// Refuses a name that is not `auto` nor one of `named`, as `--audio-codec` (or the field) 'x'.
    public static func check(_ name: String) throws(SettingError) {
        guard isKnown(name) else { throw SettingError(.audioCodec, name, "\(expected)") }
    }
    /// The list an unknown name's message gives.
    public static var expected: String { "expected auto, \(named.map(\.key).joined(separator: ", "))" }
    static let lossy: Set<String> = ["aac", "libopus", "libmp3lame", "libvorbis"]
    static let defaultBitRate = 160_000

    /// The encoder for `requested` (`auto` or one of `named`) writing `source`'s retimed audio
    /// into `muxer`'s container. A named codec the container cannot hold, that this FFmpeg
    /// lacks, or that refuses the source's sample rate is a bad request naming all three.
    public static func resolve(_ requested: String, source: StreamInfo, muxer: Muxer, output: String) throws -> AudioCodecChoice {
        let deep = !["u8", "u8p", "s16", "s16p"].contains(source.sampleFormat ?? "s16")
        func usable(_ encoder: String) -> String? {
            guard let codec = Encoder.codecName(ofEncoder: encoder) else {
                return "this FFmpeg has no \(encoder) encoder"
            }
            guard muxer.accepts(codecName: codec) else { return "\(muxer.formatName) cannot hold \(codec) audio" }
            let rates = Encoder.sampleRates(codec: encoder)
            guard rates.isEmpty || rates.contains(source.sampleRate) else {
                return "\(encoder) takes \(rates.map(String.init).joined(separator: ", ")) Hz, the source is \(source.sampleRate) Hz"
            }
            return nil
        }
        if requested == "auto" {
            if let encoder = sameCodec[source.codecName], usable(encoder) == nil {
                let bitRate =
                    lossy.contains(encoder)
                    ? (source.bitRate > 0 ? Int(Swift.min(Swift.max(source.bitRate, 64_000), 512_000)) : defaultBitRate) : 0
                return AudioCodecChoice(encoder: encoder, bitRate: bitRate, deep: deep)
            }
            // AAC where the container holds it; WebM holds only Opus (48 kHz family) and Vorbis
            let fallback = muxer.accepts(codecName: "aac") ? "aac" : ["libopus", "libvorbis"].first { usable($0) == nil } ?? "aac"
            return AudioCodecChoice(encoder: fallback, bitRate: defaultBitRate, deep: false)
        }
        try check(requested)
        let encoder = named.first { $0.key == requested }!.value
        if let why = usable(encoder) {
            throw ExportError.audioCodecUnusable(output: output, codec: requested, why: why)
        }
        return AudioCodecChoice(encoder: encoder, bitRate: lossy.contains(encoder) ? defaultBitRate : 0, deep: deep)
    }
}
