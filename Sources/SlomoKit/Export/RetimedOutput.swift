import Foundation
import SlomoCore
import SlomoFFmpeg

/// What export and retime write beside their video: the retimed audio track, the slomo metadata
/// and the header.
enum RetimedOutput {
    /// The retimed audio of `stream` through `map` with `pitch`, encoded as `codec` (`--audio-codec`)
    /// asks. The codec is chosen (or refused) before the source is opened.
    static func audioTrack(input: String, stream: StreamInfo, map: RetimeMap, pitch: String, origin: Rational,
                           codec: String, muxer: Muxer, output: String) throws -> AudioTrackWriter {
        let choice = try AudioCodecChoice.resolve(codec, source: stream, muxer: muxer, output: output)
        let source = try Retimer.audioSource(input, stream: stream.index, map: map, pitch: pitch, origin: origin)
        return try AudioTrackWriter(source: RenderAheadAudio(source), muxer: muxer, codec: choice.encoder,
                                    bitRate: choice.bitRate, path: output, deep: choice.deep)
    }

    /// Stores the map (`slomo_retime`, read back by probe and by a second retime), the source's
    /// name and rate and the batch job key, then writes the header (MP4/MOV keep the tags as
    /// metadata atoms).
    static func writeHeader(_ muxer: Muxer, stored: RetimeMap, input: String, timeline: MediaTimeline,
                            command: String, jobKey: String?, audio: AudioTrackWriter?) throws {
        muxer.setMetadata(MediaTimeline.retimeKey, String(decoding: try JSONEncoder().encode(stored), as: UTF8.self))
        muxer.setMetadata("slomo_source", URL(fileURLWithPath: input).lastPathComponent)
        if let fr = timeline.frameRate { muxer.setMetadata("slomo_source_frame_rate", fr.description) }
        muxer.setMetadata("encoder", "slomo \(command)")
        if let jobKey { muxer.setMetadata("slomo_job", jobKey) }
        try muxer.writeHeader(options: ["mp4", "mov"].contains(muxer.formatName) ? ["movflags": "+use_metadata_tags"] : [:])
        audio?.headerWritten()
    }

    /// `rotation` when it is not a whole turn and `muxer`'s container cannot store it.
    static func droppedRotation(_ rotation: Double?, muxer: Muxer) -> Double? {
        guard let r = rotation, r.truncatingRemainder(dividingBy: 360) != 0, !muxer.storesDisplayMatrix else { return nil }
        return r
    }
}
