import SlomoCore
import SlomoSystem
import SlomoKit

extension CaptureCommand {
    /// What an armed capture waits for, in the `armed` line.
    static func awaited(_ kind: TriggerKind) -> String {
        switch kind {
        case .stdin: return "a line 'trigger' on stdin"
        case .api: return "POST /api/v1/trigger"
        case .signal: return "SIGUSR1 (kill -USR1 \(CurrentProcess.id))"
        case .motion: return "motion"
        case .network(let e): return "a signed trigger message on udp://\(e)"
        case .sound(let level): return "a sound over \(Seconds(level)) dBFS"
        case .gpio(let g): return "a \(g.edges == .both ? "rising or falling" : g.edges.rawValue) edge on \(g.chip) line \(g.line)"
        }
    }
}
