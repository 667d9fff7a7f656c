/// The NAL units of an H.264 or HEVC packet, and what their headers say. The one NAL walk of the
/// code base: capture reads a camera's Annex B frames with it (keyframes, parameter sets), export
/// reads a file's packets (which frames nothing refers to).
///
/// A packet is framed one of two ways: Annex B, each unit after a start code (`00 00 01`, or
/// `00 00 00 01`), as cameras and raw streams send it; or length-prefixed, each unit after its
/// size in 1, 2 or 4 bytes, as MP4 and Matroska store it (the size's width is in the avcC/hvcC
/// extradata). A unit cut short by the end of the packet ends the walk.
public struct NALUnits: Sendable, Equatable {
    public enum Codec: Sendable, Equatable { case h264, hevc }
    public enum Framing: Sendable, Equatable {
        case annexB
        /// The width of each unit's size field in bytes.
        case lengthPrefixed(Int)
    }

    public let codec: Codec
    public let framing: Framing

    public init(_ codec: Codec, framing: Framing) {
        self.codec = codec
        self.framing = framing
    }

    /// The framing a stream's extradata says (an avcC/hvcC record gives the size field's width;
    /// anything else is Annex B).
    public init(_ codec: Codec, extradata: [UInt8]) {
        self.codec = codec
        switch codec {
        case .h264 where extradata.count >= 5 && extradata[0] == 1: framing = .lengthPrefixed(Int(extradata[4] & 3) + 1)
        case .hevc where extradata.count >= 23 && extradata[0] == 1: framing = .lengthPrefixed(Int(extradata[21] & 3) + 1)
        default: framing = .annexB
        }
    }

    /// One unit: where its bytes are (header first) and what its header says.
    public struct Unit: Sendable, Equatable {
        /// The unit's bytes in the packet, its header first (a start code or size field excluded).
        public let bytes: Range<Int>
        /// The NAL unit type (H.264: 5 bits; HEVC: 6 bits).
        public let type: Int
        /// H.264's `nal_ref_idc` (0: no other picture refers to this one); nil for HEVC.
        public let refIDC: Int?
        public let codec: Codec

        /// A slice of a picture (H.264 types 1–5; HEVC's VCL types, below 32).
        public var isPicture: Bool { codec == .h264 ? (1...5).contains(type) : type < 32 }
        /// A picture that starts a decodable sequence: H.264's IDR (5), HEVC's IRAP types (16–23).
        public var isKeyPicture: Bool { codec == .h264 ? type == 5 : (16...23).contains(type) }
        /// A picture other pictures may refer to. H.264: `nal_ref_idc` non-zero. HEVC: all but the
        /// sub-layer non-reference types (TRAIL_N, TSA_N, STSA_N, RADL_N, RASL_N, RSV_VCL_N10/12/14:
        /// the even types below 16).
        public var isReference: Bool { codec == .h264 ? (refIDC ?? 1) != 0 : !(type < 16 && type % 2 == 0) }
        /// A parameter set: H.264 SPS (7) and PPS (8); HEVC VPS (32), SPS (33), PPS (34).
        public var isParameterSet: Bool { codec == .h264 ? (7...8).contains(type) : (32...34).contains(type) }
        /// A sequence-level parameter set (H.264 SPS; HEVC VPS or SPS): cameras send it with keyframes.
        public var isSequenceHeader: Bool { codec == .h264 ? type == 7 : (32...33).contains(type) }
    }

    /// Each unit of `packet` in order, reading no further than `limit` bytes, until `body` says
    /// stop (returns false).
    public func forEach(in packet: UnsafeRawBufferPointer, limit: Int = .max, _ body: (Unit) -> Bool) {
        let n = Swift.min(packet.count, limit)
        switch framing {
        case .lengthPrefixed(let size):
            var i = 0
            while i + size <= n {
                var length = 0
                for k in 0..<size { length = length << 8 | Int(packet[i + k]) }
                i += size
                guard length > 0, i + length <= n, let u = unit(packet, i..<(i + length)) else { return }
                guard body(u) else { return }
                i += length
            }
        case .annexB:
            // each unit runs from after its start code to the next start code (less the zero byte
            // of a 4-byte one) or to the end
            var start: Int?
            var i = 0
            while i + 2 < n {
                if packet[i] == 0, packet[i + 1] == 0, packet[i + 2] == 1 {
                    if let s = start, let u = unit(packet, s..<(i > s && packet[i - 1] == 0 ? i - 1 : i)), !body(u) { return }
                    start = i + 3
                    i += 3
                } else {
                    i += 1
                }
            }
            if let s = start, s < n, let u = unit(packet, s..<n) { _ = body(u) }
        }
    }

    /// The units of `packet`, all of them (`forEach` without stopping).
    public func units(in packet: UnsafeRawBufferPointer, limit: Int = .max) -> [Unit] {
        var out: [Unit] = []
        forEach(in: packet, limit: limit) {
            out.append($0)
            return true
        }
        return out
    }

    private func unit(_ p: UnsafeRawBufferPointer, _ r: Range<Int>) -> Unit? {
        guard !r.isEmpty else { return nil }
        let h = p[r.lowerBound]
        switch codec {
        case .h264: return Unit(bytes: r, type: Int(h & 0x1F), refIDC: Int(h >> 5 & 3), codec: .h264)
        case .hevc: return Unit(bytes: r, type: Int(h >> 1 & 0x3F), refIDC: nil, codec: .hevc)
        }
    }
}
