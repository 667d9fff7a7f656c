import Foundation
import SlomoCore
import SlomoSystem

/// Where the server listens and who it answers: the token, the Host names it accepts, the largest
/// request body. Checked before anything starts (`ServeAccess.check`).
public struct ServeAccess: Sendable {
    public var host: String
    public var port: Int
    /// nil: `--no-token`, allowed on a loopback address only.
    public var token: String?
    /// More names the Host header may carry (a reverse proxy's, a DNS name of the rig).
    public var allowedHosts: [String]
    /// The largest request body read, in bytes.
    public var maxBody = 64 * 1024
    public init(host: String = "127.0.0.1", port: Int = 8080, token: String?, allowedHosts: [String] = []) {
        self.host = host
        self.port = port
        self.token = token
        self.allowedHosts = allowedHosts
    }

    /// `HOST:PORT`, `[V6]:PORT` or `:PORT` (loopback).
    public static func parseListen(_ text: String) -> (host: String, port: Int)? {
        var host: Substring, port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        if host.isEmpty { host = "127.0.0.1" }
        guard let p = Int(port), (0...65535).contains(p), !host.contains(" ") else { return nil }
        return (String(host), p)
    }

    /// An address only this machine can reach: 127.0.0.0/8, ::1, localhost.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The token file's token, or a new random one (256 bits, hex) written with mode 0600.
    public static func token(file: String) throws -> String {
        let fm = FileManager.default
        if fm.fileExists(atPath: file) {
            let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.count >= 16, !text.contains(where: { $0.isWhitespace }) else {
                throw ServeError.badTokenFile(file, "it holds no token of 16 characters or more on one line")
            }
            let mode = (try? fm.attributesOfItem(atPath: file)[.posixPermissions] as? Int) ?? 0
            guard mode & 0o077 == 0 else { throw ServeError.badTokenFile(file, "others can read it (mode \(String(mode, radix: 8))): chmod 600 it") }
            return text
        }
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let token = bytes.map { String(format: "%02x", $0) }.joined()
        do { try FileDescriptor.createPrivate(file, bytes: Array((token + "\n").utf8)) } catch {
            throw ServeError.badTokenFile(file, "it cannot be created (\(error))")
        }
        return token
    }

    /// Same bytes, compared in a time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<Swift.max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }

    /// The Host header's name is one the server answers to (DNS rebinding: a foreign name is refused).
    func hostAllowed(_ authority: String?, boundPort: Int) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        var name = authority, port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            name = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            if rest.hasPrefix(":") {
                port = Int(rest.dropFirst())
                if port == nil { return false }
            }
        } else if let colon = authority.lastIndex(of: ":") {
            name = String(authority[..<colon])
            port = Int(authority[authority.index(after: colon)...])
            if port == nil { return false }
        }
        if let port, port != boundPort { return false }
        let names: Set<String> = Set(
            (["localhost", "127.0.0.1", "[::1]", host, host.contains(":") ? "[\(host)]" : host] + allowedHosts).map { $0.lowercased() })
        return names.contains(name.lowercased())
    }
}

/// Why `slomo serve` cannot start.
public enum ServeError: SlomoFailure {
    case badTokenFile(String, Wording)
    case tokenNeededOffLoopback(String)
    case outDir(String, Wording)
    case portInUse(String, Int, Wording)
    case badListen(String)

    public var kind: FailureKind {
        switch self {
        case .badTokenFile: .cannotCreate
        case .tokenNeededOffLoopback, .badListen: .badRequest
        case .outDir: .cannotCreate
        case .portInUse: .unavailable
        }
    }

    public var wording: Wording {
        switch self {
        case .badTokenFile(let f, let why): "\(f): the token file cannot be used: \(why)"
        case .tokenNeededOffLoopback(let h):
            "\(h) is not a loopback address: without a token anyone who reaches it could operate the rig (keep the token, or listen on 127.0.0.1 and use an SSH tunnel)"
        case .outDir(let d, let why): "\(d): the output directory cannot be written: \(why)"
        case .portInUse(let h, let p, let why): "\(h):\(p): cannot listen: \(why)"
        case .badListen(let t): "'\(t)': expected HOST:PORT (127.0.0.1:8080)"
        }
    }
}
