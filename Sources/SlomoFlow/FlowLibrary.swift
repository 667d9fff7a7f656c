import CFlowAPI
import Glibc
import SlomoCore

/// Why motion-compensated frames cannot be made.
public enum FlowError: SlomoFailure, Equatable, Sendable {
    /// libslomo-flow.so or the OpenCV libraries it needs cannot be loaded (dlerror's words).
    case unavailable(String)
    /// The library refused the frames or failed on them.
    case failed(String)
    /// Frames too small for the flow's patches (the caller falls back and says so).
    case tooSmall(String)

    public var kind: FailureKind {
        switch self {
        case .unavailable: .unavailable
        case .failed: .bug
        case .tooSmall: .badRequest
        }
    }

    public var wording: Wording {
        switch self {
        case .unavailable(let why):
            "\(Setting.frameBlend) flow: cannot load the optical-flow library: \(why) (install OpenCV's video module: scripts/dev.sh deps, or apt-get install libopencv-video406)"
        case .failed(let why): "\(Setting.frameBlend) flow: the optical flow failed: \(why)"
        case .tooSmall(let why): "\(why)"
        }
    }
}

/// libslomo-flow.so (Sources/SlomoFlowCV: OpenCV's DIS optical flow behind a C interface), loaded
/// on first use: from where `SLOMO_FLOW_LIBRARY` says when it is set (there only), else beside
/// the running program (where `swift build` puts both), else on the system's library path. slomo
/// starts and runs every other command on a machine without OpenCV.
public struct FlowLibrary: @unchecked Sendable {
    // Safe: immutable function pointers into a library that stays loaded.
    let create: slomo_flow_create_fn
    let destroy: slomo_flow_destroy_fn
    let setPair: slomo_flow_set_pair_fn
    let render: slomo_flow_render_fn
    /// OpenCV's version, as the library was built against it.
    public let openCVVersion: String
    /// Where it was loaded from.
    public let path: String

    nonisolated(unsafe) private static var loaded: Result<FlowLibrary, FlowError>?
    private static let lock = LoadLock()

    /// The library, loaded once per process.
    public static func shared() throws(FlowError) -> FlowLibrary {
        lock.lock()
        defer { lock.unlock() }
        if loaded == nil { loaded = load() }
        return try loaded!.get()
    }

    static let name = "libslomo-flow.so"

    static func candidates() -> [String] {
        var paths: [String] = []
        if let env = getenv("SLOMO_FLOW_LIBRARY") { return [String(cString: env)] }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            let exe = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = exe.lastIndex(of: "/") { paths.append(String(exe[..<slash]) + "/" + name) }
        }
        paths.append(name)
        return paths
    }

    static func load() -> Result<FlowLibrary, FlowError> {
        var why: [String] = []
        for path in candidates() {
            // a missing file is only the next place to look; a file that is there but cannot be loaded is the answer
            if path.hasPrefix("/"), access(path, F_OK) != 0 {
                why.append("\(path): not there")
                continue
            }
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                return .failure(.unavailable(dlerror().map { String(cString: $0) } ?? path))
            }
            func symbol<T>(_ s: String, _: T.Type) -> T? { dlsym(handle, s).map { unsafeBitCast($0, to: T.self) } }
            guard let c = symbol("slomo_flow_create", slomo_flow_create_fn.self),
                let d = symbol("slomo_flow_destroy", slomo_flow_destroy_fn.self),
                let p = symbol("slomo_flow_set_pair", slomo_flow_set_pair_fn.self),
                let r = symbol("slomo_flow_render", slomo_flow_render_fn.self),
                let v = symbol("slomo_flow_version", slomo_flow_version_fn.self)
            else {
                return .failure(.unavailable("\(path) lacks slomo_flow_* (an older build?)"))
            }
            return .success(FlowLibrary(create: c, destroy: d, setPair: p, render: r, openCVVersion: String(cString: v()!), path: path))
        }
        // reached only when SLOMO_FLOW_LIBRARY names a file that is not there
        return .failure(.unavailable("\(name): \(why.joined(separator: "; ")) (SLOMO_FLOW_LIBRARY)"))
    }
}

/// A mutex (this module needs no Foundation).
final class LoadLock: @unchecked Sendable {
    private var m = pthread_mutex_t()
    init() { pthread_mutex_init(&m, nil) }
    func lock() { pthread_mutex_lock(&m) }
    func unlock() { pthread_mutex_unlock(&m) }
}
