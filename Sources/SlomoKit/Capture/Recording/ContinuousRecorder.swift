import Foundation
import SlomoCore

/// The continuous recorder: a stage that writes every frame of the ring, in order, into one file.
/// It pins what it has not written yet, so the camera never waits for it: a slow disk or encoder
/// shows as backlog, and frames are lost only when the whole ring is held (counted by the capture
/// thread as dropped by slomo).
struct ContinuousRecorder {
    let writer: any FrameFile
    let source: CaptureSource

    /// What the recording of the ring gave: the most frames it ever held back, frames shorter than
    /// their format, and the write that failed (the capture was asked to end then).
    struct Outcome {
        var backlog: Int64 = 0
        var short: Int64 = 0
        var writeError: Error?
    }

    /// The reader `record` takes: pinned from the ring's first frame. Made before the camera's
    /// thread starts, or the frames published before it would be overwritten unpinned and
    /// uncounted (a 16-slot ring and a fast camera lost 24 of 120 so).
    static func reader(_ ring: FrameRing) -> RingReader {
        RingReader(ring, from: 0, pinned: true)
    }

    /// Writes the ring's frames from `reader` (made by `reader(_:)`) until the ring ends (the
    /// camera stopped) or a write fails; closes the reader.
    func record(_ reader: RingReader, end: SessionEnd, progress: ((Int64) -> Void)?) -> Outcome {
        defer { reader.close() }
        var out = Outcome()
        while true {
            let f: RingReader.Frame
            switch reader.next(timeout: 0.2) {
            case .timedOut: continue
            case .ended: return out
            case .frame(let frame): f = frame
            }
            if f.index == reader.start { writer.stampClock(source.timestampClock) }
            do {
                if try !writer.write(f.bytes, timestamp: f.meta.timestamp, sequence: f.meta.sequence) { out.short += 1 }
            } catch {
                out.writeError = error
                end.request(.writeError, "\(error)")
                return out
            }
            out.backlog = Swift.max(out.backlog, reader.release())
            progress?(writer.framesWritten)
        }
    }
}

extension RecordingWriter {
    /// The buffers' clock as the driver flags it, into the file's metadata (called once a frame is
    /// in the ring, so the source has read it).
    func stampClock(_ c: TimestampClock?) {
        guard let c else { return }
        metadata[SlomoTag.captureClock.rawValue] = c.clock.rawValue
        metadata[SlomoTag.timestampSource.rawValue] = c.instant.rawValue
    }
}
