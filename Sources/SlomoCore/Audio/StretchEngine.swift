/// A streaming time-stretcher at one constant rate, for planar Float audio.
///
/// Contract (what `AudioRenderer` relies on): after the driver feeds `startPad` zero frames and then
/// the input, and drops the first `startDelay` output frames, output frame j belongs to input
/// position j × rate (input frame 0 = the first frame after the pad). The driver never flushes:
/// it keeps feeding (real audio or silence) until it has every output frame it needs, so no engine
/// pads its tail. Engines are not `Sendable`: one engine, one thread.
public protocol StretchEngine: AnyObject {
    var channels: Int { get }
    /// Input consumed per output frame (0.5 = half speed).
    var rate: Rational { get }
    /// Zero frames the driver feeds before the first input frame.
    var startPad: Int { get }
    /// Output frames the driver drops first.
    var startDelay: Int { get }
    /// Algorithmic look-ahead in input frames: how much input beyond an output frame's own
    /// position the engine needs before it can emit that frame.
    var latency: Int { get }
    /// Feeds `count` frames; `planes[c]` points at channel c's frames.
    func feed(_ planes: [UnsafePointer<Float>], count: Int) throws
    /// Moves up to `maxCount` output frames into `planes`; returns how many (0 = feed more).
    func retrieve(into planes: [UnsafeMutablePointer<Float>], maxCount: Int) throws -> Int
    /// Input frames between the next frame the engine analyses and the newest frame fed: a rate
    /// set now applies from that far back (0: from the next frame fed). Asked between feeds, once
    /// all output has been retrieved.
    var rateChangeLead: Int { get }
    /// Frames to feed next so that the engine analyses exactly one step (its hop), for rate
    /// changes placed to the hop; nil: any amount.
    var feedQuantum: Int? { get }
    /// Plays the input fed from now on at `rate` (a curve's glide; only engines whose algorithm
    /// `canGlide` are asked). Output already produced is not changed.
    func setRate(_ rate: Rational) throws
}

extension StretchEngine {
    public var rateChangeLead: Int { 0 }
    public var feedQuantum: Int? { nil }

    public func setRate(_ rate: Rational) throws {
        throw AudioFailure(.engineFailed, subject: "audio", operation: "set rate \(rate)", cause: "this engine plays one rate")
    }
}

/// A growable planar FIFO of Float frames with O(1) amortised consumption from the front.
public struct PlanarFIFO {
    private(set) var storage: [[Float]]
    private var head = 0
    public init(channels: Int) { storage = Array(repeating: [], count: channels) }
    public var count: Int { storage[0].count - head }

    /// Appends whole arrays, one per channel (all the same length).
    public mutating func append(_ planes: [[Float]]) {
        for c in storage.indices { storage[c].append(contentsOf: planes[c]) }
    }
    public mutating func append(_ planes: [UnsafePointer<Float>], count n: Int) {
        for c in storage.indices { storage[c].append(contentsOf: UnsafeBufferPointer(start: planes[c], count: n)) }
    }
    /// Appends to one channel only (the caller keeps the channels the same length).
    mutating func appendChannel(_ c: Int, _ frames: ArraySlice<Float>) { storage[c].append(contentsOf: frames) }
    public mutating func appendZeros(_ n: Int) {
        for c in storage.indices { storage[c].append(contentsOf: repeatElement(0, count: n)) }
    }
    /// Copies `n` frames from the front into `planes` and removes them.
    public mutating func pop(into planes: [UnsafeMutablePointer<Float>], count n: Int) {
        for c in storage.indices {
            storage[c].withUnsafeBufferPointer { planes[c].update(from: $0.baseAddress! + head, count: n) }
        }
        drop(n)
    }
    /// Removes `n` frames from the front and returns them, one array per channel.
    public mutating func take(_ n: Int) -> [[Float]] {
        let out = storage.map { Array($0[head..<head + n]) }
        drop(n)
        return out
    }
    public mutating func drop(_ n: Int) {
        head += n
        if head >= 65_536 && head * 2 >= storage[0].count {
            for c in storage.indices { storage[c].removeFirst(head) }
            head = 0
        }
    }
    public func withChannel<R>(_ c: Int, _ body: (UnsafeBufferPointer<Float>) -> R) -> R {
        storage[c].withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[head...])) }
    }
}

/// Rate 1 (any algorithm but mute): the input, untouched. Exact and artefact-free.
public final class PassThroughEngine: StretchEngine {
    public let channels: Int
    public var rate: Rational { .one }
    public var startPad: Int { 0 }
    public var startDelay: Int { 0 }
    public var latency: Int { 0 }
    private var fifo: PlanarFIFO

    public init(channels: Int) {
        self.channels = channels
        fifo = PlanarFIFO(channels: channels)
    }
    public func feed(_ planes: [UnsafePointer<Float>], count: Int) { fifo.append(planes, count: count) }
    public func retrieve(into planes: [UnsafeMutablePointer<Float>], maxCount: Int) -> Int {
        let n = Swift.min(maxCount, fifo.count)
        fifo.pop(into: planes, count: n)
        return n
    }
}
