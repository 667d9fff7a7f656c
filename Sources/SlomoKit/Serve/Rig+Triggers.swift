import SlomoCore

/// The rig's triggers beside the API (`RigTriggerLine`): each event goes through
/// `trigger(at:wall:source:)`, so it is taken only while armed, as the API's are.
extension Rig {
    /// A shot fired by the GPIO line or the network; when it is not taken, an `ignored` event says why.
    func fired(_ source: String, at time: Rational, wall: Rational) {
        do { _ = try trigger(at: time, wall: wall, source: source) } catch {
            emit(.ignored, source: source, message: "a \(source) trigger at \(TriggerEvents.iso8601(wall)) fired no shot: \(error.message)")
        }
    }
}
