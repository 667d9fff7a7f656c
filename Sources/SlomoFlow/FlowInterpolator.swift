import CFlowAPI
import SlomoCore

/// Motion-compensated frames between two source frames (OpenCV's DIS optical flow both ways,
/// projected to each in-between time, warping and mixing: Sources/SlomoFlowCV). The flows are computed once per pair
/// (`setPair`); every in-between time of that pair is then a `render`. One per thread.
public final class FlowInterpolator {
    /// The frames' planar YUV layout.
    public struct Layout: Sendable, Equatable {
        public var width: Int, height: Int
        public var chromaShiftX: Int, chromaShiftY: Int
        public var bytesPerSample: Int, bitDepth: Int
        public init(width: Int, height: Int, chromaShiftX: Int, chromaShiftY: Int, bytesPerSample: Int, bitDepth: Int) {
            self.width = width
            self.height = height
            self.chromaShiftX = chromaShiftX
            self.chromaShiftY = chromaShiftY
            self.bytesPerSample = bytesPerSample
            self.bitDepth = bitDepth
        }
    }

    /// What the flows between a pair say about it.
    public struct PairInfo: Sendable, Equatable {
        /// Mean |Y1 − Y0| and the mean that remains after the flow (8-bit levels).
        public var meanDifference: Double, residual: Double
        /// No motion explains the change: a scene cut.
        public var isCut: Bool
    }

    /// One plane's first byte and line stride, three planes.
    public typealias Planes = [(UnsafePointer<UInt8>, Int)]
    public typealias MutablePlanes = [(UnsafeMutablePointer<UInt8>, Int)]

    let library: FlowLibrary
    let handle: UnsafeMutableRawPointer
    public let layout: Layout

    public init(layout: Layout, quality: FlowQuality, threads: Int) throws(FlowError) {
        library = try FlowLibrary.shared()
        self.layout = layout
        var l = slomo_flow_layout(
            width: Int32(layout.width), height: Int32(layout.height),
            chroma_shift_x: Int32(layout.chromaShiftX), chroma_shift_y: Int32(layout.chromaShiftY),
            bytes_per_sample: Int32(layout.bytesPerSample), bit_depth: Int32(layout.bitDepth))
        var error = [CChar](repeating: 0, count: 512)
        guard let h = library.create(&l, quality.level, Int32(threads), &error, Int32(error.count)) else {
            let why = Self.text(error)
            if layout.width < 16 || layout.height < 16 { throw .tooSmall(why) }
            throw .failed(why)
        }
        handle = h
    }

    deinit { library.destroy(handle) }

    /// Takes both frames (copied) and computes the flows between them.
    public func setPair(_ a: Planes, _ b: Planes) throws(FlowError) -> PairInfo {
        var fa = Self.frame(a), fb = Self.frame(b)
        var info = slomo_flow_pair_info()
        var error = [CChar](repeating: 0, count: 512)
        guard library.setPair(handle, &fa, &fb, &info, &error, Int32(error.count)) == 0 else { throw .failed(Self.text(error)) }
        return PairInfo(meanDifference: info.mean_difference, residual: info.residual, isCut: info.cut != 0)
    }

    /// The frame at `t` (0 < t < 1) between the pair.
    public func render(_ t: Double, into out: MutablePlanes) throws(FlowError) {
        var o = slomo_flow_output()
        withUnsafeMutableBytes(of: &o.data) { d in
            for i in 0..<3 {
                d.storeBytes(of: out[i].0, toByteOffset: i * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self)
            }
        }
        withUnsafeMutableBytes(of: &o.linesize) { d in for i in 0..<3 { d.storeBytes(of: Int32(out[i].1), toByteOffset: i * 4, as: Int32.self) } }
        var error = [CChar](repeating: 0, count: 512)
        guard library.render(handle, t, &o, &error, Int32(error.count)) == 0 else { throw .failed(Self.text(error)) }
    }

    /// A C string in a buffer, up to its NUL.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func frame(_ p: Planes) -> slomo_flow_frame {
        var f = slomo_flow_frame()
        withUnsafeMutableBytes(of: &f.data) { d in
            for i in 0..<3 { d.storeBytes(of: Optional(p[i].0), toByteOffset: i * MemoryLayout<UnsafePointer<UInt8>?>.stride, as: UnsafePointer<UInt8>?.self) }
        }
        withUnsafeMutableBytes(of: &f.linesize) { d in for i in 0..<3 { d.storeBytes(of: Int32(p[i].1), toByteOffset: i * 4, as: Int32.self) } }
        return f
    }
}

extension FlowQuality {
    /// The level libslomo-flow.so takes: DIS's presets ultrafast (0), fast (1), medium (2).
    var level: Int32 {
        switch self {
        case .fast: 0
        case .medium: 1
        case .fine: 2
        }
    }
}
