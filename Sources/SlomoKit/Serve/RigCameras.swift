import SlomoCore

/// How the sessions of a rig of several cameras speak to the one machine: each camera's session
/// places the same triggers and saves the same shots, and the machine must hear each once. A
/// value (no lock, no I/O), fed by `Rig` under its lock:
/// - a trigger placed: the lead camera's (the first still running) counts;
/// - a shot saved: once every camera still running has saved it;
/// - a camera whose session ends by itself while others run is *lost*: the rig goes on with the
///   others and the camera's status says why; the machine hears of the end only when the last
///   camera's session has ended.
/// A rig of one camera is the same with one camera: every input passes straight through.
struct RigCameras: Sendable, Equatable {
    let count: Int
    /// Cameras whose session ended, and why (nil: the rig asked it to end).
    private(set) var ended: [Int: String?] = [:]
    /// Shots saved by some cameras but not yet by every camera still running: shot → cameras.
    private(set) var saving: [Int: Set<Int>] = [:]

    init(count: Int) { self.count = count }

    /// The first camera still running (0 when none is).
    var lead: Int { (0..<count).first { ended[$0] == nil } ?? 0 }

    /// The cameras still running.
    var running: [Int] { (0..<count).filter { ended[$0] == nil } }

    /// Why camera `k` was lost (its session ended by itself while others ran), nil while it runs
    /// or when the rig asked it to end.
    func lost(_ k: Int) -> String? { ended[k] ?? nil }

    /// Whether camera `k`'s placing of a trigger is the one the machine hears.
    func speaksForAll(_ k: Int) -> Bool { k == lead }

    /// Camera `k` saved `shot`: the shots every camera still running has now saved (at most this one).
    mutating func saved(camera k: Int, shot: Int) -> [Int] {
        saving[shot, default: []].insert(k)
        return settled()
    }

    /// Camera `k`'s session ended (`quit`: the rig asked; `why`: its failure or why it stopped).
    /// `all`: every camera's session has now ended (the machine hears it); `settled`: shots that
    /// waited only for this camera.
    mutating func ended(camera k: Int, quit: Bool, why: String?) -> (all: Bool, settled: [Int]) {
        ended[k] = quit ? String?.none : (why ?? "the camera stopped")
        return (ended.count == count, ended.count == count ? [] : settled())
    }

    /// The shots every running camera has saved, taken off the list, in order.
    private mutating func settled() -> [Int] {
        let alive = Set(running)
        let done = saving.filter { alive.isSubset(of: $0.value) }.map(\.key).sorted()
        for s in done { saving[s] = nil }
        return done
    }
}
