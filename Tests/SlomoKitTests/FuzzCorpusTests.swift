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

    @Test func values() throws {
        for (_, d) in try Self.inputs("values") {
            for line in String(decoding: d, as: UTF8.self).split(separator: "\n").prefix(16) {
                let s = String(line)
                _ = try? Rational(parsing: s)
                if let seg = try? SegmentSpec(parsing: s, allowRamp: true) {
                    _ = try? RetimeSpec(rate: .one, segments: [seg]).resolve(duration: Rational(3600), frameRate: Rational(240))
                }
                _ = try? ControlRequests.parse(shutter: s, gain: s, controls: [s])
            }
        }
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
