import SlomoCore
import SlomoFFmpeg

/// The kept frames of a convert's source, decoded in order, each handed on as its samples in the
/// lab layout (`LabSamples`): the decoded plane itself where it already is that layout, else a
/// conversion of it (`Scaler`). Packets before the first kept frame are not decoded when every
/// frame of the codec stands alone (raw, FFV1).
struct FrameReader {
    let source: ConvertSource
    let threads: Int

    /// Calls `deliver(rows, bytesPerRow, sourceIndex)` for each kept frame; returns the signs of
    /// damage met (damaged frames are left out, and the table lists only what was written).
    func run(_ deliver: (UnsafeRawPointer, Int, Int) throws -> Void) throws -> [String] {
        let timeline = source.timeline
        let demuxer = try MediaInput.openInput(timeline.path)
        demuxer.keepOnly(streams: [timeline.video])
        let decoder = try demuxer.makeDecoder(stream: timeline.video, threads: threads)
        let reader = MediaTimeline.Reader(demuxer, damage: timeline.damage)
        let originTicks = try timeline.originTicks()
        var index: [Rational: Int] = [:]
        for (i, t) in timeline.frameTimes.enumerated() { index[t] = i }
        let target = PixelFormat(name: source.samples.format.ffmpegName)!
        let scaler = Scaler()
        let packet = Packet()
        var read = 0, undecodable = 0
        var last = source.kept.lowerBound - 1

        func receive() throws -> Bool {
            while true {
                let f = Frame()
                guard let got = try decoder.receiveUnlessDamaged(into: f) else {
                    undecodable += 1
                    continue
                }
                guard case .got = got else { return false }
                guard let p = f.bestEffortTimestamp, let k = index[timeline.time(ofTicks: p, originTicks: originTicks)],
                    source.kept.contains(k), k > last
                else { continue }
                guard f.width == source.width, f.height == source.height else {
                    throw MediaError.damaged(
                        path: timeline.path, "frame \(k) is \(f.width)x\(f.height), the stream \(source.width)x\(source.height): one size per file")
                }
                let samples = source.samples.fidelity == .same ? f : try scaler.convert(f, width: f.width, height: f.height, pixelFormat: target)
                try samples.withPlane(0) { try deliver($0, $1, k) }
                last = k
                if k == source.kept.upperBound - 1 { return true }
            }
        }

        while try reader.next(into: packet, after: read) {
            guard packet.streamIndex == timeline.video else { continue }
            read += 1
            // frames that stand alone: those before the kept part need no decoding
            if timeline.info.intraOnly, let p = packet.pts, let k = index[timeline.time(ofTicks: p, originTicks: originTicks)],
                k < source.kept.lowerBound
            {
                continue
            }
            do { while try !decoder.send(packet) { if try receive() { return reader.damage } } } catch let e as FFmpegError where e.isInvalidData {
                undecodable += 1
                continue
            }
            if try receive() { return reader.damage }
        }
        _ = try? decoder.send(nil)
        _ = try receive()
        return reader.damage + [MediaInput.undecodable(undecodable)].compactMap { $0 }
    }
}
