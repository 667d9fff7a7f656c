/// Codec options slomo sets over FFmpeg's defaults, for every file it writes.
enum EncoderDefaults {
    /// FFmpeg's AAC encoder replaces bands by noise (PNS) and folds stereo into one channel with a
    /// sign (intensity stereo) by default; both move and smear transients (measured: calibration
    /// clicks moved by up to 0.4 ms, slowed ones by 1.7 ms), the clicks by which people check A/V
    /// sync, to save a few percent of bit rate. slomo turns them off.
    static func audioOptions(_ codec: String) -> [String: String] {
        codec == "aac" ? ["aac_pns": "0", "aac_is": "0"] : [:]
    }
}
