// swift-tools-version: 6.1
// libFuzzer targets for slomo's parsers of untrusted text and headers. Built only by
// `scripts/dev.sh fuzz` (with -sanitize=fuzzer,address); the main package does not build them.
import PackageDescription

let fuzz: [String: [Target.Dependency]] = [
    "fuzz-manifest": [.product(name: "SlomoKit", package: "main")],
    "fuzz-listing": [.product(name: "SlomoCore", package: "main")],
    "fuzz-values": [.product(name: "SlomoKit", package: "main"), .product(name: "SlomoCore", package: "main")],
    "fuzz-wav": [.product(name: "SlomoKit", package: "main")],
]

let package = Package(
    name: "slomo-fuzz",
    dependencies: [.package(name: "main", path: "../..")],
    targets: fuzz.keys.sorted().map { .executableTarget(name: $0, dependencies: fuzz[$0]!, path: "Sources/\($0)") }
)
