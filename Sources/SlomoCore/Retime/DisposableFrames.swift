/// Tells from a compressed video packet whether any other frame can depend on it, so that a
/// frame the output does not show can be left undecoded.
///
/// * H.264 and HEVC: a picture is disposable when none of its slices is a reference
///   (`NALUnits.Unit.isReference`: H.264's `nal_ref_idc == 0`; HEVC's sub-layer non-reference types).
/// * Intra-only codecs (MJPEG, FFV1, ProRes…): every frame is disposable.
///
/// When the packet cannot be parsed the answer is "not disposable".
public struct DisposableFrames: Sendable {
    private enum Kind: Sendable { case nal(NALUnits), intraOnly, other }
    private let kind: Kind

    public init(codecName: String, intraOnly: Bool, extradata: [UInt8]) {
        switch codecName {
        case "h264": kind = .nal(NALUnits(.h264, extradata: extradata))
        case "hevc": kind = .nal(NALUnits(.hevc, extradata: extradata))
        default: kind = intraOnly ? .intraOnly : .other
        }
    }

    /// True when no other frame references this packet's picture.
    public func isDisposable(_ packet: UnsafeRawBufferPointer) -> Bool {
        switch kind {
        case .intraOnly: return true
        case .other: return false
        case .nal(let units):
            var sawPicture = false, disposable = true
            units.forEach(in: packet) { u in
                guard u.isPicture else { return true }
                sawPicture = true
                disposable = !u.isReference
                return disposable
            }
            return sawPicture && disposable
        }
    }
}
