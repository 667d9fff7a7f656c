/// Reading a Photron `.cihx` (the reader's side of ``MRAWLayout``; pure: text in, layout out): the
/// XML between `<cih>` and `</cih>` (a camera's file has bytes before it), each field found by its
/// path as Photron nests them. What slomo reads back of a take: size, depth, colour filter, frame
/// count, first frame from the trigger, rate and the first frame's date and time.
extension MRAWLayout {
    /// Why a `.cihx` cannot describe frames slomo reads: one phrase, naming what would work.
    public struct HeaderFailure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Reads `text` (the `.cihx` file). Refused: no `<cih>` element, a missing or non-numeric size,
    /// depth or rate, a file format other than MRaw, 12-bit packed samples, colour frames.
    public init(cihx text: String) throws(HeaderFailure) {
        guard let open = text.firstRange(of: "<cih>"), let close = text[open.upperBound...].firstRange(of: "</cih>") else {
            throw HeaderFailure("no <cih> header (not a Photron .cihx)")
        }
        let xml = text[open.upperBound..<close.lowerBound]
        func field(_ path: String) -> String? { Self.field(path.split(separator: "/").map(String.init), in: xml) }
        func number(_ path: String) throws(HeaderFailure) -> Int {
            guard let v = field(path), let n = Int(v) else {
                throw HeaderFailure("\(path) is \(field(path).map { "'\($0)'" } ?? "missing"), not a whole number")
            }
            return n
        }
        let format = field("imageFileInfo/fileFormat") ?? "MRaw"
        guard format.lowercased() == "mraw" else { throw HeaderFailure("its frames are stored as \(format); slomo reads MRaw") }
        let bits = try number("imageDataInfo/colorInfo/bit")
        guard bits == 8 || bits == 16 else {
            throw HeaderFailure("\(bits)-bit packed samples; slomo reads 8- and 16-bit MRAW (save the take from PFV as 16 bits)")
        }
        let type = field("imageDataInfo/colorInfo/type") ?? "Mono"
        let mosaic: String?
        switch type.lowercased() {
        case "mono": mosaic = nil
        case "raw": mosaic = (field("imageDataInfo/colorInfo/bayerPattern") ?? "RGGB").uppercased()
        default: throw HeaderFailure("colour type \(type); slomo reads Mono and Raw (Bayer) MRAW")
        }
        guard let rateText = field("recordInfo/recordRate"), let rate = try? Rational(parsing: Substring(rateText)) else {
            throw HeaderFailure("recordInfo/recordRate is \(field("recordInfo/recordRate").map { "'\($0)'" } ?? "missing"), not a frame rate")
        }
        let width = try number("imageDataInfo/resolution/width"), height = try number("imageDataInfo/resolution/height")
        guard width > 0, height > 0, width <= 1 << 16, height <= 1 << 16 else { throw HeaderFailure("a frame size of \(width)x\(height)") }
        self.init(
            width: width, height: height, bitsPerSample: bits, effectiveBits: Int(field("imageDataInfo/effectiveBit/depth") ?? "") ?? bits,
            mosaic: mosaic, totalFrames: Int(field("frameInfo/totalFrame") ?? "") ?? 0, startFrame: Int(field("frameInfo/startFrame") ?? "") ?? 0,
            frameRate: rate.isPositive ? rate : nil,
            date: Self.utc(date: field("fileInfo/date") ?? "", time: field("fileInfo/time") ?? ""),
            deviceName: field("deviceInfo/deviceName") ?? "", comment: field("basicInfo/comment") ?? "")
    }

    /// The text of the element at `path` (each name looked up inside the one before), trimmed.
    static func field(_ path: [String], in xml: Substring) -> String? {
        var scope = xml
        for name in path {
            guard let a = scope.firstRange(of: "<\(name)>"), let b = scope[a.upperBound...].firstRange(of: "</\(name)>") else { return nil }
            scope = scope[a.upperBound..<b.lowerBound]
        }
        var text = String(scope.trimmingSpaces)
        for (entity, c) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] where text.contains(entity) {
            text = text.replacing(entity, with: c)
        }
        return text
    }

    /// Seconds since 1970 UTC of `YYYY/MM/DD` and `HH:MM:SS` (what `MRAWLayout.civil` writes); nil unless both read.
    static func utc(date: String, time: String) -> Rational? {
        let d = date.split(separator: "/").compactMap { Int64($0) }, t = time.split(separator: ":").compactMap { Int64($0) }
        guard d.count == 3, t.count == 3, (1...12).contains(d[1]), (1...31).contains(d[2]) else { return nil }
        // days from 1970-01-01 (the inverse of `civil`, in 400-year eras from 0000-03-01)
        let y = d[1] <= 2 ? d[0] - 1 : d[0], m = d[1], day = d[2]
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Rational(days * 86_400 + t[0] * 3600 + t[1] * 60 + t[2])
    }
}
