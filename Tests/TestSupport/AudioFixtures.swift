import Foundation
import SlomoCore
import SlomoFFmpeg

/// A fresh directory removed when the test ends.
public final class ScratchDirectory {
    public let path: String
    public init() {
        FFmpegLog.configure(environment: ProcessInfo.processInfo.environment)  // FFmpeg's own log off, as in the CLI
        path = FileManager.default.temporaryDirectory.appendingPathComponent("slomo-audio-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    public var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

public enum Signal {
    /// A sine of `frequency` Hz, `seconds` long.
    public static func tone(_ frequency: Double, seconds: Double, sampleRate: Int, amplitude: Float = 0.5) -> [Float] {
        let n = Int(seconds * Double(sampleRate))
        return (0..<n).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(sampleRate))) }
    }

    /// Silence with a 1 ms click (+0.9) starting at each of `at` (frames).
    public static func clicks(at positions: [Int], count n: Int, sampleRate: Int) -> [Float] {
        var x = [Float](repeating: 0, count: n)
        for p in positions { for i in p..<Swift.min(n, p + sampleRate / 1000) { x[i] = 0.9 } }
        return x
    }

    /// Frequency of a clean sine by interpolated zero crossings (rising) over `x[range]`.
    public static func frequency(_ x: [Float], in range: Range<Int>, sampleRate: Int) -> Double {
        var first: Double?, last = 0.0, count = 0
        for i in range.dropFirst() where x[i - 1] < 0 && x[i] >= 0 {
            let t = Double(i - 1) + Double(-x[i - 1]) / Double(x[i] - x[i - 1])
            if first == nil { first = t } else { count += 1 }
            last = t
        }
        guard let first, count > 0 else { return 0 }
        return Double(count) * Double(sampleRate) / (last - first)
    }

    public static func cents(_ f: Double, _ reference: Double) -> Double { 1200 * log2(f / reference) }

    /// Mean power of the `frequency` component over `x[range]` (a single-bin DFT); amplitude² / 4.
    public static func power(_ x: [Float], at frequency: Double, in range: Range<Int>, sampleRate: Int) -> Double {
        var re = 0.0, im = 0.0
        let w = 2 * Double.pi * frequency / Double(sampleRate)
        for i in range {
            re += Double(x[i]) * cos(w * Double(i))
            im -= Double(x[i]) * sin(w * Double(i))
        }
        let n = Double(range.count)
        return (re * re + im * im) / (n * n) * 4 / 4
    }

    public static func rms(_ x: ArraySlice<Float>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(Swift.max(1, x.count))).squareRoot()
    }

    /// Where a click is: the loudest sample within `search` frames of `expected`, then the energy
    /// centre of the ±`width` frames around it. nil when nothing stands out (the peak's energy under
    /// 30× the window's median) or the peak sits at the window's edge (the click may lie beyond):
    /// unlike an energy centre over a fixed window, it can report any offset up to `search`, so a
    /// click 130 ms late reads 130 ms, not a window's middle.
    public static func click(_ x: [Float], near expected: Int, search: Int, width: Int) -> Double? {
        let a = Swift.max(0, expected - search), b = Swift.min(x.count, expected + search)
        guard b - a > 2 * width else { return nil }
        var peak = a
        for i in a..<b where abs(x[i]) > abs(x[peak]) { peak = i }
        let energies = x[a..<b].map { Double($0) * Double($0) }.sorted()
        let median = energies[energies.count / 2]
        guard Double(x[peak]) * Double(x[peak]) > 30 * Swift.max(median, 1e-12), peak - a > width, b - peak > width else { return nil }
        return burstCentre(x, near: peak, window: width)
    }

    /// Centre (energy-weighted) of the strongest burst within `window` of `expected`.
    public static func burstCentre(_ x: [Float], near expected: Int, window: Int) -> Double {
        let a = Swift.max(0, expected - window), b = Swift.min(x.count, expected + window)
        var sum = 0.0, weighted = 0.0
        for i in a..<b {
            let e = Double(x[i]) * Double(x[i])
            sum += e
            weighted += e * Double(i)
        }
        return sum > 0 ? weighted / sum : -1
    }
}

/// A minimal RIFF/WAVE writer (16-bit PCM, interleaved) for test inputs, with arbitrary header values.
public func writeWAV(_ path: String, _ planes: [[Float]], sampleRate: Int, channels: Int? = nil) {
    let ch = channels ?? planes.count
    let n = planes.first?.count ?? 0
    var d = Data()
    func u32(_ v: Int) {
        var x = UInt32(v).littleEndian
        d.append(Data(bytes: &x, count: 4))
    }
    func u16(_ v: Int) {
        var x = UInt16(v).littleEndian
        d.append(Data(bytes: &x, count: 2))
    }
    let bytes = n * ch * 2
    d.append(contentsOf: Array("RIFF".utf8))
    u32(36 + bytes)
    d.append(contentsOf: Array("WAVE".utf8))
    d.append(contentsOf: Array("fmt ".utf8))
    u32(16)
    u16(1)
    u16(ch)
    u32(sampleRate)
    u32(sampleRate * ch * 2)
    u16(ch * 2)
    u16(16)
    d.append(contentsOf: Array("data".utf8))
    u32(bytes)
    for i in 0..<n { for c in 0..<ch { u16(Int(UInt16(bitPattern: Int16(Swift.max(-1, Swift.min(1, planes[c % planes.count][i])) * 32767)))) } }
    try! d.write(to: URL(fileURLWithPath: path))
}

/// The whole-file map at `rate`, resolved as the commands resolve it.
public func wholeMap(seconds: Rational, rate: Rational) -> RetimeMap {
    try! RetimeSpec(rate: rate).resolve(duration: seconds, frameRate: nil)
}

/// The ffmpeg CLI failed on a fixture.
public struct FixtureToolFailed: Error, CustomStringConvertible {
    public let arguments: [String]
    public let status: Int32
    public var description: String { "ffmpeg \(arguments) exited \(status)" }
}

/// Runs the ffmpeg CLI (test fixtures only: the independent tool makes inputs slomo did not write).
public func ffmpegCLI(_ args: [String]) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
    p.arguments = ["-v", "error", "-y"] + args
    try p.run()
    p.waitUntilExit()
    if p.terminationStatus != 0 { throw FixtureToolFailed(arguments: args, status: p.terminationStatus) }
}
