// swift-tools-version: 6.1
// libFuzzer targets for slomo's parsers of untrusted text and headers. Built only by
// `scripts/dev.sh fuzz` (with -sanitize=fuzzer,address); the main package does not build them.
import PackageDescription

// Each target feeds one of SlomoKit's ParserHarness entries (the tests replay seeds through the same).
let targets = ["fuzz-body", "fuzz-lab", "fuzz-listing", "fuzz-manifest", "fuzz-trigger", "fuzz-values", "fuzz-wav"]

let package = Package(
    name: "slomo-fuzz",
    dependencies: [.package(name: "main", path: "../..")],
    targets: [.target(name: "FuzzDriver", path: "Sources/FuzzDriver")]
        + targets.map { .executableTarget(name: $0, dependencies: ["FuzzDriver", .product(name: "SlomoKit", package: "main")], path: "Sources/\($0)") }
)
