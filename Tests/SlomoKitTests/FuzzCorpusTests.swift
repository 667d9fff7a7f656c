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
        #expect(all.filter { ParserHarness.manifest($0.1) }.count >= 3)  // the three sample manifests are valid
    }

    @Test func listings() throws {
        let read = try Self.inputs("listing").map { ParserHarness.listing(String(decoding: $0.1, as: UTF8.self)) }
        #expect(read.filter(\.formats).count >= 3 && read.filter(\.controls).count >= 3)
    }

    /// Found by fuzz-values (Regressions/fuzz-values-crash-75eb2b40): `--ring-memory 601111112G`
    /// overflowed 64 bits and trapped; now it is a one-line usage error.
    @Test func hugeByteCountsAreRefused() throws {
        #expect(throws: SettingError(.ringMemory, "601111112G", "expected a size such as 512M or 2G (at most 1P)")) {
            try OptionValues.bytes("601111112G", option: .ringMemory)
        }
        #expect(try OptionValues.bytes("1.5G", option: .ringMemory) == 3 << 29)
        #expect(try OptionValues.bytes("1.000000000001K", option: .ringMemory) == 1024)
    }

    @Test func values() throws {
        for (_, d) in try Self.inputs("values") { ParserHarness.values(String(decoding: d, as: UTF8.self)) }
    }

    @Test func wavHeaders() throws {
        let read = try Self.inputs("wav").filter { d in d.1.withUnsafeBytes { ParserHarness.wav($0.bindMemory(to: UInt8.self)) } }
        #expect(read.count >= 2)  // 16-bit and float; the 24-bit extensible one may go to FFmpeg instead
    }

    @Test func labHeaders() throws {
        let inputs = try Self.inputs("lab")
        let read = inputs.filter { d in d.1.withUnsafeBytes { ParserHarness.labHeader($0.bindMemory(to: UInt8.self)) } }
        #expect(inputs.count >= 2 && read.count == inputs.count, "\(inputs.map(\.0))")  // a slomo .cine and .cihx
    }

    /// The seeds signed with the harness's key are taken; a wrong signature, times outside the window
    /// and the two messages at 64 bits' edges that once trapped the receiver are not (and do not trap).
    @Test func triggerMessages() throws {
        let inputs = try Self.inputs("trigger")
        let taken = inputs.filter { ParserHarness.triggerMessage(Array($0.1)) }.map(\.0)
        #expect(taken == ["signed-by-harness", "signed-by-sender"], "\(inputs.map(\.0))")
        #expect(inputs.filter { $0.0.hasPrefix("fuzz-trigger-crash-") }.count == 2)
    }

    /// The sample bodies of the API's description decode; each target (settings, arm, export) has one.
    @Test func requestBodies() throws {
        let inputs = try Self.inputs("body")
        let read = inputs.filter { ParserHarness.requestBody(Array($0.1)) }
        #expect(inputs.count >= 4 && read.count == inputs.count, "\(inputs.map(\.0))")
        #expect(Set(inputs.compactMap { $0.1.first.map { $0 % 3 } }) == [0, 1, 2])
    }
}
