/// The samples a lab file holds for each frame: gray or RGB, 8 or 16 bits a sample.
public enum LabSampleFormat: String, Sendable, Codable, CaseIterable {
    case gray8, gray16, rgb8, rgb16

    public var channels: Int { self == .gray8 || self == .gray16 ? 1 : 3 }
    public var bitsPerSample: Int { self == .gray8 || self == .rgb8 ? 8 : 16 }
    public var bytesPerPixel: Int { channels * bitsPerSample / 8 }
    public var isGray: Bool { channels == 1 }
    /// FFmpeg's name of the same layout (little-endian words, RGB interleaved).
    public var ffmpegName: String {
        switch self {
        case .gray8: return "gray"
        case .gray16: return "gray16le"
        case .rgb8: return "rgb24"
        case .rgb16: return "rgb48le"
        }
    }
}

/// How a source's decoded pictures become a lab file's samples (pure: FFmpeg's pixel format name
/// and bit depth in, the layout and what happens to the values out).
public struct LabSamples: Sendable, Equatable {
    /// How the values relate to the decoded picture's.
    public enum Fidelity: String, Sendable, Codable {
        /// Each sample as decoded, byte for byte.
        case same
        /// The same values in another order or byte order (BGR → RGB, big- → little-endian, alpha dropped).
        case rearranged
        /// Converted to RGB (a YUV picture): not the source's samples.
        case converted
    }
    public var format: LabSampleFormat
    /// Bits the camera filled in each sample (10 for gray10le held in 16 bits, as it gave them: not shifted).
    public var significantBits: Int
    public var fidelity: Fidelity
    /// The source's own pixel format, as FFmpeg names it.
    public var source: String

    /// Gray formats (and Bayer mosaics, stored undebayered as gray) keep their samples; RGB keeps
    /// them reordered; anything else (YUV) is converted to RGB at its depth.
    public init(pixelFormat name: String, bitDepth: Int) {
        source = name
        let depth = bitDepth > 0 ? bitDepth : 8
        significantBits = depth
        let big = name.hasSuffix("be")
        if name == "gray" || name.hasPrefix("bayer_") && !name.hasSuffix("16le") && !name.hasSuffix("16be") {
            format = .gray8
            fidelity = .same
            // FFmpeg gives a mosaic's components the depth of its 2x2 cell's share (2 for bayer_rggb8)
            if name.hasPrefix("bayer_") { significantBits = 8 }
        } else if name.hasPrefix("gray") && !name.hasPrefix("grayf") || name.hasPrefix("bayer_") {
            format = depth > 8 ? .gray16 : .gray8
            fidelity = big ? .rearranged : .same
            if name.hasPrefix("bayer_") { significantBits = depth > 8 ? 16 : 8 }
        } else if name == "ya8" || name == "ya16le" || name == "ya16be" {
            format = depth > 8 ? .gray16 : .gray8
            fidelity = .rearranged
        } else if name == "rgb24" || name == "rgb48le" {
            format = depth > 8 ? .rgb16 : .rgb8
            fidelity = .same
        } else if Self.rgbOrders.contains(where: { name.hasPrefix($0) }) {
            format = depth > 8 ? .rgb16 : .rgb8
            fidelity = .rearranged
        } else {
            format = depth > 8 ? .rgb16 : .rgb8
            fidelity = .converted
            significantBits = format.bitsPerSample
        }
    }

    /// Packed and planar RGB layouts whose values survive a reorder into rgb24/rgb48le.
    static let rgbOrders = ["rgb", "bgr", "rgba", "bgra", "argb", "abgr", "0rgb", "0bgr", "rgb0", "bgr0", "gbrp", "gbrap"]

    /// Refuses a container that cannot hold these samples (`mosaic`: the source's colour filter,
    /// `RGGB`), naming what would.
    public func check(fits output: LabOutput, path: String, mosaic: String? = nil) throws(LabOutputError) {
        if case .dngSequence = output, mosaic.flatMap({ DNGFrame.cfaPattern($0) }) == nil || !format.isGray {
            throw LabOutputError(
                path,
                "the frames are not a sensor mosaic (\(source)\(mosaic.map { ", \($0)" } ?? "")) and DNG holds mosaics: write a TIFF sequence instead (DIR/ or name_%06d.tiff)"
            )
        }
        if case .cine = output {
            guard format.isGray else {
                throw LabOutputError(
                    path, "the frames are colour (\(source)) and slomo writes .cine gray or CFA only: write a TIFF sequence instead (DIR/ or name_%06d.tiff)")
            }
            if let m = mosaic?.uppercased(), CineLayout.cfaCodes[m] == nil {
                let names = CineLayout.cfaCodes.keys.sorted().joined(separator: " or ")
                throw LabOutputError(
                    path, "the frames are a \(m) mosaic and slomo's .cine names \(names) only: write a TIFF sequence or name.h5 instead")
            }
        }
        if case .mraw = output, !format.isGray {
            throw LabOutputError(
                path,
                "the frames are colour (\(source)) and .mraw holds gray or a raw Bayer mosaic only: write a TIFF sequence instead (DIR/ or name_%06d.tiff)")
        }
        if case .pngSequence = output { try checkPNG(path: path, mosaic: mosaic) }
        if case .hdf5 = output, !format.isGray {
            throw LabOutputError(
                path,
                "the frames are colour (\(source)) and slomo's .h5 layout holds gray frames only: write a TIFF sequence instead (DIR/ or name_%06d.tiff)"
            )
        }
    }

    /// A PNG holds gray or RGB pictures of `format.bitsPerSample` bits: a sensor mosaic (tagged, or
    /// FFmpeg's `bayer_*`) would read as a gray picture without its pattern, and samples of more
    /// significant bits than that depth would lose some.
    private func checkPNG(path: String, mosaic: String?) throws(LabOutputError) {
        if mosaic != nil || source.hasPrefix("bayer_") {
            let what = mosaic.map { "\($0.uppercased()), \(source)" } ?? source
            throw LabOutputError(
                path,
                "the frames are a sensor mosaic (\(what)) and a PNG would show the mosaic as a gray picture and drop its pattern: write a DNG sequence (name_%06d.dng) or a TIFF sequence (DIR/ or name_%06d.tiff)"
            )
        }
        let depth = format.bitsPerSample
        if significantBits > depth {
            let instead =
                depth < 16 ? "a 16-bit PNG holds them: write from samples held in 16 bits (gray16, rgb48)" : "no PNG holds more than 16: keep name.mkv"
            throw LabOutputError(path, "the samples have \(significantBits) significant bits (\(source)) and this PNG would hold \(depth): \(instead)")
        }
    }
}
