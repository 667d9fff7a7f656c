import SlomoCore
import Testing
@testable import SlomoKit

/// What capture reads from a camera's H.264/HEVC frames (Annex B) through `NALUnits`: whether a
/// frame is a keyframe, and the parameter sets that become the file's extradata.
@Suite struct CameraNALTests {
    func key(_ b: [UInt8], hevc: Bool = false) -> Bool { b.withUnsafeBytes { CapturePixelFormat.Keyframes.nal(hevc ? .hevc : .h264).isKeyframe($0) } }

    @Test func theFirstPictureOrASequenceHeaderDecides() {
        // H.264: delimiter (9), SEI (6), then an IDR slice / a P slice; an SPS first
        #expect(key([0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x06, 0x05, 0, 0, 1, 0x65, 0x88]))
        #expect(!key([0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x41, 0x9A, 0, 0, 1, 0x65, 0x88]))
        #expect(key([0, 0, 0, 1, 0x67, 0x64, 0, 0, 1, 0x41, 0x9A]))
        #expect(!key([0x41, 0x9A, 0x00]))  // no start code at all
        // HEVC: delimiter (35), then a CRA (21) / TRAIL_R (1); a VPS first
        #expect(key([0, 0, 1, 0x46, 0x01, 0x50, 0, 0, 1, 0x2A, 0x01, 0xAF], hevc: true))
        #expect(!key([0, 0, 1, 0x46, 0x01, 0x50, 0, 0, 1, 0x02, 0x01, 0xD0], hevc: true))
        #expect(key([0, 0, 1, 0x40, 0x01, 0x0C, 0, 0, 1, 0x02, 0x01, 0xD0], hevc: true))
    }

    @Test func parameterSetsBeforeThePictureBecomeExtradata() {
        let frame: [UInt8] = [
            0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x67, 0x64, 0x1F, 0, 0, 0, 1, 0x68, 0xEE, 0, 0, 1, 0x06, 0x05,
            0, 0, 1, 0x65, 0x88, 0, 0, 1, 0x67, 0x99,
        ]  // an SPS after the picture is not taken
        let sets = frame.withUnsafeBytes { RecordingWriter.parameterSets($0, codec: .h264) }
        #expect(sets == [0, 0, 0, 1, 0x67, 0x64, 0x1F, 0, 0, 0, 1, 0x68, 0xEE])
    }
}
