import SlomoCore
import Testing

/// Which lab outputs hold which samples (`LabSamples.check(fits:)`): the PNG refusals, one of
/// which (samples of more bits than the PNG's depth) no source reaches from the command line.
@Suite struct LabSamplesTests {
    static func refusal(_ s: LabSamples, _ out: String, mosaic: String? = nil) -> String? {
        do throws(LabOutputError) {
            try s.check(fits: try LabOutput(parsing: out), path: out, mosaic: mosaic)
            return nil
        } catch { return error.description }
    }

    @Test func aPNGPatternIsASequence() throws {
        let o = try LabOutput(parsing: "d/f_%04d.PNG")
        #expect(o == .pngSequence(ImageSequenceName(directory: "d", prefix: "f_", digits: 4, suffix: ".PNG")) && o.formatName == "png")
        #expect(o.sequence?.path(7) == "d/f_0007.PNG" && o.sequence?.framesTable == "d/frames.csv")
        #expect(throws: LabOutputError.self) { try LabOutput(parsing: "d/f.png") }
        #expect(LabOutput.isLabName("f_%06d.png"))
    }

    @Test(arguments: [("gray", 8), ("gray10le", 10), ("gray12le", 12), ("gray16le", 16), ("rgb24", 8), ("rgb48le", 16), ("yuv420p", 8), ("gbrp16le", 16)])
    func grayAndRGBFitAPNG(pixelFormat: String, bits: Int) {
        #expect(Self.refusal(LabSamples(pixelFormat: pixelFormat, bitDepth: bits), "f_%06d.png") == nil)
    }

    /// A mosaic, tagged (slomo's recordings hold one as gray) or FFmpeg's own, is refused naming DNG and TIFF.
    @Test(arguments: [("gray", "RGGB"), ("gray16le", "bggr"), ("bayer_rggb8", nil), ("bayer_grbg16le", nil)] as [(String, String?)])
    func aMosaicIsRefusedNamingDNG(pixelFormat: String, mosaic: String?) throws {
        let line = try #require(Self.refusal(LabSamples(pixelFormat: pixelFormat, bitDepth: 8), "d/f_%06d.png", mosaic: mosaic))
        for part in ["d/f_%06d.png: ", "sensor mosaic", pixelFormat, "gray picture", "name_%06d.dng", "name_%06d.tiff"] {
            #expect(line.contains(part), "\(line)")
        }
        #expect(!line.contains("\n") && (mosaic.map { line.contains($0.uppercased()) } ?? true), "\(line)")
    }

    /// 12-bit samples in an 8-bit layout (the "12-bit into 8-bit PNG"), and more bits than any PNG holds.
    @Test func moreSignificantBitsThanTheDepthAreRefused() throws {
        var s = LabSamples(pixelFormat: "gray12le", bitDepth: 12)
        s.format = .gray8
        let line = try #require(Self.refusal(s, "f_%06d.png"))
        #expect(
            line
                == "f_%06d.png: the samples have 12 significant bits (gray12le) and this PNG would hold 8: a 16-bit PNG holds them: write from samples held in 16 bits (gray16, rgb48)"
        )
        let float = LabSamples(pixelFormat: "gbrpf32le", bitDepth: 32)
        #expect(Self.refusal(float, "f_%06d.png")?.contains("32 significant bits (gbrpf32le) and this PNG would hold 16: no PNG holds more than 16") == true)
    }
}
