internal import CFFmpeg
import SlomoCore

/// HMAC-SHA256 by libavutil (`av_hmac_calc`): the network trigger's message authentication.
public enum HMAC {
    /// The 32-byte HMAC-SHA256 of `data` under `key`. The corresponding C function is `av_hmac_calc`.
    public static func sha256(key: [UInt8], data: [UInt8]) -> [UInt8] {
        guard let ctx = av_hmac_alloc(AV_HMAC_SHA256) else { fatalError("av_hmac_alloc: out of memory") }
        defer { av_hmac_free(ctx) }
        var out = [UInt8](repeating: 0, count: 32)
        let n = out.withUnsafeMutableBufferPointer { o in
            av_hmac_calc(ctx, data, UInt32(data.count), key, UInt32(key.count), o.baseAddress, 32)
        }
        precondition(n == 32, "av_hmac_calc gave \(n) bytes")
        return out
    }
}
