import Foundation
import SlomoCore

/// A `LabSink` written on a thread of its own, behind the decoder: `slomo convert`'s decoding and
/// its file writing overlap instead of taking turns (Docs/Benchmarks.md, `bench/convert/tiff.sh`).
///
/// * Ownership: the sink is handed to the writer thread at `init` and handed back by `finish()` or
///   `stop()`, which both return only when the thread has ended; between them only the thread
///   touches it. What crosses is a frame's packed rows copied into one of `depth` buffers that go
///   round (no allocation per frame) and its row of the frame table.
/// * Memory: at most `depth` frames wait (4 by default: 4.9 MB at 640x480 gray16).
/// * Errors: a failed write stops the thread; the next `write` or `finish()` throws it, so the
///   caller sees it one frame late at most, and `sink.written` counts only complete frames.
final class WriteBehind {
    private let shared: Shared
    private let thread: Thread
    private let frameBytes: Int
    private let rowBytes: Int
    private let height: Int

    /// Starts the writer thread for frames of `height` rows of `rowBytes` bytes each.
    init(sink: any LabSink, rowBytes: Int, height: Int, depth: Int = 4) {
        self.rowBytes = rowBytes
        self.height = height
        frameBytes = rowBytes * height
        let shared = Shared(buffers: (0..<depth).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(1, rowBytes * height), alignment: 64) })
        self.shared = shared
        let owned = SinkHandoff(sink)
        thread = Thread {
            while let job = shared.next() {
                do {
                    try owned.sink.write(rows: UnsafeRawPointer(job.buffer.baseAddress!), bytesPerRow: rowBytes, row: job.row)
                    shared.done(job.buffer)
                } catch {
                    shared.fail(error, returning: job.buffer)
                    break
                }
            }
            shared.exit()
        }
        thread.name = "slomo.convert.write"
        thread.start()
    }

    deinit { shared.stop() }

    /// Copies one frame (`height` rows, `bytesPerRow` apart) into a free buffer and queues it,
    /// waiting while `depth` frames wait already; throws the writer's failure, if any.
    func write(rows: UnsafeRawPointer, bytesPerRow: Int, row: LabFrameRow) throws {
        let buffer = try shared.freeBuffer()
        if bytesPerRow == rowBytes {
            buffer.baseAddress!.copyMemory(from: rows, byteCount: frameBytes)
        } else {
            for y in 0..<height { (buffer.baseAddress! + y * rowBytes).copyMemory(from: rows + y * bytesPerRow, byteCount: rowBytes) }
        }
        shared.queue(Shared.Job(buffer: buffer, row: row))
    }

    /// Waits until every queued frame is written and the thread has ended; throws the writer's failure.
    func finish() throws {
        shared.close()
        try shared.waitForExit()
    }

    /// Drops what waits, lets the frame being written complete, and waits for the thread to end
    /// (after a failure elsewhere: the sink is the caller's again, `written` final).
    func stop() {
        shared.stop()
        _ = try? shared.waitForExit()
    }

    /// The sink, moved once to the writer thread; the thread is its only user until it ends
    /// (`Shared.exit`), after which the caller, who waited for that, uses it again.
    private final class SinkHandoff: @unchecked Sendable {
        let sink: any LabSink
        init(_ sink: any LabSink) { self.sink = sink }
    }

    /// The queue and the free buffers, guarded by one condition variable.
    private final class Shared: @unchecked Sendable {  // every field is read and written under `condition`
        struct Job {
            var buffer: UnsafeMutableRawBufferPointer
            var row: LabFrameRow
        }
        private let condition = NSCondition()
        private var free: [UnsafeMutableRawBufferPointer]
        private let all: [UnsafeMutableRawBufferPointer]
        private var jobs: [Job] = []
        private var closed = false, stopped = false, exited = false
        private var failure: (any Error)?

        init(buffers: [UnsafeMutableRawBufferPointer]) {
            free = buffers
            all = buffers
        }
        deinit { for b in all { b.deallocate() } }

        func freeBuffer() throws -> UnsafeMutableRawBufferPointer {
            condition.lock()
            defer { condition.unlock() }
            while free.isEmpty && failure == nil && !exited { condition.wait() }
            if let failure { throw failure }
            guard let b = free.popLast() else { throw CancellationError() }
            return b
        }

        func queue(_ job: Job) {
            condition.lock()
            jobs.append(job)
            condition.broadcast()
            condition.unlock()
        }

        /// Writer: the next frame, nil when closed and drained or stopped.
        func next() -> Job? {
            condition.lock()
            defer { condition.unlock() }
            while jobs.isEmpty && !closed && !stopped { condition.wait() }
            guard !stopped, !jobs.isEmpty else { return nil }
            return jobs.removeFirst()
        }

        func done(_ buffer: UnsafeMutableRawBufferPointer) {
            condition.lock()
            free.append(buffer)
            condition.broadcast()
            condition.unlock()
        }

        func fail(_ error: any Error, returning buffer: UnsafeMutableRawBufferPointer) {
            condition.lock()
            failure = error
            free.append(buffer)
            condition.broadcast()
            condition.unlock()
        }

        func exit() {
            condition.lock()
            exited = true
            condition.broadcast()
            condition.unlock()
        }
        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }

        func waitForExit() throws {
            condition.lock()
            defer { condition.unlock() }
            while !exited { condition.wait() }
            if let failure { throw failure }
        }
    }
}
