import Foundation
import SlomoCore
import SlomoFFmpeg

/// The encoded spans of a `SplicedAudioTrack`, rendered and encoded ahead on a thread of their
/// own, so that the time-pitch work of a slowed part (Rubber Band R3: most of a long retime's
/// CPU once the rest is copied) runs while the packets before it are copied, not after.
///
/// * Ownership: each span's render and encoder live on the worker; the first span's render,
///   opened by the caller (so that audio FFmpeg cannot decode fails there), is handed over once.
///   What crosses is `EncodedPacket`, bytes copied out of FFmpeg's packet.
/// * Memory: at most `depth` packets wait (4096: 87 s of AAC at 48 kHz, about 2 MB at 192 kbit/s),
///   whatever the length of the input or of its slowed parts.
/// * Errors reach the reader in order, where they happened; dropping the reader stops the worker
///   at its next packet.
final class EncodeAhead {
    /// One kept packet of an encoded span; times in output samples.
    struct EncodedPacket: Sendable {
        var pts: Int64
        var duration: Int64
        var key: Bool
        var data: [UInt8]
    }
    enum Item { case packet(EncodedPacket), spanEnd, failed(any Error) }

    private let shared: Shared

    /// Encodes `spans` in order: the first from `first`, each later one from `render(span)`,
    /// each with a fresh encoder from `makeEncoder`.
    init(
        spans: [AudioSplicePlan.Encode], first: any RetimedAudio, depth: Int = 4096,
        render: @escaping @Sendable (AudioSplicePlan.Encode) throws -> any RetimedAudio,
        makeEncoder: @escaping @Sendable () throws -> Encoder
    ) {
        let shared = Shared(depth: depth)
        self.shared = shared
        let owned = RenderAheadAudio.Handoff(first)
        let thread = Thread {
            var handed: (any RetimedAudio)? = owned.take()
            for span in spans {
                do {
                    let source = try handed ?? render(span)
                    handed = nil
                    guard try Self.encode(span, source: source, encoder: makeEncoder(), into: shared) else { return }
                } catch {
                    _ = shared.put(.failed(error))
                    return
                }
            }
        }
        thread.name = "slomo.splice"
        thread.start()
    }

    deinit { shared.cancel() }

    /// The next item, waiting for the worker; it stays until `pop()` (a failure stays for good).
    func peek() -> Item { shared.peek() }
    func pop() { shared.pop() }

    /// One span through its encoder, its kept packets queued, then `.spanEnd`; false once the
    /// reader is gone.
    private static func encode(_ span: AudioSplicePlan.Encode, source: any RetimedAudio, encoder: Encoder, into shared: Shared) throws -> Bool {
        let coder = try SpanEncoder(span, source: source, encoder: encoder)
        var alive = true
        let emit = { (p: Packet) in
            guard alive, let pts = p.pts, pts >= span.keepFrom ?? .min, pts < span.keepUntil ?? .max else { return }
            let copy = EncodedPacket(pts: pts, duration: p.duration, key: p.isKeyframe, data: p.withBytes { Array($0) })
            alive = shared.put(.packet(copy))
        }
        try coder.feed(upTo: span.feedEnd, emit: emit, while: { alive })
        try coder.flush(emit: emit)
        return alive && shared.put(.spanEnd)
    }

    /// The queue between the worker and the reader, guarded by one condition variable.
    private final class Shared: @unchecked Sendable {  // every field is read and written under `condition`
        private let condition = NSCondition()
        private var items: [Item] = []
        private var head = 0
        private var cancelled = false
        private let depth: Int
        init(depth: Int) { self.depth = depth }

        /// Worker: waits for room; false when the reader is gone.
        func put(_ item: Item) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while items.count - head >= depth && !cancelled { condition.wait() }
            if cancelled { return false }
            items.append(item)
            condition.broadcast()
            return true
        }

        func peek() -> Item {
            condition.lock()
            defer { condition.unlock() }
            while items.count == head { condition.wait() }
            return items[head]
        }

        func pop() {
            condition.lock()
            defer { condition.unlock() }
            guard head < items.count else { return }
            if case .failed = items[head] { return }
            head += 1
            if head > 1024 {
                items.removeFirst(head)
                head = 0
            }
            condition.broadcast()
        }

        func cancel() {
            condition.lock()
            cancelled = true
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// One encoded span: its rendered audio (after `leadSilence` zeros, less its first `skip`
/// samples) in whole frames from output sample `feedStart`, through a fresh encoder.
final class SpanEncoder {
    let encoder: Encoder
    private let span: AudioSplicePlan.Encode
    private let source: any RetimedAudio
    private var pending: [[Float]]
    private var silence: Int64
    private var skip: Int64
    /// Output sample of the next input sample.
    private(set) var fed: Int64
    private let filler = AudioFrameFill()
    private let packet = Packet()

    init(_ span: AudioSplicePlan.Encode, source: any RetimedAudio, encoder: Encoder) throws {
        guard source.totalFrames == span.renderFrames else {
            throw AudioFailure(
                .engineFailed, subject: "audio", operation: "splice",
                cause: "a span's render has \(source.totalFrames) samples, the plan \(span.renderFrames)")
        }
        self.span = span
        self.source = source
        self.encoder = encoder
        pending = Array(repeating: [], count: source.channels)
        silence = span.leadSilence
        skip = span.skip
        fed = span.feedStart
    }

    /// Encodes whole frames while the input is before `limit` (and `going()`); `emit` gets every packet.
    func feed(upTo limit: Int64, emit: (Packet) throws -> Void, while going: () -> Bool = { true }) throws {
        let size = Int64(Swift.max(1, encoder.frameSize))
        while fed < limit && fed < span.feedEnd && going() {
            let n = Int(Swift.min(size, span.feedEnd - fed))
            try refill(n)
            let frame = try encoder.makeAudioFrame(samples: n)
            try filler.fill(frame, from: pending, count: n, encoder: encoder, sampleRate: source.sampleRate)
            for c in pending.indices { pending[c].removeFirst(n) }
            frame.pts = fed
            fed += Int64(n)
            while try !encoder.send(frame) { try drain(emit) }
            try drain(emit)
        }
    }

    /// Flushes the encoder (its last packets, past the span's end, are dropped by `emit`).
    func flush(emit: (Packet) throws -> Void) throws {
        _ = try encoder.send(nil)
        try drain(emit)
    }

    private func drain(_ emit: (Packet) throws -> Void) throws {
        while case .got = try encoder.receive(into: packet) { try emit(packet) }
    }

    /// Fills `pending` to `n` samples: the lead silence, then the render less its skipped start
    /// (silence past its end, which the plan's lengths rule out).
    private func refill(_ n: Int) throws {
        while pending[0].count < n {
            let want = n - pending[0].count
            if silence > 0 {
                let k = Int(Swift.min(silence, Int64(want)))
                for c in pending.indices { pending[c].append(contentsOf: repeatElement(0, count: k)) }
                silence -= Int64(k)
                continue
            }
            guard var block = try source.read(maxFrames: AudioTrackWriter.readFrames) else {
                for c in pending.indices { pending[c].append(contentsOf: repeatElement(0, count: want)) }
                return
            }
            if skip > 0 {
                let k = Int(Swift.min(skip, Int64(block[0].count)))
                block = block.map { Array($0.dropFirst(k)) }
                skip -= Int64(k)
            }
            for c in pending.indices { pending[c].append(contentsOf: block[c]) }
        }
    }
}
