import Foundation
import Testing
@testable import SlomoCore

/// `formats --json` shapes of frame sizes and intervals: a `type` field and named values, never
/// Swift's synthesized `{"discrete": {"_0": …}}`; each shape decodes back to itself.
@Suite struct CatalogJSONTests {
    static func json<T: Encodable>(_ v: T) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(v), as: UTF8.self)
    }

    @Test func intervalsAndSizesHaveDesignedShapes() throws {
        let third = #"{"denominator":3,"numerator":1}"#
        #expect(try Self.json(FrameIntervals.discrete([Rational(1, 3)])) == #"{"intervals":[\#(third)],"type":"discrete"}"#)
        #expect(
            try Self.json(FrameIntervals.continuous(min: Rational(1, 3), max: .one))
                == #"{"max":{"denominator":1,"numerator":1},"min":\#(third),"type":"continuous"}"#)
        #expect(try Self.json(FrameSize.discrete(width: 640, height: 480)) == #"{"height":480,"type":"discrete","width":640}"#)
        let all: [FrameIntervals] = [
            .discrete([Rational(1, 240), Rational(1, 30)]), .stepwise(min: Rational(1, 90), max: .one, step: Rational(1, 90)),
            .continuous(min: Rational(1, 60), max: .one),
        ]
        for v in all {
            let text = try Self.json(v)
            #expect(!text.contains("_0"))
            #expect(try JSONDecoder().decode(FrameIntervals.self, from: Data(text.utf8)) == v)
        }
        let sizes: [FrameSize] = [
            .discrete(width: 1, height: 2), .stepwise(minWidth: 16, minHeight: 16, maxWidth: 2592, maxHeight: 1944, stepWidth: 2, stepHeight: 2),
            .continuous(minWidth: 32, minHeight: 32, maxWidth: 640, maxHeight: 480),
        ]
        for v in sizes { #expect(try JSONDecoder().decode(FrameSize.self, from: Data(try Self.json(v).utf8)) == v) }
    }
}
