/// What makes a TIFF of an undebayered mosaic a DNG (Adobe's DNG 1.4 specification) and a frame
/// of a CinemaDNG sequence: the tags' values, pure (`TIFFWriter` writes them).
public struct DNGFrame: Sendable, Equatable {
    /// CFAPattern (33422): the colour of each site of the 2x2 repeat, row by row (0 red, 1 green, 2 blue).
    public var cfaPattern: [UInt8]
    /// BlackLevel (50714) and WhiteLevel (50717): 0 and 2^bits − 1 of the bits the camera filled.
    public var blackLevel: Int
    public var whiteLevel: Int
    /// UniqueCameraModel (50708).
    public var cameraModel: String
    /// CinemaDNG FrameRate (51044), when the recording has a rate.
    public var frameRate: Rational?
    /// CinemaDNG TimeCodes (51043): the frame's SMPTE time code, 8 bytes.
    public var timeCode: [UInt8]

    /// The pattern's sites as DNG's colour numbers; nil for a name that is not a 2x2 Bayer pattern.
    public static func cfaPattern(_ name: String) -> [UInt8]? {
        let colours: [Character: UInt8] = ["R": 0, "G": 1, "B": 2]
        let sites = name.uppercased().compactMap { colours[$0] }
        // a Bayer pattern: green on one diagonal, red and blue on the other
        guard sites.count == 4, name.count == 4, Set(sites).count == 3, sites[0] == sites[3] && sites[0] == 1 || sites[1] == sites[2] && sites[1] == 1
        else { return nil }
        return sites
    }

    public init(pattern: [UInt8], bits: Int, cameraModel: String, frameRate: Rational?, timeCode: [UInt8]) {
        cfaPattern = pattern
        blackLevel = 0
        whiteLevel = (1 << bits) - 1
        self.cameraModel = cameraModel
        self.frameRate = frameRate
        self.timeCode = timeCode
    }

    /// The frames a second of the time code: 30, SMPTE's highest non-drop rate, or the recording's
    /// own when it is a whole number below that.
    public static func timeCodeRate(_ frameRate: Rational?) -> Int64 {
        guard let r = frameRate, r.denominator == 1, r.numerator >= 1, r.numerator <= 30 else { return 30 }
        return r.numerator
    }

    /// SMPTE 12M time code of time of day `t` (seconds since 1970 UTC, or any clock's seconds):
    /// frames, seconds, minutes, hours in BCD (bytes 0–3, no drop frame, no flags), user bits zero
    /// (bytes 4–7). At `rate` frames a second, truncated: frames of a faster recording share a code.
    public static func timeCode(_ t: Rational, rate: Int64) -> [UInt8] {
        let frames = Swift.max(0, (t * Rational(rate)).floor)
        let f = frames % rate, seconds = frames / rate
        let s = seconds % 60, m = (seconds / 60) % 60, h = (seconds / 3600) % 24
        func bcd(_ v: Int64) -> UInt8 { UInt8((v / 10) << 4 | v % 10) }
        return [bcd(f), bcd(s), bcd(m), bcd(h), 0, 0, 0, 0]
    }
}
