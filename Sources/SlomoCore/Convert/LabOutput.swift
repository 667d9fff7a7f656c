/// What `slomo convert` writes, chosen by the output's name: an image sequence (`DIR/` or a name
/// with a frame-number pattern such as `name_%06d.tiff`) or one HDF5 file (`.h5`). Pure: the
/// caller says whether the name is an existing directory.
public enum LabOutput: Sendable, Equatable {
    /// One TIFF per frame, numbered from 0 in the output's order.
    case tiffSequence(ImageSequenceName)
    /// One HDF5 file (Docs/LabFormats.md gives its layout).
    case hdf5(path: String)
    /// One Phantom Cine file (`CineLayout`).
    case cine(path: String)
    /// One DNG per frame (a CinemaDNG sequence) of a sensor mosaic (`DNGFrame`).
    case dngSequence(ImageSequenceName)
    /// A Photron MRAW take: `path` (`.mraw`, the frames) and its `.cihx` header (`MRAWLayout`).
    case mraw(path: String)
    /// One PNG per frame (gray or RGB, 8 or 16 bits), the frame's times in its text chunks.
    case pngSequence(ImageSequenceName)

    /// The names of a sequence's files; nil for a single file.
    public var sequence: ImageSequenceName? {
        switch self {
        case .tiffSequence(let n), .dngSequence(let n), .pngSequence(let n): return n
        case .hdf5, .cine, .mraw: return nil
        }
    }

    /// The container's name as reports and errors give it.
    public var formatName: String {
        switch self {
        case .tiffSequence: return "tiff"
        case .hdf5: return "hdf5"
        case .cine: return "cine"
        case .dngSequence: return "dng"
        case .mraw: return "mraw"
        case .pngSequence: return "png"
        }
    }

    /// What `-o` may be, for refusals.
    public static let accepted =
        "a directory DIR/ (TIFF frames), a TIFF pattern name_%06d.tiff, an HDF5 file name.h5, a Phantom Cine file name.cine, a Photron take name.mraw (with name.cihx), a DNG pattern name_%06d.dng (mosaics) or a PNG pattern name_%06d.png (gray or RGB)"

    /// Reads `-o`: a name ending in `/`, or an existing directory, is a TIFF sequence inside it
    /// (`frame_000000.tiff`…); `.tif`/`.tiff` with one `%d`/`%0Nd` is a TIFF sequence by that pattern;
    /// `.h5`/`.hdf5` is HDF5; `.cine` Phantom Cine; `.mraw` Photron MRAW; `.dng` with a `%d` a DNG sequence; `.png` with a `%d` a PNG sequence.
    public init(parsing path: String, isDirectory: Bool = false) throws(LabOutputError) {
        guard !path.isEmpty else { throw LabOutputError(path, "an empty output name: expected \(Self.accepted)") }
        if path.hasSuffix("/") || isDirectory {
            var dir = path
            while dir.count > 1, dir.hasSuffix("/") { dir.removeLast() }
            self = .tiffSequence(ImageSequenceName(directory: dir, prefix: "frame_", digits: 6, suffix: ".tiff"))
            return
        }
        let ext = Self.fileExtension(path)
        switch ext {
        case "h5", "hdf5":
            self = .hdf5(path: path)
        case "cine":
            self = .cine(path: path)
        case "tif", "tiff":
            self = .tiffSequence(try ImageSequenceName(pattern: path))
        case "dng":
            self = .dngSequence(try ImageSequenceName(pattern: path))
        case "mraw":
            self = .mraw(path: path)
        case "png":
            self = .pngSequence(try ImageSequenceName(pattern: path))
        default:
            throw LabOutputError(path, "not an output slomo convert writes: expected \(Self.accepted)")
        }
    }

    /// Whether `path` names a lab output rather than a video container: a directory (`DIR/`, or
    /// one that exists) or a lab extension. Capture and serve choose their writer by it.
    public static func isLabName(_ path: String, isDirectory: Bool = false) -> Bool {
        path.hasSuffix("/") || isDirectory || labExtensions.contains(fileExtension(path))
    }
    /// The `.cihx` beside a `.mraw`: the same name, its extension replaced.
    public static func cihxPath(_ mraw: String) -> String {
        let ext = fileExtension(mraw)
        return ext.isEmpty ? mraw + ".cihx" : String(mraw.dropLast(ext.count)) + "cihx"
    }
    static let labExtensions: Set<String> = ["h5", "hdf5", "cine", "tif", "tiff", "dng", "mraw", "png"]

    /// The lower-cased extension of the last path component ("" when none).
    static func fileExtension(_ path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }
}

/// An image sequence's names: `directory/prefix` + the frame number zero-padded to `digits` + `suffix`.
public struct ImageSequenceName: Sendable, Equatable, CustomStringConvertible {
    /// The directory ("." for the current one), without a trailing slash.
    public var directory: String
    public var prefix: String
    public var digits: Int
    public var suffix: String

    public init(directory: String, prefix: String, digits: Int, suffix: String) {
        self.directory = directory
        self.prefix = prefix
        self.digits = digits
        self.suffix = suffix
    }

    /// Parses `dir/name_%06d.tiff` (`%d` is `%01d`): exactly one number pattern, in the file's name.
    public init(pattern path: String) throws(LabOutputError) {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let parts = name.split(separator: "%", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw LabOutputError(path, "a sequence needs one frame number in its name: name_%06d.tiff, name_%06d.png or name_%06d.dng, or a directory DIR/")
        }
        let spec = parts[1]
        guard let d = spec.firstIndex(of: "d") else {
            throw LabOutputError(path, "'%\(spec)' is not a frame number: use %d or %06d")
        }
        let width = spec[..<d]
        guard width.allSatisfy({ $0.isASCII && $0.isNumber }), width.count <= 2, width.isEmpty || width.first == "0" || width.count == 1,
            let n = width.isEmpty ? 1 : Int(width), n >= 1, n <= 12
        else { throw LabOutputError(path, "'%\(spec[...d])' is not a frame number: use %d or %06d (at most 12 digits)") }
        self.init(directory: dir.isEmpty ? "/" : dir, prefix: String(parts[0]), digits: n, suffix: String(spec[spec.index(after: d)...]))
    }

    /// Frame `n`'s file name, with its directory.
    public func path(_ n: Int) -> String {
        let number = String(n)
        let padded = number.count < digits ? String(repeating: "0", count: digits - number.count) + number : number
        return (directory == "/" ? "/" : directory + "/") + prefix + padded + suffix
    }

    /// The frame table beside the sequence: `frames.csv` in its directory.
    public var framesTable: String { (directory == "/" ? "/" : directory + "/") + "frames.csv" }

    /// `dir/name_%06d.tiff`, as a user writes it.
    public var description: String { (directory == "/" ? "/" : directory + "/") + prefix + "%0\(digits)d" + suffix }
}

/// `-o` names nothing slomo convert writes, or a format that cannot hold the source.
public struct LabOutputError: SlomoFailure, Equatable {
    public var path: String
    public var reason: String
    public init(_ path: String, _ reason: String) {
        self.path = path
        self.reason = reason
    }
    public var kind: FailureKind { .badRequest }
    public var wording: Wording { Wording(verbatim: "\(path): \(reason)") }
}
