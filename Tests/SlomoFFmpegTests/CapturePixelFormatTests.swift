import SlomoCore
import SlomoFFmpeg
import Testing

/// The capture pixel-format table (SlomoCore) against FFmpeg's own descriptions of the same
/// formats: a wrong row would make the recorder, the preview or GenICam read a frame wrongly.
@Suite struct CapturePixelFormatTests {
    @Test func everyRawRowIsTheFormatFFmpegKnowsByThatName() throws {
        for row in CapturePixelFormat.table where row.codec == nil {
            let name = try #require(row.ffmpeg, "\(row.fourcc)")
            let px = try #require(PixelFormat(name: name), "\(row.fourcc)")
            // 10/12-bit samples sit in 16-bit words and bgr0 has a padding byte: FFmpeg counts padding
            // bits out, the ring holds them
            let padded = ["gray10le": 16, "gray12le": 16, "bgr0": 32][px.name] ?? px.bitsPerPixel
            #expect(padded == row.bitsPerPixel, "\(row.fourcc): \(px.name) has \(px.bitsPerPixel) bits")
            #expect(PixelFormat(v4l2FourCC: row.fourcc) == px)
            #expect(row.bytesPerPixel >= 1)
        }
    }

    @Test func compressedRowsHaveNoSamplesAndOnlyNALCodecsNeedKeyframes() {
        for row in CapturePixelFormat.table where row.codec != nil {
            #expect(row.ffmpeg == nil && row.bitsPerPixel == 0 && PixelFormat(v4l2FourCC: row.fourcc) == nil)
            #expect((row.keyframes == .everyFrame) == (row.codec == "mjpeg"), "\(row.fourcc)")
        }
        #expect(CaptureFormat(fourcc: "H264", width: 2, height: 2).nalCodec == .h264)
        #expect(CaptureFormat(fourcc: "MJPG", width: 2, height: 2).isCompressed)
        #expect(!CaptureFormat(fourcc: "ABCD", width: 2, height: 2).isCompressed)
    }

    @Test func eightBitMosaicsAreKeptAsGraySamplesAndWiderOnesIn16BitWords() throws {
        let rggb = try #require(CapturePixelFormat.row("RGGB"))
        #expect(rggb.sensorSamples == "gray" && rggb.ffmpeg == "bayer_rggb8" && rggb.mosaic == "RGGB")
        #expect(CaptureFormat(fourcc: "RGGB", width: 2, height: 2).isSensor8)
        let rg16 = try #require(CapturePixelFormat.row("RG16"))
        #expect(rg16.sensorSamples == "gray16le" && rg16.bytesPerPixel == 2 && !CaptureFormat(fourcc: "RG16", width: 2, height: 2).isSensor8)
    }

    @Test func genicamNamesMapToTheRowWithTheSameMemoryLayout() {
        #expect(GenICamPixelFormat.fourccs["Mono8"] == "GREY" && GenICamPixelFormat.bytesPerPixel("Mono8") == 1)
        #expect(GenICamPixelFormat.fourccs["Mono16"] == "Y16 " && GenICamPixelFormat.bytesPerPixel("Mono16") == 2)
        #expect(GenICamPixelFormat.fourccs["RGB8"] == "RGB3" && GenICamPixelFormat.bytesPerPixel("RGB8") == 3)
        #expect(GenICamPixelFormat.fourccs["BayerBG8"] == "BA81" && GenICamPixelFormat.fourccs["YUV422Packed"] == "UYVY")
        #expect(!GenICamPixelFormat.isStored("Mono12Packed") && GenICamPixelFormat.fourccs.count == 20)
    }
}
