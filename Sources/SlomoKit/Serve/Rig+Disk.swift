import Foundation
import SlomoCore

/// Disk headroom: an arm is refused when the output directory cannot hold the take it would save
/// (one sentence, an event, `slomo_disk_refusals_total`), and a warning is raised when free space
/// falls below `--min-free`. Nothing is ever deleted to make room.
extension Rig {
    /// Bytes free for the output directory, when its file system says.
    public var diskFree: Int64? {
        ((try? FileManager.default.attributesOfFileSystem(forPath: config.outDir))?[.systemFreeSize] as? NSNumber)?.int64Value
    }

    /// What one take of `s` may need: its frames as the ring holds them (the camera's bytes: what
    /// raw, FFV1, lab files and a compressed camera's copied frames take at most), a tenth of that
    /// for x264 (CRF 20 on camera footage gives a twentieth or less). Nil before the camera opened.
    func takeBytes(_ s: RigSettings, format: CaptureFormat?) -> Int64? {
        guard let format, let period = format.frameDuration, period.isPositive,
            let pre = try? s.preTrigger.checkedDividing(period), let post = try? s.postTrigger.checkedDividing(period)
        else { return nil }
        let frames = Int64(pre.ceiling + post.ceiling + 1)
        let raw = frames * Int64(format.maxFrameBytes)
        return config.recording.rawCodec == .x264 && !format.isCompressed && config.shotExtension == "mp4" ? raw / 10 : raw
    }

    /// Refuses an arm whose take the disk cannot hold; warns below `--min-free`.
    func checkHeadroom(_ s: RigSettings) throws(RigRefusal) {
        guard let free = diskFree else { return }
        if let need = takeBytes(s, format: status().format), need > free {
            lock.lock()
            diskRefusals += 1
            lock.unlock()
            let words =
                "the output directory \(config.outDir) has \(Self.bytes(free)) free and a take of \(Seconds(s.preTrigger)) s + \(Seconds(s.postTrigger)) s may need \(Self.bytes(need)): free space, or arm a shorter window"
            emit(.warning, message: words)
            throw RigRefusal(.conflict, words)
        }
        warnIfLow(free)
    }

    /// The `--min-free` warning (an event and a line on stderr), when free space is below it.
    func warnIfLow(_ free: Int64? = nil) {
        guard let min = config.minFree, let free = free ?? diskFree, free < min else { return }
        let words = "the output directory \(config.outDir) has \(Self.bytes(free)) free, below --min-free \(Self.bytes(min))"
        emit(.warning, message: words)
        FileHandle.standardError.write(Data("slomo: warning: \(words)\n".utf8))
    }

    /// `1.5 GB`, `300 MB` (display).
    static func bytes(_ n: Int64) -> String {
        let units: [(Double, String)] = [(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")]
        for (size, name) in units where Double(n) >= size { return String(format: "%.1f", Double(n) / size) + " " + name }
        return "\(n) bytes"
    }
}
