import SlomoCore
import SlomoFFmpeg

/// One audio track of `retime` written as its `AudioSplicePlan` says: the source's packets copied
/// unchanged (their times moved by the copy's offset, their durations kept), and between them
/// the audio rendered through the time-pitch engine and encoded by a fresh encoder per span
/// (`EncodeAhead`, on its own thread), only the packets inside the span kept. Interleaves with
/// video like `AudioTrackWriter`: callers ask it to catch up to a time. The output stream's
/// parameters are the source stream's (its AudioSpecificConfig describes both kinds of packet:
/// `AudioSplice.refusal` checked it).
final class SplicedAudioTrack {
    let plan: AudioSplicePlan
    let streamIndex: Int
    /// The encoder of the encoded spans (the source's codec).
    let codecName: String
    private let muxer: Muxer
    private let reader: Demuxer
    private let sourceStream: Int
    private let sampleTimeBase: Rational
    private let frame: Int64
    private let ahead: EncodeAhead
    /// Where the source's packets lie: each copied packet is checked against the plan's place for it.
    private let grid: AudioSplice.Runs
    private var streamTimeBase = Rational(1)
    private var spanIndex = 0
    private var copiedInSpan = 0
    /// Packets of the source stream the reader has given.
    private var packetsRead = 0
    private let packet = Packet()
    private(set) var copiedPackets = 0, encodedPackets = 0
    /// Output samples written so far (the output's length at the end).
    private(set) var framesWritten: Int64 = 0

    /// Adds the output stream (a copy of `source`'s parameters, time base 1/sampleRate) to `muxer`.
    /// The first span's render opens here, so that audio this FFmpeg cannot decode fails now.
    init(
        plan: AudioSplicePlan, input: String, source: StreamInfo, grid: AudioSplice.Runs, demuxer: Demuxer, muxer: Muxer, encoderName: String,
        render: @escaping @Sendable (AudioSplicePlan.Encode) throws -> any RetimedAudio,
        makeEncoder: @escaping @Sendable () throws -> Encoder
    ) throws {
        self.plan = plan
        self.grid = grid
        self.muxer = muxer
        codecName = encoderName
        sourceStream = source.index
        sampleTimeBase = Rational(1, Int64(source.sampleRate))
        frame = Int64(plan.frameSize)
        reader = try MediaInput.openInput(input)
        reader.keepOnly(streams: [source.index])
        let encodes = plan.spans.compactMap { span -> AudioSplicePlan.Encode? in if case .encode(let e) = span { e } else { nil } }
        ahead = EncodeAhead(spans: encodes, first: try render(encodes[0]), render: render, makeEncoder: makeEncoder)
        streamIndex = try muxer.addStream(copying: source.index, from: demuxer, timeBase: sampleTimeBase, frameRate: nil)
    }

    /// Call after `writeHeader`: the muxer may have changed the stream's time base.
    func headerWritten() { streamTimeBase = muxer.timeBase(ofStream: streamIndex) }

    /// Writes every packet that starts before output time `time` (seconds).
    func write(upTo time: Rational) throws {
        // (called before every video packet: integer arithmetic where it fits)
        let sr = sampleTimeBase.denominator
        let (scaled, overflow) = time.numerator.multipliedReportingOverflow(by: sr)
        let limit =
            overflow
            ? (time / sampleTimeBase).ceiling
            : scaled / time.denominator + (scaled % time.denominator > 0 ? 1 : 0)
        while spanIndex < plan.spans.count {
            switch plan.spans[spanIndex] {
            case .copy(let c): guard try copy(c, until: limit) else { return }
            case .encode(let e): guard try encode(e, until: limit) else { return }
            }
            spanIndex += 1
        }
    }

    /// Writes the rest.
    func finish() throws { try write(upTo: Rational(plan.totalFrames + frame) * sampleTimeBase) }

    /// Copies the span's packets that start before `limit`; true once all are written.
    private func copy(_ c: AudioSplicePlan.Copy, until limit: Int64) throws -> Bool {
        while copiedInSpan < c.packets.count {
            let pts = c.start + frame * Int64(copiedInSpan)
            guard pts < limit else { return false }
            try read(packetAt: c.packets.lowerBound + copiedInSpan)
            let expected = pts - c.offset
            guard let t = packet.pts, abs(grid.position(t) - expected) <= grid.tolerance else {
                throw MediaError.damaged(
                    path: reader.path,
                    "copy audio stream \(sourceStream): its packet \(c.packets.lowerBound + copiedInSpan) is at source sample \(packet.pts.map { grid.position($0) }.map(String.init) ?? "none"), not \(expected) as its index said"
                )
            }
            try write(packet, pts: pts, duration: frame)
            copiedInSpan += 1
            copiedPackets += 1
        }
        copiedInSpan = 0
        return true
    }

    /// Reads the source stream up to its packet `index` (counted as `AudioSplice.runs` counted them).
    private func read(packetAt index: Int) throws {
        while true {
            guard try reader.readPacket(into: packet) else {
                throw MediaError.damaged(path: reader.path, "copy audio stream \(sourceStream): its packet \(index) was read before but is not there now")
            }
            guard packet.streamIndex == sourceStream else { continue }
            packetsRead += 1
            if packetsRead - 1 == index { return }
        }
    }

    /// Writes the span's encoded packets that start before `limit`, as the worker gives them;
    /// true at the span's end.
    private func encode(_ e: AudioSplicePlan.Encode, until limit: Int64) throws -> Bool {
        while true {
            switch ahead.peek() {
            case .packet(let p):
                guard p.pts < limit else { return false }
                ahead.pop()
                try p.data.withUnsafeBytes { try packet.setPayload($0.baseAddress!, count: $0.count) }
                packet.markKeyframe(p.key)
                try write(packet, pts: p.pts, duration: p.duration)
                encodedPackets += 1
            case .spanEnd:
                ahead.pop()
                framesWritten = Swift.max(framesWritten, e.keepUntil ?? e.feedEnd)
                return true
            case .failed(let error):
                throw error
            }
        }
    }

    /// Writes `p` into the output stream at `pts` (output samples).
    private func write(_ p: Packet, pts: Int64, duration: Int64) throws {
        p.pts = pts
        p.dts = pts
        p.duration = duration
        p.streamIndex = streamIndex
        p.rescaleTimestamps(from: sampleTimeBase, to: streamTimeBase)
        try muxer.write(p)
        framesWritten = Swift.max(framesWritten, pts + duration)
    }
}
