import Foundation
import SlomoCore
import SlomoFFmpeg

/// What export and retime write beside their video: the retimed audio track, the slomo metadata
/// and the header; and what the container cannot keep.
enum RetimedOutput {
    /// After the video stream: the retimed audio track when `audio` and the input has one (its
    /// codec chosen, or refused, before the source is opened), the slomo metadata (the map as
    /// `slomo_retime`, read back by probe and by a second retime; the source's name and rate; the
    /// batch job key), then the header (MP4/MOV keep the tags as metadata atoms).
    static func finishHeader(_ muxer: Muxer, demuxer: Demuxer, timeline: MediaTimeline, map: RetimeMap, stored: RetimeMap,
                             input: String, output: String, command: String, audio: Bool, pitch: String, audioCodec: String,
                             jobKey: String?) throws -> AudioTrackWriter? {
        var writer: AudioTrackWriter?
        if audio, let a = timeline.audio {
            let choice = try AudioCodecChoice.resolve(audioCodec, source: demuxer.streamInfo(a), muxer: muxer, output: output)
            let source = try Retimer.audioSource(input, stream: a, map: map, pitch: pitch, origin: timeline.origin)
            writer = try AudioTrackWriter(source: RenderAheadAudio(source), muxer: muxer, codec: choice.encoder,
                                          bitRate: choice.bitRate, path: output, deep: choice.deep)
        }
        muxer.setMetadata(MediaTimeline.retimeKey, String(decoding: try JSONEncoder().encode(stored), as: UTF8.self))
        muxer.setMetadata("slomo_source", URL(fileURLWithPath: input).lastPathComponent)
        if let fr = timeline.frameRate { muxer.setMetadata("slomo_source_frame_rate", fr.description) }
        muxer.setMetadata("encoder", "slomo \(command)")
        if let jobKey { muxer.setMetadata("slomo_job", jobKey) }
        try muxer.writeHeader(options: ["mp4", "mov"].contains(muxer.formatName) ? ["movflags": "+use_metadata_tags"] : [:])
        writer?.headerWritten()
        return writer
    }

    /// `rotation` when it is not a whole turn and `muxer`'s container cannot store it.
    static func droppedRotation(_ rotation: Double?, muxer: Muxer) -> Double? {
        guard let r = rotation, r.truncatingRemainder(dividingBy: 360) != 0, !muxer.storesDisplayMatrix else { return nil }
        return r
    }
}
