#if canImport(Glibc)
    import Glibc
#endif
import SlomoCore
import SlomoFFmpeg

/// An audio stream of a file, read as planar Float on the source timeline.
/// (`DecodedAudioSource`, through FFmpeg, and `WAVFileSource`.)
public protocol AudioFileSource: AudioSampleSource {
    var path: String { get }
    var sampleRate: Int { get }
    /// FFmpeg's name of the channel layout ("stereo", "2 channels", "5.1", …).
    var channelLayout: String? { get }
    /// Packets or frames that failed to demux or decode and were skipped.
    var corruptPackets: Int { get }
}

public enum AudioFiles {
    /// The audio of `path` (its best audio stream, or `streamIndex`): a plain WAV file is read
    /// directly, anything else is decoded by FFmpeg.
    public static func open(path: String, streamIndex: Int? = nil, origin: Rational) throws -> any AudioFileSource {
        if let wav = wav(path: path, streamIndex: streamIndex, origin: origin) { return wav }
        return try DecodedAudioSource(path: path, streamIndex: streamIndex, origin: origin)
    }

    /// The audio stream of `demuxer` to read: `requested` when it names an audio stream of the
    /// file, else the best one. A number that names no stream, or a stream that is not audio, is
    /// refused naming the audio streams there are (never an index out of FFmpeg's array).
    public static func audioStream(of demuxer: Demuxer, requested: Int?) throws(AudioFailure) -> Int {
        let path = demuxer.path
        let audio = demuxer.streams.filter { $0.kind == .audio }.map(\.index)
        let there =
            audio.isEmpty
            ? "the file has no audio stream"
            : "its audio \(audio.count == 1 ? "stream is" : "streams are") \(audio.map(String.init).joined(separator: ", "))"
        guard let requested else {
            guard let best = demuxer.bestStream(.audio) ?? audio.first else {
                throw AudioFailure(.noAudioStream, subject: path, operation: "find audio", cause: "the file has no audio stream")
            }
            return best
        }
        guard requested >= 0, requested < demuxer.streamCount else {
            throw AudioFailure(
                .noSuchStream, subject: path, operation: "audio stream \(requested)",
                cause: "no such stream (the file has \(demuxer.streamCount); \(there))")
        }
        guard audio.contains(requested) else {
            let kind = demuxer.streamInfo(requested).kind
            throw AudioFailure(
                .noSuchStream, subject: path, operation: "audio stream \(requested)",
                cause: "stream \(requested) is \(kind.rawValue), not audio (\(there))")
        }
        return requested
    }

    /// The file read directly, when it is a WAV file `WAV.layout` handles and the stream asked
    /// for is its only one; nil otherwise.
    public static func wav(path: String, streamIndex: Int?, origin: Rational) -> WAVFileSource? {
        streamIndex ?? 0 == 0 ? WAVFileSource(path: path, origin: origin) : nil
    }
}

/// A WAV file `WAV.layout` understands, read with `pread` — no FFmpeg. Same contract and same
/// samples as `DecodedAudioSource` on the same file: source frame 0 is media time `origin`,
/// audio before it is dropped and reads as silence, as does anything past the end. Random access, nothing buffered, so memory
/// is constant and `discard` has nothing to free.
public final class WAVFileSource: AudioFileSource {
    public let path: String
    public let layout: WAV.Layout
    public var sampleRate: Int { layout.sampleRate }
    public var channels: Int { layout.channels }
    public var channelLayout: String? { layout.channelLayout }
    /// PCM has no packets to damage; here for symmetry with `DecodedAudioSource`.
    public let corruptPackets = 0
    private let fd: Int32
    /// File frame of source frame 0 (`round(origin × sampleRate)`).
    private let first: Int64
    private var buffer: [UInt8] = []

    /// nil when `path` is not a WAV file this reader handles (the caller then uses FFmpeg).
    public init?(path: String, origin: Rational = .zero) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
            let layout = WAV.layout(fileSize: Int64(st.st_size), read: { Self.pread(fd, $0, $1) })
        else {
            close(fd)
            return nil
        }
        self.fd = fd
        self.path = path
        self.layout = layout
        // as DecodedAudioSource places a packet at file frame j: round((j / rate − origin) × rate)
        first = -((Rational.zero - origin) * Rational(Int64(layout.sampleRate))).rounded(.nearest)
    }

    deinit { close(fd) }

    /// Frames from source frame 0 to the end of the data.
    public var frames: Int64 { Swift.max(0, layout.frames - first) }

    public func read(at position: Int64, count: Int, into planes: [UnsafeMutablePointer<Float>]) throws {
        for c in 0..<channels { planes[c].initialize(repeating: 0, count: count) }
        // file frames [a, b): audio before the origin (negative positions) is dropped, as DecodedAudioSource does
        let a = Swift.max(Swift.max(position, 0) + first, 0), b = Swift.min(position + first + Int64(count), layout.frames)
        guard a < b else { return }
        let n = Int(b - a), bytes = n * layout.blockAlign
        if buffer.count < bytes { buffer = [UInt8](repeating: 0, count: bytes) }
        try buffer.withUnsafeMutableBytes { raw in
            var done = 0
            while done < bytes {
                let r = Glibc.pread(fd, raw.baseAddress! + done, bytes - done, off_t(layout.dataOffset + a * Int64(layout.blockAlign)) + off_t(done))
                if r < 0 && errno == EINTR { continue }
                guard r > 0 else {
                    throw AudioFailure(
                        .decodeFailed, subject: path, operation: "read samples",
                        cause: Wording(verbatim: r < 0 ? String(cString: strerror(errno)) : "the file got shorter while being read"))
                }
                done += r
            }
            let skip = Int(a - position - first)
            WAV.decode(
                UnsafeRawBufferPointer(raw), format: layout.format, channels: channels, frames: n,
                into: planes.map { $0 + skip })
        }
    }

    public func discard(before position: Int64) {}

    private static func pread(_ fd: Int32, _ offset: Int64, _ count: Int) -> [UInt8] {
        var b = [UInt8](repeating: 0, count: count)
        let r = b.withUnsafeMutableBytes { Glibc.pread(fd, $0.baseAddress!, count, off_t(offset)) }
        return r > 0 ? Array(b[0..<r]) : []
    }
}

/// Writes 16-bit PCM WAV (mono or stereo) — what `stretch` writes for `.wav` — without FFmpeg.
/// The header is written last, with the sizes of what was really written.
public final class WAVFileWriter {
    public let path: String
    /// The name messages give (the final name when `path` is a temporary one).
    public var name: String
    public let channels: Int
    public let sampleRate: Int
    public private(set) var framesWritten: Int64 = 0
    private let fd: Int32
    private var pending: [UInt8] = []
    /// Bytes written so far (the header's 44 included).
    private var end: Int64 = 0

    /// Creates (truncates) `path`. Only for mono or stereo.
    public init(path: String, channels: Int, sampleRate: Int) throws {
        precondition((1...2).contains(channels))
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw WAVWriteError(path: path, problem: .cannotCreate(errno: errno))
        }
        self.path = path
        name = path
        self.channels = channels
        self.sampleRate = sampleRate
        pending.reserveCapacity(1 << 17)
        pending.append(contentsOf: repeatElement(0, count: 44))  // header's place
    }

    deinit { close(fd) }

    public func append(_ planes: [[Float]]) throws {
        let n = planes[0].count
        WAV.encode16(planes, frames: n, into: &pending)
        framesWritten += Int64(n)
        if pending.count >= 1 << 16 { try flush(at: nil) }
    }

    /// Writes what is pending and the header; fails if the sizes do not fit RIFF's 32 bits.
    public func finish() throws {
        try flush(at: nil)
        guard let header = WAV.header16(channels: channels, sampleRate: sampleRate, frames: framesWritten) else {
            throw WAVWriteError(path: name, problem: .tooLong(frames: framesWritten))
        }
        pending = header
        try flush(at: 0)
    }

    private func flush(at offset: Int64?) throws {
        var done = 0
        try pending.withUnsafeBytes { raw in
            while done < raw.count {
                let r = Glibc.pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t((offset ?? end) + Int64(done)))
                if r < 0 && errno == EINTR { continue }
                guard r > 0 else {
                    let e = errno
                    throw WAVWriteError(path: name, problem: .writeFailed(errno: e))
                }
                done += r
            }
        }
        if offset == nil { end += Int64(done) }
        pending.removeAll(keepingCapacity: true)
    }
}

/// Writing a WAV file failed.
public struct WAVWriteError: SlomoFailure, Sendable, Equatable {
    public enum Problem: Sendable, Equatable {
        case cannotCreate(errno: Int32)
        /// More than RIFF's 32-bit sizes hold.
        case tooLong(frames: Int64)
        case writeFailed(errno: Int32)
    }
    public var path: String
    public var problem: Problem

    public var kind: FailureKind {
        switch problem {
        case .cannotCreate, .tooLong: return .cannotCreate
        case .writeFailed: return .ioFailed
        }
    }

    public var systemErrno: Int32? {
        switch problem {
        case .cannotCreate(let e), .writeFailed(let e): return e
        case .tooLong: return nil
        }
    }

    public var wording: Wording {
        switch problem {
        case .cannotCreate(let e): return "\(path): cannot create output: \(String(cString: strerror(e)))"
        case .tooLong(let n): return "\(path): \(n) frames do not fit a WAV file's 4 GiB"
        case .writeFailed(let e):
            return "\(path): write failed: \(String(cString: strerror(e)))\(e == ENOSPC ? " (ENOSPC); nothing was left under that name" : "")"
        }
    }
}
