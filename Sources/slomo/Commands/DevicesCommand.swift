import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List V4L2 video nodes (QUERYCAP): path, driver, card, bus, capabilities.",
        discussion: "Nodes without video capture (output, metadata, VBI…) are listed and marked; capture uses only capture nodes.")

    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Only video-capture nodes.") var captureOnly = false

    func run() throws {
        var (devices, problems) = DeviceService.devices()
        if captureOnly { devices = devices.filter(\.isCapture) }
        if json {
            struct Out: Encodable { var devices: [DeviceInfo]; var problems: [String] }
            try JSONOutput.print(Out(devices: devices, problems: problems))
        } else {
            if devices.isEmpty { Console.out("no V4L2 devices") }
            for d in devices {
                let kind = d.isCapture ? (d.isMultiplanar ? "capture (multi-planar)" : "capture") : (d.isMetadata ? "metadata" : "not capture")
                Console.out("\(d.path)\t\(d.driver)\t\(d.card)\t\(d.bus)\t\(kind)\t[\(d.capabilityNames.joined(separator: ", "))]")
            }
            for p in problems { Console.error("slomo: warning: \(p)") }
        }
    }
}
