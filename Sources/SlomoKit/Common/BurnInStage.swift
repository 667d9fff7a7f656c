import Foundation
import SlomoCore
import SlomoFFmpeg

/// `--burn-in` and the live pictures' label: a label computed in Swift (for an export, from the
/// exact time map: `BurnInLabels`), set as the frame's metadata and drawn by libavfilter's drawtext
/// (`%{metadata:slomo.burnin}`). drawtext does no time arithmetic of its own: the text is the label
/// Swift made.
final class BurnInStage {
    static let key = "slomo.burnin"
    /// Debian's fonts-dejavu-core; without it, fontconfig's monospace font.
    static let fontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
    private let graph: FilterGraph
    private let drawn = Frame()

    init(_ settings: BurnInSettings, width: Int, height: Int, pixelFormat: PixelFormat, threads: Int = 0) throws {
        // drawtext works on 8-bit and wider YUV alike; `format` keeps the encoder's format either way
        graph = try FilterGraph(
            width: width, height: height, pixelFormat: pixelFormat, timeBase: Rational(1, 1),
            description: Self.filter(settings, pictureHeight: height) + ",format=\(pixelFormat)", threads: threads)
    }

    /// The drawtext description: white text on a black box in the chosen corner.
    static func filter(_ s: BurnInSettings, pictureHeight: Int) -> String {
        let size = s.textSize(pictureHeight: pictureHeight), border = Swift.max(2, size / 4), margin = Swift.max(4, size / 2)
        let font = FileManager.default.fileExists(atPath: fontFile) ? "fontfile=\(fontFile)" : "font=monospace"
        let x = [.topLeft, .bottomLeft].contains(s.corner) ? "\(margin)" : "w-tw-\(margin)"
        let y = [.topLeft, .topRight].contains(s.corner) ? "\(margin)" : "h-th-\(margin)"
        return "drawtext=\(font):text='%{metadata\\:\(key)}':fontsize=\(size):fontcolor=white:box=1:boxcolor=black"
            + ":boxborderw=\(border):line_spacing=\(border):x=\(x):y=\(y)"
    }

    /// `f` with `label` drawn (a new picture: `f`'s own pixels are left alone when shared).
    func draw(_ f: Frame, label: String, pts: Int64) throws -> Frame {
        f.setMetadata(Self.key, label)
        f.pts = pts
        try graph.push(f)
        guard case .got = try graph.pull(into: drawn) else {
            throw FFmpegError(path: "filter", operation: "drawtext", message: "no frame came out of the burn-in", category: .internalError)
        }
        return drawn
    }
}
