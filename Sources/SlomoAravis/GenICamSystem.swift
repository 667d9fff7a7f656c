internal import CAravis
import Foundation
import SlomoCore

/// One GenICam camera as discovery lists it.
public struct GenICamDeviceInfo: Sendable, Equatable, Codable {
    /// What `genicam:ID` takes: Aravis's device id (`Aravis-Fake-GV01`, `Fake_1`).
    public var id: String
    public var vendor: String
    public var model: String
    public var serial: String
    /// `GigEVision`, `USB3Vision` or `Fake`.
    public var `protocol`: String
    /// The IP address (GigE Vision) or the USB bus position.
    public var address: String
    /// `genicam:ID`.
    public var name: String { "genicam:\(id)" }
}

/// Aravis's process-wide state: which transport interfaces it searches, and discovery.
///
/// Discovery on GigE Vision broadcasts a packet on every network interface. Which interfaces are
/// searched is `SLOMO_GENICAM_INTERFACES` (comma-separated Aravis names: `GigEVision`, `USB3Vision`,
/// `Fake`; `none` for none), by default GigE Vision and USB3 Vision. A camera named `Fake_…`
/// is Aravis's in-process fake camera: only the `Fake` interface is searched for it (no network).
public enum GenICamSystem {
    public static let environmentKey = "SLOMO_GENICAM_INTERFACES"
    public static let knownInterfaces = ["GigEVision", "USB3Vision", "Fake"]
    private static let lock = NSLock()

    /// The interfaces searched (the environment's choice), plus `Fake` for a `Fake_…` camera.
    public static func interfaces(for id: String? = nil) -> [String] {
        var list = ["GigEVision", "USB3Vision"]
        if let v = ProcessInfo.processInfo.environment[environmentKey] {
            list =
                v == "none"
                ? []
                : v.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
                    .filter { knownInterfaces.contains($0) }
        }
        // Aravis's in-process fake: only its own interface (opening an unknown id on GigE Vision broadcasts)
        if let id, id.hasPrefix("Fake_") { return ["Fake"] }
        return list
    }

    /// Runs `body` with exactly `interfaces` enabled (Aravis's interface switches are global).
    static func with<T>(_ interfaces: [String], _ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        for name in knownInterfaces {
            if interfaces.contains(name) { arv_enable_interface(name) } else { arv_disable_interface(name) }
        }
        return try body()
    }

    /// The cameras found on the interfaces searched (empty with none).
    public static func list() -> [GenICamDeviceInfo] {
        let interfaces = interfaces()
        guard !interfaces.isEmpty else { return [] }
        return with(interfaces) {
            arv_update_device_list()
            let n = arv_get_n_devices()
            return (0..<n).map { i in
                func s(_ p: UnsafePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
                return GenICamDeviceInfo(
                    id: s(arv_get_device_id(i)), vendor: s(arv_get_device_vendor(i)), model: s(arv_get_device_model(i)),
                    serial: s(arv_get_device_serial_nbr(i)), protocol: s(arv_get_device_protocol(i)),
                    address: s(arv_get_device_address(i)))
            }
        }
    }
}
