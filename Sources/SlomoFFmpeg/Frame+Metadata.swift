internal import CFFmpeg

extension Frame {
    /// Sets `key` in the frame's metadata (`AVFrame.metadata`), which filters read: drawtext's
    /// `%{metadata:key}` draws it. The dictionary is the frame's own, not shared with references.
    public func setMetadata(_ key: String, _ value: String) {
        _ = av_dict_set(&raw.pointee.metadata, key, value, 0)
    }
}
