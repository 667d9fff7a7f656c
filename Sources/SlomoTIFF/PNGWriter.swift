internal import CPNG
import Glibc
import SlomoCore
import SlomoSystem

/// One picture's layout and text, as `PNGWriter` writes it: not interlaced, gray or RGB, 8 or 16
/// bits a sample (PNG stores 16-bit samples big-endian; the writer takes them little-endian).
public struct PNGImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (gray, colour type 0) or 3 (RGB, colour type 2).
    public var samplesPerPixel: Int
    /// 8 or 16.
    public var bitsPerSample: Int
    /// Bits the samples fill, from the lowest (12 for 12-bit samples held in 16). When fewer than
    /// `bitsPerSample`, an `sBIT` chunk gives them and each sample is scaled to the full depth as
    /// PNG requires (`v << 4 | v >> 8` for 12 in 16: `>> 4` gives it back exactly).
    public var significantBits: Int
    /// Text chunks in order: `tEXt` when the text is ASCII, `iTXt` (UTF-8) otherwise.
    public var text: [(keyword: String, text: String)]
    /// zlib's level, 0…9 (1: fast, what a frame sequence wants).
    public var compressionLevel = 1

    public init(width: Int, height: Int, samplesPerPixel: Int, bitsPerSample: Int, significantBits: Int, text: [(keyword: String, text: String)]) {
        self.width = width
        self.height = height
        self.samplesPerPixel = samplesPerPixel
        self.bitsPerSample = bitsPerSample
        self.significantBits = significantBits
        self.text = text
    }

    public static func == (a: PNGImage, b: PNGImage) -> Bool {
        (a.width, a.height, a.samplesPerPixel, a.bitsPerSample, a.significantBits, a.compressionLevel)
            == (b.width, b.height, b.samplesPerPixel, b.bitsPerSample, b.significantBits, b.compressionLevel)
            && a.text.map(\.keyword) == b.text.map(\.keyword) && a.text.map(\.text) == b.text.map(\.text)
    }
}

/// One PNG file being written (`png_structp` and `png_infop`, freed by `png_destroy_write_struct`,
/// and the `FILE *` under them, closed by `fclose`). `write` the picture, then `finish()`, which
/// flushes and closes the file; `deinit` frees a file never finished (the caller removes it).
/// The corresponding C functions are `png_create_write_struct`, `png_write_info`, `png_write_row`
/// and `png_write_end`.
public final class PNGWriter {
    /// The name errors give (the final name of a file written under a temporary one).
    public let path: String
    private var png: png_structp?
    private var info: png_infop?
    private var file: UnsafeMutablePointer<FILE>?

    /// Creates (or truncates) `file`; errors name it `shownAs` (default: `file`).
    public init(path name: String, shownAs: String? = nil) throws(ImageFileError) {
        path = shownAs ?? name
        png = slomo_png_create()
        info = png.flatMap { png_create_info_struct($0) }
        guard png != nil, info != nil else {
            throw ImageFileError(path: path, library: "libpng", operation: "png_create_write_struct", message: "out of memory", errnoCode: nil)
        }
        errno = 0
        file = fopen(name, "wb")
        if file == nil { throw failure("fopen") }
    }

    deinit {
        if let file { fclose(file) }
        if png != nil { png_destroy_write_struct(&png, &info) }
    }

    private func failure(_ operation: String) -> ImageFileError {
        let e = errno
        return ImageFileError(
            path: path, library: "libpng", operation: operation, message: String(cString: slomo_png_last_error()), errnoCode: e == 0 ? nil : e)
    }

    /// Writes the header, text and picture: `height` rows of `width * samplesPerPixel` samples,
    /// `bytesPerRow` apart from `rows` (little-endian 16-bit samples).
    public func write(_ image: PNGImage, rows: UnsafeRawPointer, bytesPerRow: Int) throws(ImageFileError) {
        guard let png, let info, let file else {
            throw ImageFileError(path: path, library: "libpng", operation: "write after finish", message: "", errnoCode: nil)
        }
        let bits = image.bitsPerSample
        let s = UInt8(clamping: image.significantBits)
        var significant = png_color_8(red: s, green: s, blue: s, gray: s, alpha: 0)
        let keys = image.text.map { UnsafePointer(strdup($0.keyword)) }, texts = image.text.map { UnsafePointer(strdup($0.text)) }
        defer { for p in keys + texts { free(UnsafeMutablePointer(mutating: p)) } }
        let itxt = image.text.map { $0.text.utf8.allSatisfy { $0 < 0x80 } ? Int32(0) : 1 }
        let colorType = image.samplesPerPixel == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB
        errno = 0
        let ok = withUnsafePointer(to: &significant) { sig in
            slomo_png_write_info(
                png, info, file, UInt32(image.width), UInt32(image.height), Int32(bits), colorType, image.significantBits < bits ? sig : nil,
                Int32(image.text.count), keys, texts, itxt, Int32(image.compressionLevel), bits == 16 ? 1 : 0)
        }
        guard ok == 1 else { throw failure("png_write_info") }
        for y in 0..<image.height {
            guard slomo_png_write_row(png, rows + y * bytesPerRow) == 1 else { throw failure("png_write_row") }
        }
        guard slomo_png_write_end(png, info) == 1 else { throw failure("png_write_end") }
    }

    /// Flushes and closes the file (a failure names the call; the file is then incomplete).
    public func finish() throws(ImageFileError) {
        guard let f = file else { return }
        file = nil
        errno = 0
        let flushed = fflush(f) == 0
        let error = flushed ? nil : failure("fflush")
        let closed = fclose(f) == 0
        if let error { throw error }
        if !closed { throw failure("fclose") }
    }
}
