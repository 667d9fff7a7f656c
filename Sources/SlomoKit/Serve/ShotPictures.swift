import Foundation
import SlomoCore
import SlomoSystem
import SlomoFFmpeg

/// A saved shot's frames as JPEGs, for the page's scrubber and `frames/{n}.jpg`: the file is decoded
/// once, front to back, on its own thread, and every frame kept as a JPEG (so scrubbing backwards
/// costs nothing); a request waits until its frame is decoded.
final class ShotPictures: @unchecked Sendable {
    // Safe: `pictures`, `finished`, `failure` under `cond`.
    private let cond = NSCondition()
    private var pictures: [[UInt8]] = []
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    let path: String

    /// Stops the decoding (the shot was let go or deleted); waiting requests get what is decoded.
    func cancel() {
        cond.lock()
        cancelled = true
        cond.broadcast()
        cond.unlock()
    }
    private var isCancelled: Bool {
        cond.lock()
        defer { cond.unlock() }
        return cancelled
    }

    init(path: String, width: Int) {
        self.path = path
        let t = Thread { [self] in
            _ = ThreadPriority.nice(10)
            do { try decode(width: width) } catch {
                cond.lock()
                failure = error
                cond.unlock()
            }
            cond.lock()
            finished = true
            cond.broadcast()
            cond.unlock()
        }
        t.name = "slomo-shot-frames"
        t.start()
    }

    /// Frame `index` of the file (0: its first), nil when the file has no such frame.
    func picture(_ index: Int) throws -> [UInt8]? {
        cond.lock()
        defer { cond.unlock() }
        while pictures.count <= index && !finished && !cancelled { cond.wait() }
        if index < pictures.count { return pictures[index] }
        if let failure { throw failure }
        return nil
    }

    private func decode(width: Int) throws {
        let demuxer = try Demuxer(path: path)
        guard let stream = demuxer.streams.first(where: { $0.kind == .video })?.index else { return }
        demuxer.keepOnly(streams: [stream])
        let decoder = try demuxer.makeDecoder(stream: stream)
        let packet = Packet(), frame = Frame()
        let maker = JPEGMaker(maxWidth: width)
        func drain() throws {
            while case .got = try decoder.receive(into: frame) {
                let j = try maker.jpeg(frame)
                frame.unref()
                cond.lock()
                pictures.append(j.bytes)
                cond.broadcast()
                cond.unlock()
            }
        }
        while try demuxer.readPacket(into: packet) {
            if isCancelled { return }
            guard packet.streamIndex == stream else {
                packet.unref()
                continue
            }
            while try !decoder.send(packet) { try drain() }
            packet.unref()
            try drain()
        }
        _ = try decoder.send(Packet?.none)
        try drain()
    }
}
