import Foundation
import SlomoCore
import SlomoFFmpeg
import SlomoSystem

/// Times stored beside the images, for formats whose FFmpeg demuxer gives each image a time from
/// the frame rate only (a Phantom Cine's time block): read here and handed to the demuxer, so that
/// every command sees each frame at its stored time and the recording's trigger frame as a
/// `slomo_trigger_frame` tag. A Photron .mraw's times may come in the same way.
struct StoredFrameTimes {
    /// Each image's time, seconds since 1970 UTC, in file order.
    var times: [Rational]
    /// The trigger frame's index among the images.
    var triggerFrame: Int?
    /// What probe shows of the header: (tag, value).
    var facts: [(String, String)]

    /// The stored times' time base: 1 ns (a TIME64's 2^-32 s is rounded to the nearest ns).
    static let timeBase = Rational(1, 1_000_000_000)

    /// The last file `readOnce` read: its path, its identity then (inode, size, modification) and
    /// its times. One file only, so a server reading shot after shot for days holds one table.
    private static let alreadyRead = Locked<(path: String, stamp: String, times: StoredFrameTimes?)?>(nil)

    /// `read`, once for a file opened again and again (export opens its input three times), again
    /// when the file has changed or another was read in between.
    static func readOnce(_ path: String, format: String) throws -> StoredFrameTimes? {
        guard format == "cine" else { return nil }
        let a = try? FileManager.default.attributesOfItem(atPath: path)
        let modified = (a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        let stamp = "\((a?[.systemFileNumber] as? NSNumber)?.int64Value ?? 0)/\((a?[.size] as? NSNumber)?.int64Value ?? 0)/\(modified)"
        if let hit = Self.alreadyRead.value, hit.path == path, hit.stamp == stamp { return hit.times }
        let times = try read(path, format: format)
        Self.alreadyRead.set((path, stamp, times))
        return times
    }

    /// The file's stored times when FFmpeg opened it as a format that has them; nil otherwise.
    static func read(_ path: String, format: String) throws -> StoredFrameTimes? {
        guard format == "cine" else { return nil }
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        let head = [UInt8](h.readData(ofLength: 44))
        guard head.count == 44 else { throw MediaError.damaged(path: path, "open: the Cine header is cut short") }
        func word(_ at: Int) -> Int { Int(head[at]) | Int(head[at + 1]) << 8 | Int(head[at + 2]) << 16 | Int(head[at + 3]) << 24 }
        // what lies before the image offsets: the headers, SETUP and the tagged blocks (a time and an
        // exposure per image); read no more than 64 bytes an image and 16 MiB beside, whatever the
        // header claims
        let (imageCount, offOffsets) = (word(20), word(32))
        let rest = [UInt8](h.readData(ofLength: Swift.max(0, Swift.min(offOffsets, 16 << 20 + 64 * imageCount) - 44)))
        let cine: CineTimes
        do { cine = try CineTimes(bytes: head + rest) } catch {
            throw MediaError.damaged(path: path, "open: stored image times: \(error)")
        }
        var facts = [("slomo_cine_first_image", "\(cine.firstImageNumber)"), ("slomo_cine_trigger_time", iso8601(cine.triggerTime))]
        if let r = cine.frameRate { facts.append(("slomo_cine_frame_rate", "\(r)")) }
        return StoredFrameTimes(times: cine.times, triggerFrame: cine.triggerIndex, facts: facts)
    }

    /// Hands the times to `d` for its video stream (1 ns from the first image) and names the trigger
    /// frame and the first image's wall-clock time as tags. Times that do not increase are refused.
    func apply(to d: Demuxer, path: String) throws {
        guard let video = d.bestStream(.video), let first = times.first else { return }
        var ticks: [Int64] = []
        for t in times {
            guard let k = try? (t - first).ticks(in: Self.timeBase, rounding: .nearest) else {
                throw MediaError.damaged(path: path, "open: stored image time \(ticks.count) is out of range (\(Seconds(t - first)) s after the first)")
            }
            if let last = ticks.last, k <= last {
                throw MediaError.damaged(path: path, "open: stored image time \(ticks.count) does not follow the one before it")
            }
            ticks.append(k)
        }
        let usual = ticks.count > 1 ? (ticks.last! - ticks[0]) / Int64(ticks.count - 1) : 1
        d.storedTimes = StoredPacketTimes(stream: video, ticks: ticks, timeBase: Self.timeBase, lastDuration: Swift.max(1, usual))
        if let t = triggerFrame { d.setMetadata(SlomoTag.triggerFrame.rawValue, "\(t)") }
        d.setMetadata("creation_time", Self.iso8601(first))
        for (k, v) in facts { d.setMetadata(k, v) }
    }

    /// Seconds since 1970 as `2026-11-28T02:33:57.123456789Z` (nearest ns).
    static func iso8601(_ t: Rational) -> String {
        let ns = (try? t.ticks(in: timeBase, rounding: .nearest)) ?? 0
        let date = Date(timeIntervalSince1970: TimeInterval(ns / 1_000_000_000))
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        let frac = String(ns % 1_000_000_000)
        return f.string(from: date) + "." + String(repeating: "0", count: 9 - frac.count) + frac + "Z"
    }
}
