internal import CFFmpeg
import SlomoCore

extension Rational {
    /// From FFmpeg's `AVRational`; nil for 0/0 or x/0 ("unknown" in FFmpeg).
    init?(_ av: AVRational) {
        guard av.den != 0 else { return nil }
        self.init(Int64(av.num), Int64(av.den))
    }

    /// To `AVRational`; nil when a term does not fit in 32 bits.
    var avRational: AVRational? {
        guard let n = Int32(exactly: numerator), let d = Int32(exactly: denominator) else { return nil }
        return AVRational(num: n, den: d)
    }
}
