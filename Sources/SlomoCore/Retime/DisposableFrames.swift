/// Tells from a compressed video packet whether any other frame can depend on it, so that a
/// frame the output does not show can be left undecoded.
///
/// * H.264: a picture is disposable when its VCL NAL units have `nal_ref_idc == 0`.
/// * HEVC: VCL NAL types TRAIL_N, TSA_N, STSA_N, RADL_N, RASL_N and RSV_VCL_N10/12/14 (the even
///   types below 16) are sub-layer non-reference pictures.
/// * Intra-only codecs (MJPEG, FFV1, ProRes…): every frame is disposable.
///
/// Packets are length-prefixed (MP4/MKV "avcC"/"hvcC" layout, length size from the extradata)
/// or Annex B (start codes). When the packet cannot be parsed the answer is "not disposable".
public struct DisposableFrames: Sendable {
    public enum Codec: Sendable { case h264, hevc, intraOnly, other }
    public let codec: Codec
    /// NAL length-field size in bytes (1, 2 or 4), or nil for Annex B.
    public let lengthSize: Int?

    public init(codecName: String, intraOnly: Bool, extradata: [UInt8]) {
        switch codecName {
        case "h264": codec = .h264
        case "hevc": codec = .hevc
        default: codec = intraOnly ? .intraOnly : .other
        }
        if extradata.count >= 5, extradata[0] == 1, codec == .h264 {
            lengthSize = Int(extradata[4] & 3) + 1                 // avcC lengthSizeMinusOne
        } else if extradata.count >= 23, extradata[0] == 1, codec == .hevc {
            lengthSize = Int(extradata[21] & 3) + 1                // hvcC lengthSizeMinusOne
        } else {
            lengthSize = nil
        }
    }

    /// True when no other frame references this packet's picture.
    public func isDisposable(_ packet: UnsafeRawBufferPointer) -> Bool {
        switch codec {
        case .intraOnly: return true
        case .other: return false
        case .h264, .hevc:
            var sawVCL = false
            var disposable = true
            forEachNAL(packet) { header in
                guard let (vcl, ref) = classify(header) else { return }
                if vcl { sawVCL = true; if ref { disposable = false } }
            }
            return sawVCL && disposable
        }
    }

    /// (is a VCL NAL, is a reference) for the NAL's first two bytes; nil when too short.
    func classify(_ h: (UInt8, UInt8?)) -> (Bool, Bool)? {
        switch codec {
        case .h264:
            let type = h.0 & 0x1F
            let vcl = type >= 1 && type <= 5
            return (vcl, h.0 >> 5 & 3 != 0)
        case .hevc:
            let type = h.0 >> 1 & 0x3F
            let vcl = type < 32
            let nonRef = type < 16 && type % 2 == 0
            return (vcl, !nonRef)
        default: return nil
        }
    }

    func forEachNAL(_ p: UnsafeRawBufferPointer, _ body: ((UInt8, UInt8?)) -> Void) {
        let n = p.count
        if let size = lengthSize {
            var i = 0
            while i + size <= n {
                var len = 0
                for k in 0..<size { len = len << 8 | Int(p[i + k]) }
                i += size
                guard len > 0, i + len <= n else { return }
                body((p[i], len > 1 ? p[i + 1] : nil))
                i += len
            }
        } else {
            var i = 0
            while i + 3 < n {
                if p[i] == 0, p[i + 1] == 0, p[i + 2] == 1 {
                    body((p[i + 3], i + 4 < n ? p[i + 4] : nil))
                    i += 3
                } else {
                    i += 1
                }
            }
        }
    }
}
