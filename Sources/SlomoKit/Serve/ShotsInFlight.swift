import SlomoCore

/// The rig's shots triggered and not saved yet, against the ring they fill: for each, the ring's
/// frame count when its trigger was placed and how many of its frames are written. The first one
/// decides whether the rig is `triggered` (its post-trigger window filling) or `saving` (the window
/// whole in the ring, the rest being written), and what the status says of it.
public struct ShotsInFlight: Sendable, Equatable {
    public struct Shot: Sendable, Equatable {
        /// The ring's frame count when the trigger was placed.
        public var ringCount: Int64
        public var written: Int64 = 0
        /// The frames the shot will have (pre + trigger frame + post until the saver says).
        public var total: Int64
    }

    public private(set) var shots: [Int: Shot] = [:]
    /// The session's ring: frames before and after the trigger frame.
    public private(set) var preFrames = 0
    public private(set) var postFrames = 0
    /// Frames put in the ring since the session started, as last read.
    public private(set) var ringFrames: Int64 = 0

    public init(preFrames: Int = 0, postFrames: Int = 0) {
        self.preFrames = preFrames
        self.postFrames = postFrames
    }

    public var isEmpty: Bool { shots.isEmpty }

    mutating func count(_ frames: Int64) { ringFrames = frames }

    /// A shot placed now (at the last count read).
    mutating func place(_ shot: Int) { shots[shot] = Shot(ringCount: ringFrames, total: Int64(preFrames + postFrames + 1)) }

    mutating func progress(_ shot: Int, written: Int64, total: Int64) {
        guard shots[shot] != nil else { return }
        shots[shot]?.written = written
        shots[shot]?.total = total
    }

    mutating func finish(_ shot: Int) { shots.removeValue(forKey: shot) }

    mutating func clear() { shots.removeAll() }

    /// The first shot in flight (the one being saved): its number, how much of its post-trigger
    /// window has arrived (0...1) and how much of it is written (0...1).
    public var first: (shot: Int, postFill: Double, written: Double)? {
        guard let (n, s) = shots.min(by: { $0.key < $1.key }).map({ ($0.key, $0.value) }) else { return nil }
        let post = postFrames == 0 ? 1 : Swift.min(1, Double(Swift.max(0, ringFrames - s.ringCount)) / Double(postFrames))
        let written = s.total > 0 ? Swift.min(1, Double(s.written) / Double(s.total)) : 0
        return (n, post, written)
    }

    /// The first shot's post-trigger frames are all in the ring: what is left is writing.
    public var firstWindowFull: Bool { first?.postFill == 1 }

    /// How full the pre-trigger window is (0...1).
    public var preFill: Double { preFrames == 0 ? 1 : Swift.min(1, Double(ringFrames) / Double(preFrames)) }
}
