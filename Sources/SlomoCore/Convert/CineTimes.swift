/// What a Phantom Cine file stores beside its images (the reader's side of ``CineLayout``; pure:
/// bytes in, times out): each image's time from the time block (1002, a TIME64 per image), each
/// exposure (1003), the first image's number (`FirstImageNo`, negative for pre-trigger images;
/// image 0 is the trigger frame) and `TriggerTime`.
public struct CineTimes: Sendable, Equatable {
    /// Each image's time, seconds since 1970 UTC, in file order.
    public var times: [Rational]
    /// Each image's exposure in seconds, when the file has an exposure block.
    public var exposures: [Rational]?
    /// `FirstImageNo`: the first image's number counted from the trigger frame.
    public var firstImageNumber: Int
    /// `TriggerTime`, seconds since 1970 UTC.
    public var triggerTime: Rational
    /// `SETUP.FrameRate` (whole frames per second), nil when 0.
    public var frameRate: Rational?

    /// The trigger frame's index among the images (−`FirstImageNo`), nil when it is not among them.
    public var triggerIndex: Int? {
        let i = -firstImageNumber
        return times.indices.contains(i) ? i : nil
    }

    /// Why bytes are not a Cine file's stored times: one phrase.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Reads header, setup and tagged blocks from `bytes` (the file from its start, at least up to
    /// the image offsets). Refused: no "CI" mark, a count or offset outside the bytes, no time block.
    public init(bytes b: [UInt8]) throws(Failure) {
        func u16(_ o: Int) throws(Failure) -> Int {
            guard o >= 0, o + 2 <= b.count else { throw Failure("the header is cut short at byte \(o)") }
            return Int(b[o]) | Int(b[o + 1]) << 8
        }
        func u32(_ o: Int) throws(Failure) -> UInt32 { UInt32(try u16(o)) | UInt32(try u16(o + 2)) << 16 }
        func u64(_ o: Int) throws(Failure) -> UInt64 { UInt64(try u32(o)) | UInt64(try u32(o + 4)) << 32 }
        // a TIME64 as exact seconds; up to 2038 (2^31 s), where 2^-32 s fractions stay in 64 bits
        func time(_ o: Int, _ what: @autoclosure () -> String) throws(Failure) -> Rational {
            let v = try u64(o)
            guard v >> 32 < 1 << 31 else { throw Failure("\(what()) is past 2038 (\(v >> 32) s since 1970): not a camera's time") }
            return CineTimes.seconds(time64: v)
        }
        guard try u16(0) == 0x4943 else { throw Failure("no Cine header (the file does not start with \"CI\")") }
        firstImageNumber = Int(Int32(bitPattern: try u32(16)))
        let count = Int(try u32(20))
        let offSetup = Int(try u32(28)), offOffsets = Int(try u32(32))
        triggerTime = try time(36, "TriggerTime")
        let fps = try u32(offSetup + 768)
        frameRate = fps > 0 ? Rational(Int64(fps)) : nil
        guard count > 0, count <= (b.count - 8) / 8 else { throw Failure("the header declares \(count) images, more than the file holds") }
        // the tagged blocks follow SETUP (its Length) and end where the image offsets start
        var at = offSetup + (try u16(offSetup + 142))
        var times: [Rational]?, exposures: [Rational]?
        while at + 8 <= offOffsets {
            let size = Int(try u32(at)), type = try u16(at + 4)
            guard size >= 8, at + size <= offOffsets else { throw Failure("tagged block at byte \(at) runs past the image offsets") }
            if type == 1002, size >= 8 + 8 * count {
                times = try (0..<count).map { i throws(Failure) in try time(at + 8 + 8 * i, "image \(i)'s time") }
            } else if type == 1003, size >= 8 + 4 * count {
                exposures = try (0..<count).map { i throws(Failure) in Rational(Int64(try u32(at + 8 + 4 * i)), 1 << 32) }
            }
            at += size
        }
        guard let times else { throw Failure("no time block (1002) with a time for each of its \(count) images") }
        self.times = times
        self.exposures = exposures
    }

    /// TIME64 (32-bit fraction of a second, then 32-bit seconds since 1970) as exact seconds.
    public static func seconds(time64 v: UInt64) -> Rational {
        Rational(Int64(v >> 32)) + Rational(Int64(v & 0xFFFF_FFFF), 1 << 32)
    }
}
