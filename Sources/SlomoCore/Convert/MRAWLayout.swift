/// A Photron MRAW take's layout (pure: text out, no I/O): `name.mraw` holds the frames back to back
/// with no header, each row after row, 8-bit samples or 16-bit little-endian words (what pyMRAW reads:
/// numpy's native `uint16`); `name.cihx` describes them in Photron's XML header, the fields pyMRAW
/// parses plus the frame numbering and colour filter. MRAW holds no frame's time: only the rate.
/// Docs/LabFormats.md lists every field written.
public struct MRAWLayout: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 8 or 16 (`colorInfo/bit`).
    public var bitsPerSample: Int
    /// Bits the camera filled (`effectiveBit/depth`, 10 or 12 in 16-bit words); they are the lower ones.
    public var effectiveBits: Int
    /// The colour filter (`RGGB`…), nil for gray: `colorInfo/type` Raw with its `bayerPattern`, else Mono.
    public var mosaic: String?
    /// Frames written (`totalFrame`, `recordedFrame`).
    public var totalFrames: Int
    /// The first frame's number from the trigger frame (`startFrame`; negative: pre-trigger frames,
    /// as Photron numbers them); the trigger frame is 0 (`correctTriggerFrame`).
    public var startFrame: Int
    /// Frames a second (`recordRate`); nil writes 0.
    public var frameRate: Rational?
    /// The first frame's UTC time (seconds since 1970), for `fileInfo/date` and `time`; nil leaves them empty.
    public var date: Rational?
    public var deviceName: String
    public var comment: String

    public init(
        width: Int, height: Int, bitsPerSample: Int, effectiveBits: Int, mosaic: String?, totalFrames: Int, startFrame: Int, frameRate: Rational?,
        date: Rational?, deviceName: String, comment: String
    ) {
        self.width = width
        self.height = height
        self.bitsPerSample = bitsPerSample
        self.effectiveBits = effectiveBits
        self.mosaic = mosaic
        self.totalFrames = totalFrames
        self.startFrame = startFrame
        self.frameRate = frameRate
        self.date = date
        self.deviceName = deviceName
        self.comment = comment
    }

    /// Bytes of one frame in the `.mraw`.
    public var frameBytes: Int { width * height * bitsPerSample / 8 }

    /// The `.cihx` text (UTF-8). `shutterSpeed` is the exposure as Photron writes it, the N of 1/N s:
    /// slomo does not measure exposure, so it is the frame rate (an exposure of one frame period).
    public var cihx: String {
        let rate = frameRate.map { Seconds($0, decimals: 6).description } ?? "0"
        let day = date.map { Self.civil($0) }
        var x = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<cih>\n"
        x += "<fileInfo><version>1</version><date>\(day?.date ?? "")</date><time>\(day?.time ?? "")</time></fileInfo>\n"
        x += "<deviceInfo><deviceName>\(Self.escaped(deviceName))</deviceName></deviceInfo>\n"
        x += "<recordInfo><recordRate>\(rate)</recordRate><shutterSpeed>\(rate)</shutterSpeed></recordInfo>\n"
        x += "<frameInfo><totalFrame>\(totalFrames)</totalFrame><recordedFrame>\(totalFrames)</recordedFrame>"
        x += "<startFrame>\(startFrame)</startFrame><correctTriggerFrame>0</correctTriggerFrame></frameInfo>\n"
        x += "<imageDataInfo><resolution><width>\(width)</width><height>\(height)</height></resolution>"
        x += "<colorInfo><type>\(mosaic == nil ? "Mono" : "Raw")</type><bit>\(bitsPerSample)</bit>"
        if let m = mosaic { x += "<bayerPattern>\(Self.escaped(m.uppercased()))</bayerPattern>" }
        x += "</colorInfo><effectiveBit><depth>\(effectiveBits)</depth><side>Lower</side></effectiveBit></imageDataInfo>\n"
        x += "<imageFileInfo><fileFormat>MRaw</fileFormat></imageFileInfo>\n"
        x += "<basicInfo><comment>\(Self.escaped(comment))</comment></basicInfo>\n</cih>\n"
        return x
    }

    /// XML text: `&`, `<`, `>` and quotes as entities.
    static func escaped(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// `YYYY/MM/DD` and `HH:MM:SS` of `t` seconds since 1970 UTC (the proleptic Gregorian calendar).
    static func civil(_ t: Rational) -> (date: String, time: String) {
        let s = t.floor
        var days = s / 86_400, rest = s % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        // days since 1970-01-01 to year, month, day (counted in 400-year eras from 0000-03-01)
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return ("\(y)/\(two(m))/\(two(d))", "\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))")
    }
}
