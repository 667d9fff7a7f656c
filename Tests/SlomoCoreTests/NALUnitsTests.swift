import Testing
@testable import SlomoCore

/// The one NAL walk (`NALUnits`), on packets written byte by byte: both framings, both codecs,
/// start codes of 3 and 4 bytes, units cut short; and what capture and export read through it.
@Suite struct NALUnitsTests {
    func units(_ codec: NALUnits.Codec, _ framing: NALUnits.Framing, _ bytes: [UInt8], limit: Int = .max) -> [NALUnits.Unit] {
        bytes.withUnsafeBytes { NALUnits(codec, framing: framing).units(in: $0, limit: limit) }
    }

    // H.264 headers: SPS 0x67, PPS 0x68, IDR slice 0x65, reference slice 0x41, non-reference slice 0x01, SEI 0x06
    static let h264AnnexB: [UInt8] = [0, 0, 0, 1, 0x67, 0xAA, 0xBB, 0, 0, 1, 0x68, 0xCC, 0, 0, 0, 1, 0x06, 0xDD, 0, 0, 1, 0x65, 0x88, 0x99]

    @Test func annexBUnitsRunFromStartCodeToStartCode() {
        let u = units(.h264, .annexB, Self.h264AnnexB)
        #expect(u.map(\.type) == [7, 8, 6, 5])
        // a 4-byte start code's leading zero is not the unit before it
        #expect(u.map(\.bytes) == [4..<7, 10..<12, 16..<18, 21..<24])
        #expect(u.map(\.isParameterSet) == [true, true, false, false] && u.map(\.isSequenceHeader) == [true, false, false, false])
        #expect(u[3].isPicture && u[3].isKeyPicture && u[3].isReference && u[3].refIDC == 3)
        #expect(units(.h264, .annexB, Self.h264AnnexB, limit: 12).map(\.bytes) == [4..<7, 10..<12])
    }

    @Test func lengthPrefixedUnitsAndACutShortOne() {
        // sizes of 4, 2 and 1 bytes; the last unit claims more bytes than the packet has
        #expect(units(.h264, .lengthPrefixed(4), [0, 0, 0, 2, 0x41, 0x9A, 0, 0, 0, 2, 0x01, 0x9B]).map { [$0.type, $0.refIDC!] } == [[1, 2], [1, 0]])
        #expect(units(.h264, .lengthPrefixed(2), [0, 1, 0x65, 0, 9, 0x41]).map(\.bytes) == [2..<3])
        #expect(units(.hevc, .lengthPrefixed(1), [2, 0x26, 0x01, 2, 0x02, 0x01]).map(\.type) == [19, 1])
    }

    @Test func hevcHeaders() {
        // VPS (32), SPS (33), PPS (34), IDR_W_RADL (19), TRAIL_R (1), TRAIL_N (0), RASL_N (8), CRA (21)
        let bytes: [UInt8] = [0x40, 0x42, 0x44, 0x26, 0x02, 0x00, 0x10, 0x2A].flatMap { [0, 0, 1, $0, 0x01] }
        let u = units(.hevc, .annexB, bytes)
        #expect(u.map(\.type) == [32, 33, 34, 19, 1, 0, 8, 21])
        #expect(u.map(\.isPicture) == [false, false, false, true, true, true, true, true])
        #expect(u.map(\.isReference) == [true, true, true, true, true, false, false, true])
        #expect(u.map(\.isKeyPicture) == [false, false, false, true, false, false, false, true])
        #expect(u.map(\.isSequenceHeader) == [true, true, false, false, false, false, false, false])
    }

    @Test func extradataSaysTheFraming() {
        #expect(NALUnits(.h264, extradata: [1, 0x64, 0, 0x1F, 0xFF]).framing == .lengthPrefixed(4))
        #expect(NALUnits(.h264, extradata: [1, 0x64, 0, 0x1F, 0xFD]).framing == .lengthPrefixed(2))
        #expect(NALUnits(.h264, extradata: [0, 0, 0, 1, 0x67]).framing == .annexB)
        #expect(NALUnits(.hevc, extradata: Array(repeating: 1, count: 21) + [0x03, 0]).framing == .lengthPrefixed(4))
        #expect(NALUnits(.hevc, extradata: []).framing == .annexB)
    }

    @Test func disposableFramesAreThoseNothingRefersTo() {
        let avcC: [UInt8] = [1, 0x64, 0, 0x1F, 0xFF]
        let d = DisposableFrames(codecName: "h264", intraOnly: false, extradata: avcC)
        func disposable(_ b: [UInt8]) -> Bool { b.withUnsafeBytes { d.isDisposable($0) } }
        #expect(disposable([0, 0, 0, 2, 0x01, 0x9A]))  // one non-reference slice
        #expect(!disposable([0, 0, 0, 2, 0x01, 0x9A, 0, 0, 0, 2, 0x41, 0x9A]))  // a reference slice too
        #expect(!disposable([0, 0, 0, 2, 0x06, 0x9A]))  // no picture at all
        #expect([UInt8]().withUnsafeBytes { DisposableFrames(codecName: "mjpeg", intraOnly: true, extradata: []).isDisposable($0) })
        #expect(![UInt8]().withUnsafeBytes { DisposableFrames(codecName: "vp9", intraOnly: false, extradata: []).isDisposable($0) })
    }
}
