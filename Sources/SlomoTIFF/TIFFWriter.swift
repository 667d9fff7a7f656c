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

/// A libtiff call that failed: the file, the call, libtiff's message and the system's errno when a
/// write failed (`frame_000012.tiff: TIFFWriteEncodedStrip failed: No space left on device (ENOSPC)`).
public struct TIFFError: SlomoFailure, Equatable {
    public var path: String
    public var operation: String
    /// libtiff's own message ("" when it gave none).
    public var message: String
    public var errnoCode: Int32?

    public var systemErrno: Int32? { errnoCode }
    public var kind: FailureKind {
        switch errnoCode {
        case ENOENT, ENOTDIR, EACCES, EROFS, EEXIST, EISDIR: return .cannotCreate
        case .some: return .ioFailed
        case nil: return .bug
        }
    }
    public var wording: Wording {
        // the system's words when a system call failed (libtiff's own then only repeats it)
        let detail = errnoCode.map { Errno($0).description } ?? (message.isEmpty ? "" : "libtiff: \(message)")
        return Wording(verbatim: "\(path): \(operation) failed\(detail.isEmpty ? "" : ": " + detail)")
    }
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
    public init(path file: String, shownAs: String? = nil) throws(TIFFError) {
        path = shownAs ?? file
        slomo_tiff_install_handlers()
        slomo_tiff_clear_error()
        errno = 0
        tif = TIFFOpen(file, "wl")
        if tif == nil { throw failure("TIFFOpen") }
    }

    deinit { if let tif { TIFFClose(tif) } }

    private func failure(_ operation: String) -> TIFFError {
        let e = errno
        return TIFFError(path: path, operation: operation, message: String(cString: slomo_tiff_last_error()), errnoCode: e == 0 ? nil : e)
    }

    /// Writes the tags and the picture: `height` rows of `page.rowBytes` bytes, `bytesPerRow` apart
    /// from `rows` (little-endian 16-bit samples).
    public func write(_ page: TIFFPage, rows: UnsafeRawPointer, bytesPerRow: Int) throws(TIFFError) {
        guard let tif else { throw TIFFError(path: path, operation: "write after finish", message: "", errnoCode: nil) }
        let u16: [(UInt32, Int)] = [
            (UInt32(TIFFTAG_BITSPERSAMPLE), page.bitsPerSample), (UInt32(TIFFTAG_SAMPLESPERPIXEL), page.samplesPerPixel),
            (UInt32(TIFFTAG_PHOTOMETRIC), page.samplesPerPixel == 1 ? Int(PHOTOMETRIC_MINISBLACK) : Int(PHOTOMETRIC_RGB)),
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
        guard ok else { throw failure("TIFFSetField") }
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

    /// Writes the directory and closes the file (a failure names the call; the file is then incomplete).
    public func finish() throws(TIFFError) {
        guard let t = tif else { return }
        errno = 0
        let written = TIFFWriteDirectory(t) == 1
        let error = written ? nil : failure("TIFFWriteDirectory")
        tif = nil
        TIFFClose(t)
        if let error { throw error }
    }
}
