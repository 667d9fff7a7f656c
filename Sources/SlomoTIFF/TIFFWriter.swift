internal import CTIFF
import Glibc
import SlomoCore
import SlomoSystem

/// One picture's layout and tags, as `TIFFWriter` writes them: uncompressed, one strip,
/// little-endian, interleaved samples (baseline TIFF 6.0, what every reader opens).
public struct TIFFPage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (gray, PhotometricInterpretation BlackIsZero) or 3 (RGB).
    public var samplesPerPixel: Int
    /// 8 or 16.
    public var bitsPerSample: Int
    /// ImageDescription (270): free text (slomo writes the frame's times there as JSON).
    public var description: String
    /// Software (305).
    public var software: String
    /// DocumentName (269): the source, when given.
    public var documentName: String?
    /// PageName (285), when given.
    public var pageName: String?
    /// A DNG's tags: the picture is then one sensor mosaic (PhotometricInterpretation CFA, 32803).
    public var dng: DNGFrame?

    public init(
        width: Int, height: Int, samplesPerPixel: Int, bitsPerSample: Int, description: String, software: String,
        documentName: String? = nil, pageName: String? = nil
    ) {
        self.width = width
        self.height = height
        self.samplesPerPixel = samplesPerPixel
        self.bitsPerSample = bitsPerSample
        self.description = description
        self.software = software
        self.documentName = documentName
        self.pageName = pageName
    }

    /// Bytes of one packed row.
    public var rowBytes: Int { width * samplesPerPixel * bitsPerSample / 8 }
}

/// One TIFF file being written (`TIFF *`, freed by `TIFFClose`). `write` the picture, then
/// `finish()`, which writes the directory and closes the file; `deinit` closes a file never
/// finished (the caller removes it). The corresponding C functions are `TIFFOpen`,
/// `TIFFSetField`, `TIFFWriteEncodedStrip`, `TIFFWriteDirectory` and `TIFFClose`.
public final class TIFFWriter {
    /// The name errors give (the final name of a file written under a temporary one).
    public let path: String
    private var tif: OpaquePointer?

    /// Creates (or truncates) `file`, little-endian ("wl"); errors name it `shownAs` (default: `file`).
    public init(path file: String, shownAs: String? = nil) throws(ImageFileError) {
        path = shownAs ?? file
        slomo_tiff_install_handlers()
        slomo_tiff_clear_error()
        errno = 0
        tif = TIFFOpen(file, "wl")
        if tif == nil { throw failure("TIFFOpen") }
    }

    deinit { if let tif { TIFFClose(tif) } }

    private func failure(_ operation: String) -> ImageFileError {
        let e = errno
        return ImageFileError(
            path: path, library: "libtiff", operation: operation, message: String(cString: slomo_tiff_last_error()), errnoCode: e == 0 ? nil : e)
    }

    /// Writes the tags and the picture: `height` rows of `page.rowBytes` bytes, `bytesPerRow` apart
    /// from `rows` (little-endian 16-bit samples).
    public func write(_ page: TIFFPage, rows: UnsafeRawPointer, bytesPerRow: Int) throws(ImageFileError) {
        guard let tif else { throw ImageFileError(path: path, library: "libtiff", operation: "write after finish", message: "", errnoCode: nil) }
        let u16: [(UInt32, Int)] = [
            (UInt32(TIFFTAG_BITSPERSAMPLE), page.bitsPerSample), (UInt32(TIFFTAG_SAMPLESPERPIXEL), page.samplesPerPixel),
            (UInt32(TIFFTAG_PHOTOMETRIC), page.dng != nil ? 32803 : page.samplesPerPixel == 1 ? Int(PHOTOMETRIC_MINISBLACK) : Int(PHOTOMETRIC_RGB)),
            (UInt32(TIFFTAG_PLANARCONFIG), Int(PLANARCONFIG_CONTIG)), (UInt32(TIFFTAG_COMPRESSION), Int(COMPRESSION_NONE)),
            (UInt32(TIFFTAG_ORIENTATION), Int(ORIENTATION_TOPLEFT)), (UInt32(TIFFTAG_SAMPLEFORMAT), Int(SAMPLEFORMAT_UINT)),
            (UInt32(TIFFTAG_RESOLUTIONUNIT), Int(RESUNIT_NONE)),
        ]
        var ok = slomo_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGEWIDTH), UInt32(page.width)) == 1
        ok = ok && slomo_tiff_set_u32(tif, UInt32(TIFFTAG_IMAGELENGTH), UInt32(page.height)) == 1
        ok = ok && slomo_tiff_set_u32(tif, UInt32(TIFFTAG_ROWSPERSTRIP), UInt32(page.height)) == 1
        for (tag, value) in u16 where ok { ok = slomo_tiff_set_u16(tif, tag, UInt16(value)) == 1 }
        ok = ok && slomo_tiff_set_rational(tif, UInt32(TIFFTAG_XRESOLUTION), 1) == 1
        ok = ok && slomo_tiff_set_rational(tif, UInt32(TIFFTAG_YRESOLUTION), 1) == 1
        let texts: [(Int32, String?)] = [
            (TIFFTAG_IMAGEDESCRIPTION, page.description), (TIFFTAG_SOFTWARE, page.software),
            (TIFFTAG_DOCUMENTNAME, page.documentName), (TIFFTAG_PAGENAME, page.pageName),
        ]
        for (tag, text) in texts where ok { if let text { ok = slomo_tiff_set_string(tif, UInt32(tag), text) == 1 } }
        if ok, let dng = page.dng { ok = Self.setDNG(tif, dng) }
        guard ok else { throw failure("TIFFSetField") }
        // a DNG's directory before its picture, where raw readers look first: dcraw 9.28 stops with
        // "Unexpected end of file" on a directory after the picture (libtiff's default; libraw reads both)
        if page.dng != nil { guard TIFFCheckpointDirectory(tif) == 1 else { throw failure("TIFFCheckpointDirectory") } }
        let row = page.rowBytes
        errno = 0
        if bytesPerRow == row {
            let size = row * page.height
            guard TIFFWriteEncodedStrip(tif, 0, UnsafeMutableRawPointer(mutating: rows), tmsize_t(size)) == size else {
                throw failure("TIFFWriteEncodedStrip")
            }
        } else {
            for y in 0..<page.height {
                guard TIFFWriteScanline(tif, UnsafeMutableRawPointer(mutating: rows + y * bytesPerRow), UInt32(y), 0) == 1 else {
                    throw failure("TIFFWriteScanline")
                }
            }
        }
    }

    /// A DNG's own tags (DNG 1.4, CinemaDNG): version, CFA layout and pattern, levels, camera, an
    /// identity colour matrix under D65 with a neutral white (the colour response is not known), the
    /// frame rate and time code. False when libtiff refused one.
    private static func setDNG(_ tif: OpaquePointer, _ d: DNGFrame) -> Bool {
        var ok = slomo_tiff_register_cinemadng(tif) >= 0
        let version: [UInt8] = [1, 4, 0, 0], backward: [UInt8] = [1, 1, 0, 0], repeatDim: [UInt16] = [2, 2]
        ok = ok && slomo_tiff_set_array(tif, UInt32(TIFFTAG_DNGVERSION), version) == 1
        ok = ok && slomo_tiff_set_array(tif, UInt32(TIFFTAG_DNGBACKWARDVERSION), backward) == 1
        ok = ok && slomo_tiff_set_string(tif, UInt32(TIFFTAG_UNIQUECAMERAMODEL), d.cameraModel) == 1
        ok = ok && slomo_tiff_set_array(tif, UInt32(TIFFTAG_CFAREPEATPATTERNDIM), repeatDim) == 1
        ok = ok && slomo_tiff_set_counted(tif, UInt32(TIFFTAG_CFAPATTERN), UInt16(d.cfaPattern.count), d.cfaPattern) == 1
        let black: [Float] = [Float(d.blackLevel)], white: [UInt32] = [UInt32(d.whiteLevel)]
        ok = ok && slomo_tiff_set_counted(tif, UInt32(TIFFTAG_BLACKLEVEL), 1, black) == 1
        ok = ok && slomo_tiff_set_counted(tif, UInt32(TIFFTAG_WHITELEVEL), 1, white) == 1
        let matrix: [Float] = [1, 0, 0, 0, 1, 0, 0, 0, 1], neutral: [Float] = [1, 1, 1]
        ok = ok && slomo_tiff_set_counted(tif, UInt32(TIFFTAG_COLORMATRIX1), 9, matrix) == 1
        ok = ok && slomo_tiff_set_counted(tif, UInt32(TIFFTAG_ASSHOTNEUTRAL), 3, neutral) == 1
        ok = ok && slomo_tiff_set_u16(tif, UInt32(TIFFTAG_CALIBRATIONILLUMINANT1), 21) == 1  // D65
        ok = ok && slomo_tiff_set_counted(tif, 51043, UInt16(d.timeCode.count), d.timeCode) == 1
        // libtiff takes a rational as a double: the rate's nearest
        if ok, let r = d.frameRate { ok = slomo_tiff_set_rational(tif, 51044, r.doubleValue) == 1 }
        return ok
    }

    /// Writes the directory and closes the file (a failure names the call; the file is then incomplete).
    public func finish() throws(ImageFileError) {
        guard let t = tif else { return }
        errno = 0
        let written = TIFFWriteDirectory(t) == 1
        let error = written ? nil : failure("TIFFWriteDirectory")
        tif = nil
        TIFFClose(t)
        if let error { throw error }
    }
}
