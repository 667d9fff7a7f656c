import Foundation
import SlomoCore
import SlomoFFmpeg

/// Every parser of untrusted text or headers, driven by one input: what the fuzz targets
/// (Tests/Fuzz) run under libFuzzer and the tests replay their seeds and findings through.
/// Errors are refusals and are fine; only a crash, leak or hang is a finding.
public enum ParserHarness {
    /// A batch manifest: the first byte picks JSON, YAML or CSV, the rest is its text.
    public static func manifest(_ bytes: Data) -> Bool {
        guard let first = bytes.first else { return false }
        let format = ["json", "yaml", "csv"][Int(first) % 3]
        return (try? Manifest.parse(Data(bytes.dropFirst()), format: format, path: "fuzz.\(format)")) != nil
    }

    /// A saved v4l2-ctl listing read both ways: formats (then the selection) and controls.
    public static func listing(_ text: String) -> (formats: Bool, controls: Bool) {
        var formats = false, controls = false
        if let catalog = try? ListingParser.parse(text) {
            _ = FormatSelection.best(in: catalog, for: ModeRequest())
            formats = true
        }
        if let list = try? ControlListing.parse(text) {
            for c in list {
                _ = c.describe(c.value ?? 0)
                _ = c.refusal(of: c.defaultValue)
            }
            controls = true
        }
        return (formats, controls)
    }

    /// Each of the first 16 lines through the option-value parsers: rationals, times, rates,
    /// segments, ramps and curves (resolved against an hour at 1 fps and 10 s at 240 fps), shards, sizes, byte counts,
    /// camera-control options.
    public static func values(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(16) {
            let s = String(line)
            _ = try? Rational(parsing: s)
            _ = try? TimePoint(parsing: Substring(s))
            _ = try? RetimeSpec.parseRate(Substring(s), context: "fuzz")
            // ramps and curves are exact at every frame: an hour on a 1 fps grid and 10 s at 240 fps
            // keep each execution's nodes to a few thousand
            if let seg = try? SegmentSpec(parsing: s, allowRamp: true) {
                _ = try? RetimeSpec(rate: .one, segments: [seg]).resolve(duration: Rational(3600), frameRate: .one)
                _ = try? RetimeSpec(rate: .one, segments: [seg]).resolve(duration: Rational(10), frameRate: Rational(240))
            }
            if let curve = try? SpeedCurve(parsing: s) {
                _ = try? RetimeSpec(curve: curve).resolve(duration: Rational(3600), frameRate: .one)
                _ = try? RetimeSpec(curve: curve).resolve(duration: Rational(10), frameRate: Rational(240))
            }
            _ = try? ShardSpec(parsing: s, base: 0)
            _ = try? OptionValues.size(s, option: .size)
            _ = try? OptionValues.bytes(s, option: .ringMemory)
            _ = try? ControlRequests.parse(shutter: s, gain: s, controls: [s])
            _ = try? ControlRequests.parse(shutterAngle: s, whiteBalance: s, zoom: s)
        }
    }

    /// WAV bytes read as a file would be (`WAV.layout` through a read closure), then up to 4096
    /// frames decoded where the header says they are. True when the header was taken.
    public static func wav(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let size = bytes.count
        let read = { (offset: Int64, count: Int) -> [UInt8] in
            guard offset >= 0, offset < Int64(size), count > 0 else { return [] }
            let start = Int(offset)
            return Array(bytes[start..<min(size, start + count)])
        }
        guard let layout = WAV.layout(fileSize: Int64(size), read: read), layout.channels > 0, layout.channels <= 64 else { return false }
        let frameBytes = layout.channels * layout.format.bytes
        guard frameBytes > 0, layout.dataOffset >= 0, layout.dataOffset <= Int64(size), let base = bytes.baseAddress else { return true }
        let frames = min(4096, (size - Int(layout.dataOffset)) / frameBytes, Int(clamping: max(0, layout.frames)))
        guard frames > 0 else { return true }
        let planes = (0..<layout.channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: frames) }
        defer { planes.forEach { $0.deallocate() } }
        WAV.decode(
            UnsafeRawBufferPointer(start: base + Int(layout.dataOffset), count: frames * frameBytes),
            format: layout.format, channels: layout.channels, frames: frames, into: planes)
        return true
    }

    /// A lab file's header as slomo reads it itself: the first byte even, the rest a Phantom Cine
    /// file's start (`CineTimes`); odd, a Photron `.cihx` (`MRAWLayout(cihx:)`). True when it reads.
    public static func labHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        let rest = Array(bytes.dropFirst())
        if first % 2 == 0 {
            guard let cine = try? CineTimes(bytes: rest) else { return false }
            _ = cine.triggerIndex
            return !cine.times.isEmpty
        }
        guard let layout = try? MRAWLayout(cihx: String(decoding: rest, as: UTF8.self)) else { return false }
        _ = layout.cihx
        return true
    }

    /// A network trigger's datagram as the receiver takes it (`TriggerMessage.verify`, then the
    /// replay guard at a fixed clock). The first byte odd: the rest is signed here with the harness's
    /// key, as a key holder would send it, so the fields beyond the signature are reached too. True
    /// when the message is taken.
    public static func triggerMessage(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first else { return false }
        let key = Array("fuzz-trigger-key-0123456789".utf8), mac = { HMAC.sha256(key: key, data: $0) }
        var datagram = Array(bytes.dropFirst())
        if first % 2 == 1 {
            if datagram.last == 10 { datagram.removeLast() }
            datagram += Array(" mac=".utf8) + Array(mac(datagram).map { String(format: "%02x", $0) }.joined().utf8)
        }
        guard let m = try? TriggerMessage.verify(datagram, mac: mac) else { return false }
        var guardian = TriggerReplayGuard(window: Rational(10))
        let now: Int64 = 1_795_000_000_000_000_000
        guard (try? guardian.take(m, now: now)) != nil else { return false }
        _ = try? guardian.take(m, now: now)
        _ = NetworkTriggerListener.eventTime(m, realTimeNs: now, monotonicNs: 123_456_789_000)
        return true
    }

    /// A request body the server decodes (`RigRequestBody`): the first byte picks a settings PATCH,
    /// an arm (the fields an arm takes) or a shot's export; the rest is the body.
    public static func requestBody(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first else { return false }
        let body = Array(bytes.dropFirst())
        switch first % 3 {
        case 0: return (try? RigRequestBody.settingsPatch(body)) != nil
        case 1: return (try? RigRequestBody.settingsPatch(body, allowed: RigOption.allCases.filter(\.armTakes))) != nil
        default: return (try? RigRequestBody.exportAsk(body)) != nil
        }
    }
}
