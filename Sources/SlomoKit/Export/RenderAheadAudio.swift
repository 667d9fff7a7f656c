import Foundation

/// Renders a `RetimedAudio` ahead of its reader on a thread of its own, so that the time-pitch
/// work (Rubber Band R3 costs about a quarter of a 720p export's CPU) runs beside video decoding
/// and encoding instead of between them. Used by export, retime and stretch; live playback keeps
/// its source synchronous so that rate changes apply at once.
///
/// * Ownership: the wrapped source is handed to the worker at `init` and not touched by the
///   caller's thread again until the reader has seen its end (its format is copied first), so its
///   FFmpeg and engine state stay confined to one thread. After the end (taken under the same lock
///   the worker wrote it under) its counters, e.g. damaged packets, may be read.
/// * Memory: at most `depth` blocks of `blockFrames` frames wait in the queue (16 × 4096).
/// * Errors thrown by the source reach the reader at the position where they happened.
/// * Dropping the reader (finished, failed or interrupted) stops the worker after its current block.
final class RenderAheadAudio: RetimedAudio {
    let sampleRate: Int
    let channels: Int
    let totalFrames: Int64
    let channelLayout: String?
    private let shared: Shared
    /// The block being handed out in pieces of at most `maxFrames`.
    private var current: [[Float]] = []
    private var offset = 0

    /// `blockFrames` is what `AudioTrackWriter` asks for per read, so blocks pass through unsliced.
    init(_ source: any RetimedAudio, blockFrames: Int = AudioTrackWriter.readFrames, depth: Int = 16) {
        sampleRate = source.sampleRate
        channels = source.channels
        totalFrames = source.totalFrames
        channelLayout = source.channelLayout
        let shared = Shared(depth: depth)
        self.shared = shared
        let owned = Handoff(source)
        let thread = Thread {
            let source = owned.take()
            while true {
                let item: Shared.Item
                do {
                    if let block = try source.read(maxFrames: blockFrames) { item = .block(block) } else { item = .end }
                } catch {
                    item = .failed(error)
                }
                guard shared.put(item) else { return }  // the reader is gone
                if case .block = item { continue }
                return
            }
        }
        thread.name = "slomo.audio"
        thread.start()
    }

    deinit { shared.cancel() }

    func read(maxFrames: Int) throws -> [[Float]]? {
        if offset >= (current.first?.count ?? 0) {
            switch shared.take() {
            case .block(let b):
                current = b
                offset = 0
            case .end: return nil
            case .failed(let e): throw e
            }
        }
        let n = Swift.min(maxFrames, current[0].count - offset)
        defer { offset += n }
        if offset == 0 && n == current[0].count { return current }
        return current.map { Array($0[offset..<(offset + n)]) }
    }

    /// The queue between the worker and the reader, guarded by one condition variable.
    private final class Shared: @unchecked Sendable {  // every field is read and written under `condition`
        enum Item { case block([[Float]]), end, failed(any Error) }
        private let condition = NSCondition()
        private var items: [Item] = []  // at most `depth`: removing the first is cheap
        private var cancelled = false
        private let depth: Int
        init(depth: Int) { self.depth = depth }

        /// Worker: waits for room; false when the reader is gone.
        func put(_ item: Item) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while items.count >= depth && !cancelled { condition.wait() }
            if cancelled { return false }
            items.append(item)
            condition.broadcast()
            return true
        }

        /// Reader: waits for the next item (the last item, `.end` or `.failed`, stays and repeats).
        func take() -> Item {
            condition.lock()
            defer { condition.unlock() }
            while items.isEmpty { condition.wait() }
            guard case .block = items[0] else { return items[0] }
            condition.broadcast()
            return items.removeFirst()
        }

        func cancel() {
            condition.lock()
            cancelled = true
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Moves the non-Sendable source to the worker thread exactly once.
    final class Handoff: @unchecked Sendable {  // `take()` is called once, by the worker, after `init` returns
        private var source: (any RetimedAudio)?
        init(_ source: any RetimedAudio) { self.source = source }
        func take() -> any RetimedAudio {
            defer { source = nil }
            return source!
        }
    }
}
