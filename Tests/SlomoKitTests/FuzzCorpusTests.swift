import Foundation
import Testing
import SlomoCore
@testable import SlomoKit

/// The fuzz targets' seeds and every input a fuzz run ever found (Tests/Fuzz/Regressions, named
/// TARGET-…) through the same parsers, without sanitizers: a finding stays fixed.
@Suite struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ target: String) throws -> [(String, Data)] {
        let fm = FileManager.default
        var out: [(String, Data)] = []
        let seeds = root.appendingPathComponent("Corpus/\(target)")
        for f in try fm.contentsOfDirectory(atPath: seeds.path).sorted() { out.append((f, try Data(contentsOf: seeds.appendingPathComponent(f)))) }
        let found = root.appendingPathComponent("Regressions")
        for f in try fm.contentsOfDirectory(atPath: found.path).sorted() where f.hasPrefix("fuzz-\(target)-") {
            out.append((f, try Data(contentsOf: found.appendingPathComponent(f))))
        }
        return out
    }

    @Test func manifests() throws {
        let all = try Self.inputs("manifest")
        #expect(all.count >= 3)
        var parsed = 0
        for (_, d) in all where !d.isEmpty {
            let format = ["json", "yaml", "csv"][Int(d[d.startIndex]) % 3]
            if (try? Manifest.parse(Data(d.dropFirst()), format: format, path: "seed.\(format)")) != nil { parsed += 1 }
        }
        #expect(parsed >= 3)                       // the three sample manifests are valid
    }

    @Test func listings() throws {
        var catalogs = 0, controls = 0
        for (_, d) in try Self.inputs("listing") {
            let text = String(decoding: d, as: UTF8.self)
            if (try? ListingParser.parse(text)) != nil { catalogs += 1 }
            if (try? ControlListing.parse(text)) != nil { controls += 1 }
        }
        #expect(catalogs >= 3 && controls >= 3)
    }

    /// What `fuzz-values` does with each line (Tests/Fuzz/Sources/fuzz-values), the same calls.
    static func values(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(16) {
            let s = String(line)
            _ = try? Rational(parsing: s)
            _ = try? TimePoint(parsing: Substring(s))
            _ = try? RetimeSpec.parseRate(Substring(s), context: "fuzz")
            if let seg = try? SegmentSpec(parsing: s, allowRamp: true) {
                _ = try? RetimeSpec(rate: .one, segments: [seg]).resolve(duration: Rational(3600), frameRate: Rational(240))
            }
            _ = try? ShardSpec(parsing: s, base: 0)
            _ = try? OptionValues.size(s, option: "--size")
            _ = try? OptionValues.bytes(s, option: "--ring-memory")
            _ = try? ControlRequests.parse(shutter: s, gain: s, controls: [s])
            _ = try? ControlRequests.parse(shutterAngle: s, whiteBalance: s, zoom: s)
        }
    }

    /// Found by fuzz-values (Regressions/fuzz-values-crash-75eb2b40): `--ring-memory 601111112G`
    /// overflowed 64 bits and trapped; now it is a one-line usage error.
    @Test func hugeByteCountsAreRefused() throws {
        #expect(throws: SimpleFailure("--ring-memory '601111112G': expected a size such as 512M or 2G (at most 1P)", .usage)) {
            try OptionValues.bytes("601111112G", option: "--ring-memory")
        }
        #expect(try OptionValues.bytes("1.5G", option: "--ring-memory") == 3 << 29)
        #expect(try OptionValues.bytes("1.000000000001K", option: "--ring-memory") == 1024)
    }

    @Test func values() throws {
        for (_, d) in try Self.inputs("values") { Self.values(String(decoding: d, as: UTF8.self)) }
    }

    @Test func wavHeaders() throws {
        var read = 0
        for (_, d) in try Self.inputs("wav") {
            let bytes = [UInt8](d)
            let layout = WAV.layout(fileSize: Int64(bytes.count)) { offset, count in
                guard offset >= 0, offset < Int64(bytes.count), count > 0 else { return [] }
                return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
            }
            if layout != nil { read += 1 }
        }
        #expect(read >= 2)                         // 16-bit and float; the 24-bit extensible one may go to FFmpeg instead
    }
}
