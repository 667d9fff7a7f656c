import SlomoCore
import SlomoFFmpeg

/// Export's source: the input's video packets demuxed and decoded in order, each decoded frame
/// handed on with its source index. Packets of frames no output needs and no other frame
/// references (`DisposableFrames`) are skipped undecoded; damaged packets and frames are counted
/// and the reading goes on (their output frames show an earlier frame).
final class VideoSource {
    private(set) var decoded = 0, skipped = 0, undecodable = 0
    private let reader: MediaTimeline.Reader
    private let decoder: Decoder
    private let video: Int
    private let plan: ExportFramePlan
    private let skipUnneeded: Bool
    private let disposable: DisposableFrames
    private let packet = Packet()

    init(_ demuxer: Demuxer, timeline: MediaTimeline, plan: ExportFramePlan, skipUnneeded: Bool, threads: Int) throws {
        video = timeline.video
        self.plan = plan
        self.skipUnneeded = skipUnneeded
        demuxer.keepOnly(streams: [video])
        decoder = try demuxer.makeDecoder(stream: video, threads: threads)
        reader = MediaTimeline.Reader(demuxer, damage: timeline.damage)
        disposable = DisposableFrames(
            codecName: timeline.info.codecName, intraOnly: timeline.info.intraOnly,
            extradata: timeline.info.extradata)
    }

    /// Signs of damage met while reading, one sentence each.
    var damage: [String] { reader.damage + [MediaInput.undecodable(undecodable)].compactMap { $0 } }

    /// Reads until the end, or until `done()` after a packet; `deliver` gets each decoded frame.
    func run(until done: () -> Bool, deliver: (Frame, Int) throws -> Void) throws {
        var read = 0
        while try reader.next(into: packet, after: read) {
            guard packet.streamIndex == video else { continue }
            read += 1
            if skipUnneeded, let p = packet.pts, let k = plan.index(ofPTS: p), !plan.needed[k],
                packet.withBytes({ disposable.isDisposable($0) })
            {
                skipped += 1
                continue
            }
            decoded += 1
            do { while try !decoder.send(packet) { try receive(deliver) } } catch let e as FFmpegError where e.isInvalidData {
                undecodable += 1  // damaged packet: its frame is reported as missing
                continue
            }
            try receive(deliver)
            if done() { break }
        }
        _ = try? decoder.send(nil)
        try receive(deliver)
    }

    private func receive(_ deliver: (Frame, Int) throws -> Void) throws {
        while true {
            let f = Frame()
            guard let got = try decoder.receiveUnlessDamaged(into: f) else {
                undecodable += 1  // a damaged frame (threaded decoders report it here): shown as missing
                continue
            }
            guard case .got = got else { return }
            guard let p = f.bestEffortTimestamp, let k = plan.index(ofDecoded: p) else { continue }
            try deliver(f, k)
        }
    }
}
