/// Codec options slomo sets over FFmpeg's defaults, for every file it writes.
enum EncoderDefaults {
    /// FFmpeg's AAC encoder replaces bands by noise (PNS) and folds stereo into one channel with a
    /// sign (intensity stereo) by default; both move and smear transients (measured: calibration
    /// clicks moved by up to 0.4 ms, slowed ones by 1.7 ms), the clicks by which people check A/V
    /// sync, to save a few percent of bit rate. slomo turns them off.
    static func audioOptions(_ codec: String) -> [String: String] {
        codec == "aac" ? ["aac_pns": "0", "aac_is": "0"] : [:]
    }

    /// Whether `codec` gets the source's own channel layout (5.1(side), 7.1(wide)…). Not AAC:
    /// FFmpeg's encoder takes 5.1(side), but writes it as a program config that reads back as an
    /// "unknown" layout (the ffmpeg CLI does the same); as FFmpeg's default layout it reads back
    /// as 5.1 / 7.1. Encoders that cannot hold a layout fall back to the default themselves.
    static func keepsLayout(_ codec: String) -> Bool { codec != "aac" }

    /// Encoders known to refuse odd sizes in 4:2:0 (x265 and SVT-AV1 also print the refusal on
    /// stderr themselves): export crops for them without trying. Others are tried at the odd size.
    static func refusesOddSizes(_ codec: String) -> Bool {
        ["libx264", "libx265", "libsvtav1"].contains(codec)
    }
}
