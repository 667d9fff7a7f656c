import ArgumentParser
import Foundation
import SlomoCore
import SlomoKit

/// `slomo devices [--json] [--capture-only]`: every /dev/video* node and what QUERYCAP says.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List V4L2 video nodes (QUERYCAP), GenICam cameras (Aravis) and sound cards' capture devices (ALSA).",
        discussion: """
            Nodes without video capture (output, metadata, touch…) are listed and marked; capture and \
            'slomo formats' use only capture nodes. Nodes that cannot be opened are reported on stderr \
            (in JSON: "problems") and do not change the exit status. Sound capture devices are listed by \
            their ALSA name for 'slomo capture --audio NAME' (in JSON: "soundCapture"). GenICam cameras (GigE \
            Vision, USB3 Vision) are listed as genicam:ID (in JSON: "genicam"); finding GigE Vision cameras \
            broadcasts a discovery packet on every network interface. SLOMO_GENICAM_INTERFACES chooses the \
            interfaces searched (GigEVision,USB3Vision by default; none for none).
            Examples:
              slomo devices
              slomo devices --json
            """)

    @Flag(help: "Print JSON: {\"devices\": [...], \"problems\": [...], \"soundCapture\": [...], \"genicam\": [...]}.") var json = false
    @Flag(help: "Only video-capture nodes.") var captureOnly = false

    func run() throws {
        var (devices, problems) = DeviceService.devices()
        if captureOnly { devices = devices.filter(\.isCapture) }
        let sound = DeviceService.soundCaptureDevices()
        let genicam = GenICamService.devices()
        if json {
            try JSONOutput.print(DevicesReport(devices: devices, problems: problems, soundCapture: sound, genicam: genicam))
            return
        }
        if devices.isEmpty { Console.out("no V4L2 video nodes") }
        for d in devices {
            let kind: String
            if d.isCapture {
                kind = d.isMultiplanar ? "capture (multi-planar)" : "capture"
            } else {
                kind = d.isMetadata ? "metadata (skipped)" : "not capture (skipped)"
            }
            let rate = d.hasTimePerFrame.map { $0 ? ", rate settable" : ", fixed rate (no TIMEPERFRAME)" } ?? ""
            Console.out("\(d.path)\t\(d.driver)\t\(d.card)\t\(d.bus)\t\(kind)\(rate)\t[\(d.capabilityNames.joined(separator: ", "))]")
        }
        for g in genicam { Console.out("\(g.name)\t\(g.vendor)\t\(g.model)\tserial \(g.serial)\t\(g.protocol) \(g.address)\tcapture (GenICam)") }
        for a in sound { Console.out("\(a.name)\t\(a.cardId)\t\(a.cardName)\t\(a.deviceName)\tsound capture") }
        for p in problems { Console.error("slomo: warning: \(p)") }
    }
}
