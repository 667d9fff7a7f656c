import Foundation
import SlomoCore

/// What `slomo convert` wrote (`--json`, Docs/JSON.md).
public struct ConvertReport: Codable, Sendable {
    public var input: String
    /// `-o` as given (a sequence's pattern or directory, or the file).
    public var output: String
    /// `tiff`, `hdf5`, `cine` or `dng`.
    public var format: String
    /// A sequence's first and last file.
    public var firstFile: String?
    public var lastFile: String?
    public var framesTable: String
    public var frameCount: Int
    public var width: Int
    public var height: Int
    /// The samples written: `gray8`, `gray16`, `rgb8`, `rgb16`.
    public var sampleFormat: String
    /// The bits the source fills in each sample (10 for gray10le, held in 16).
    public var significantBits: Int
    /// The source's pixel format and codec.
    public var sourcePixelFormat: String
    public var sourceCodec: String
    /// True when every sample written is the source's own (a lossless codec, no conversion).
    public var exact: Bool
    /// Why the samples are not the source's own, when they are not.
    public var note: String?
    /// The clock of `frames[].time`: the capture's (`CLOCK_MONOTONIC`) or `file timestamps`.
    public var clock: String
    /// The source's trigger frame (its index in the source), when the recording names one; the
    /// frames' `fromTrigger` counts from it, else from the source's first frame.
    public var triggerFrame: Int?
    public var frameRate: Rational?
    /// Signs of a damaged input, one sentence each (damaged frames are left out).
    public var damage: [String]
    public var frames: [LabFrameRow]

    init(_ r: ConvertRequest, output: LabOutput, source: ConvertSource, rows: [LabFrameRow], framesTable: String, damage: [String]) {
        input = r.input
        self.output = r.output
        format = output.formatName
        if let name = output.sequence {
            firstFile = name.path(0)
            lastFile = name.path(rows.count - 1)
        }
        self.framesTable = framesTable
        frameCount = rows.count
        width = source.width
        height = source.height
        sampleFormat = source.samples.format.rawValue
        significantBits = source.samples.significantBits
        sourcePixelFormat = source.samples.source
        sourceCodec = source.timeline.info.codecName
        note = source.note
        exact = note == nil
        clock = source.clock
        triggerFrame = source.namedTrigger
        frameRate = source.frameRate
        self.damage = damage
        frames = rows
    }
}
