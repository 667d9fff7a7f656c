import Foundation

/// A one-line progress bar on stderr, only when stderr is a terminal.
final class Progress {
    let label: String
    let enabled = Console.stderrIsTerminal
    private var lastDraw = Date.distantPast
    private let start = Date()

    init(label: String) { self.label = label }

    func update(_ done: Int64, _ total: Int64) {
        guard enabled, Date().timeIntervalSince(lastDraw) > 0.1 || done == total else { return }
        lastDraw = Date()
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let bar = Self.bar(total > 0 ? Double(done) / Double(total) : 0)
        FileHandle.standardError.write(Data(String(format: "\r%@ [%@] %lld/%lld %.0f fps ETA %.0fs ", label, bar, done, total, rate, eta).utf8))
    }

    /// A bar for a fraction with a caller's detail text (batch: jobs, frames, fps, ETA).
    func draw(fraction: Double, detail: String, force: Bool) {
        guard enabled, Date().timeIntervalSince(lastDraw) > 0.1 || force else { return }
        lastDraw = Date()
        FileHandle.standardError.write(Data(String(format: "\r%@ [%@] %3.0f%% %@ ", label, Self.bar(fraction), fraction * 100, detail).utf8))
    }

    /// 30 characters, `#` for the done part.
    static func bar(_ fraction: Double) -> String {
        let width = 30
        let filled = Swift.max(0, Swift.min(width, Int(Double(width) * fraction)))
        return String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
