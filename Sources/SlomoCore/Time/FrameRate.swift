/// Frame rates as people write them.
extension Rational {
    /// The NTSC-family rates people write as rounded decimals, and the exact ones they mean:
    /// 29.97 is 30000/1001, the rate broadcast, cameras and players use (2997/100 drifts from it by
    /// a frame in 9.3 hours, and its time base is not the one other tools expect).
    public static let ntscRates: [String: Rational] = [
        "23.976": Rational(24000, 1001), "23.98": Rational(24000, 1001), "29.97": Rational(30000, 1001),
        "47.952": Rational(48000, 1001), "59.94": Rational(60000, 1001), "119.88": Rational(120000, 1001),
        "239.76": Rational(240000, 1001),
    ]

    /// A frame rate as written on a command line or in a manifest: an NTSC decimal (`29.97`) is
    /// the exact 1001 rate it stands for; anything else as `init(parsing:)` reads it.
    public init(frameRate text: String) throws(RationalError) {
        if let r = Rational.ntscRates[String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())] {
            self = r
        } else {
            try self.init(parsing: text)
        }
    }
}
