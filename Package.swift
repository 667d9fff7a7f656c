// swift-tools-version: 6.1
// slomo — headless high-frame-rate capture and slow motion for Linux.
// Layers (one direction only; .ci/check-layers enforces what SwiftPM cannot):
//   slomo (CLI) → SlomoKit (use cases) → SlomoFFmpeg / SlomoV4L2 / SlomoAravis / SlomoALSA / SlomoAudio / SlomoFlow (wrappers) → SlomoCore (pure)
//   SlomoSystem (POSIX calls, signals) stands beside the wrappers: every layer above SlomoCore may use it
import PackageDescription

let package = Package(
    name: "slomo",
    products: [
        .executable(name: "slomo", targets: ["slomo"]),
        .library(name: "SlomoKit", targets: ["SlomoKit"]),
        .library(name: "SlomoCore", targets: ["SlomoCore"]),
        // libslomo-flow.so: OpenCV's optical flow for `--frame-blend flow`, loaded at run time
        // (SlomoFlow), so slomo starts without OpenCV; built beside the binary.
        .library(name: "slomo-flow", type: .dynamic, targets: ["SlomoFlowCV"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // YAML batch manifests (libyaml): marks on every node, duplicate keys refused.
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // `slomo serve`: HTTP/1.1, Server-Sent Events and WebSocket on SwiftNIO. The default traits are
        // dropped (no swift-configuration); no TLS, HTTP/2 or testing products are linked.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    ],
    targets: [
        // C modules: FFmpeg 5.1 (Debian 12) headers (libav*-dev, installed by scripts/dev.sh deps),
        // not linked: CFFmpegLoader loads each library on first use (Docs/Architecture.md,
        // "Loading FFmpeg"); the V4L2 ioctl shim.
        .systemLibrary(name: "CFFmpeg"),
        .target(name: "CFFmpegLoader", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CV4L2"),
        .systemLibrary(name: "CSoundTouch", pkgConfig: "soundtouch", providers: [.apt(["libsoundtouch-dev"])]),
        // Rubber Band's headers only: SlomoAudio links Debian's static librubberband.a (same library,
        // same version, built as the `rubberband` tool is; Docs/TimePitch.md, "Linking Rubber Band").
        .systemLibrary(name: "CRubberBand"),
        // ALSA (libasound2-dev): sound capture next to the camera.
        .target(name: "CALSA", linkerSettings: [.linkedLibrary("asound")]),
        // Aravis 0.8 (libaravis-dev; its pkg-config file needs libusb-1.0-0-dev too): GenICam cameras
        // over GigE Vision and USB3 Vision.
        .systemLibrary(name: "CAravis", pkgConfig: "aravis-0.8", providers: [.apt(["libaravis-dev", "libusb-1.0-0-dev"])]),
        // Lab formats (`slomo convert`): libtiff 4.5 (libtiff-dev) for TIFF sequences, libpng 1.6
        // (libpng-dev) for PNG sequences, the serial HDF5 1.10 C library (libhdf5-dev) for .h5 files;
        // each with a shim for what Swift cannot call.
        .systemLibrary(name: "CTIFF"),  // <tiffio.h>, linked as tiff (its pkg-config flags carry -pthread, which SwiftPM refuses)
        .systemLibrary(name: "CPNG"),  // <png.h>, linked as png16; the shim makes libpng's setjmp for each step
        .systemLibrary(name: "CHDF5"),  // <hdf5/serial/hdf5.h>, linked as hdf5_serial
        // errno names and a limit number Swift's Glibc module does not give.
        .target(name: "CPOSIX"),
        // Optical flow: the C interface of libslomo-flow.so (header only), and the library itself,
        // C++ on OpenCV 4.6's DIS flow (libopencv-video-dev), linked only into that library.
        .target(name: "CFlowAPI"),
        .target(name: "SlomoFlowCV", dependencies: ["CFlowAPI"],
                cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4", "-O2"])],   // -O2 in debug builds too: the tests run it on real frames
                linkerSettings: [.linkedLibrary("opencv_video"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),

        // Pure core: exact time, retime maps, calibration code, format catalogs and selection.
        .target(name: "SlomoCore"),

        // The one door to the system: POSIX calls with typed errno, and the process's signals, which
        // the application owns (it calls ProcessSignals.own(); no library installs a handler).
        .target(name: "SlomoSystem", dependencies: ["CPOSIX"]),

        // Wrappers: one per C library; C types stop here.
        .target(name: "SlomoFFmpeg", dependencies: ["CFFmpeg", "CFFmpegLoader", "SlomoCore"]),
        .target(name: "SlomoV4L2", dependencies: ["CV4L2", "SlomoCore", "SlomoSystem"]),
        .target(name: "SlomoALSA", dependencies: ["CALSA", "SlomoCore"]),
        // GenICam cameras through Aravis: discovery, features, the mode set up, the stream as a capture producer.
        .target(name: "SlomoAravis", dependencies: ["CAravis", "SlomoCore", "SlomoSystem"]),
        // Lab files: TIFF pages, PNG pictures and HDF5 datasets written with the frames' times.
        .target(name: "SlomoTIFF", dependencies: ["CTIFF", "CPNG", "SlomoCore", "SlomoSystem"]),
        .target(name: "SlomoHDF5", dependencies: ["CHDF5", "SlomoCore", "SlomoSystem"]),
        // Motion-compensated frames: loads libslomo-flow.so on first use (dlopen).
        .target(name: "SlomoFlow", dependencies: ["CFlowAPI", "SlomoCore"], linkerSettings: [.linkedLibrary("dl")]),
        // Time-pitch engines: SoundTouch (time-domain), Rubber Band (spectral), plus slomo's own.
        .target(name: "SlomoAudio", dependencies: ["CSoundTouch", "CRubberBand", "SlomoCore", "SlomoFFmpeg"],
                linkerSettings: [.linkedLibrary(":librubberband.a"), .linkedLibrary("stdc++")]),

        // Use cases.
        .target(name: "SlomoKit", dependencies: ["SlomoCore", "SlomoSystem", "SlomoFFmpeg", "SlomoV4L2", "SlomoALSA", "SlomoAudio",
                                                 "SlomoFlow", "SlomoAravis", "SlomoTIFF", "SlomoHDF5", .product(name: "Yams", package: "Yams")]),

        // The rig served over HTTP (`slomo serve`): the state machine, the API, the page, the preview.
        .target(name: "SlomoServe", dependencies: ["SlomoKit", "SlomoCore", "SlomoSystem",
                                                   .product(name: "Hummingbird", package: "hummingbird"),
                                                   .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket")],
                // the page and the API's description, compiled into the binary (no files beside it)
                resources: [.embedInCode("Page/index.html"), .embedInCode("Page/app.js"), .embedInCode("Page/style.css"),
                            .embedInCode("Page/openapi.json")]),

        // The command line.
        .executableTarget(
            name: "slomo",
            dependencies: ["SlomoKit", "SlomoCore", "SlomoSystem", "SlomoServe",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]),

        // Samples users copy; built in CI with everything else.
        .executableTarget(name: "calibration-roundtrip", dependencies: ["SlomoKit", "SlomoCore", "SlomoSystem"],
                          path: "Samples/calibration-roundtrip"),
        .executableTarget(name: "library-tour", dependencies: ["SlomoKit", "SlomoCore", "SlomoSystem"],
                          path: "Samples/library-tour", exclude: ["camera-listing.txt", "camera-controls.txt"]),

        .testTarget(
            name: "SlomoCoreTests",
            dependencies: ["SlomoCore", .product(name: "PropertyBased", package: "swift-property-based")],
            exclude: ["Fixtures"]),
        // Test fixtures at the wrapper layer, shared by the wrapper and use-case tests: a fake V4L2
        // driver behind the ioctl seam, scratch directories, test signals and a WAV writer.
        .target(name: "SlomoTestSupport", dependencies: ["SlomoCore", "SlomoFFmpeg", "SlomoV4L2", "CV4L2"],
                path: "Tests/TestSupport", exclude: ["nofsync-fs.py"]),
        .testTarget(name: "SlomoKitTests",
                    dependencies: ["SlomoKit", "SlomoCore", "SlomoSystem", "SlomoFFmpeg", "SlomoV4L2", "SlomoAudio", "SlomoFlow", "SlomoTestSupport"]),
        .testTarget(name: "SlomoFFmpegTests", dependencies: ["SlomoFFmpeg", "SlomoCore", "SlomoTestSupport"]),
        .testTarget(name: "SlomoAudioTests", dependencies: ["SlomoAudio", "SlomoCore", "SlomoTestSupport"]),
        .testTarget(name: "SlomoV4L2Tests", dependencies: ["SlomoV4L2", "SlomoCore", "CV4L2", "SlomoTestSupport"]),
        .testTarget(name: "SlomoCLITests", dependencies: ["SlomoCore", "SlomoKit", "SlomoSystem", "slomo"]),
        .testTarget(name: "SlomoSystemTests", dependencies: ["SlomoSystem"]),
        .testTarget(name: "SlomoAravisTests", dependencies: ["SlomoAravis", "SlomoCore"]),
        .testTarget(name: "SlomoServeTests", dependencies: ["SlomoServe", "SlomoKit", "SlomoCore"]),
    ],
    cxxLanguageStandard: .cxx17
)
