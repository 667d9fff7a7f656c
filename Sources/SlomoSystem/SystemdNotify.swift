import Glibc

/// systemd's readiness and watchdog protocol (`sd_notify(3)`, written here: one datagram to the
/// socket `NOTIFY_SOCKET` names, a path or an abstract name `@…`), for a service of `Type=notify`:
/// `READY=1` once it serves, `STATUS=…` lines, `WATCHDOG=1` pings, `STOPPING=1`. Without
/// `NOTIFY_SOCKET` (not started by systemd) every call does nothing.
public enum SystemdNotify {
    /// The socket systemd listens on, when it gave one.
    public static var socketPath: String? {
        guard let p = getenv("NOTIFY_SOCKET") else { return nil }
        let s = String(cString: p)
        return s.isEmpty ? nil : s
    }

    /// The watchdog period systemd asks for (`WATCHDOG_USEC`, µs), when it is meant for this
    /// process (`WATCHDOG_PID` unset or this process's id); nil when there is no watchdog.
    public static var watchdogMicroseconds: Int64? {
        guard let u = getenv("WATCHDOG_USEC").flatMap({ Int64(String(cString: $0)) }), u > 0 else { return nil }
        if let pid = getenv("WATCHDOG_PID").flatMap({ Int32(String(cString: $0)) }), pid != getpid() { return nil }
        return u
    }

    /// Sends `state` (`READY=1\nSTATUS=serving`) as one datagram; false when there is no socket or
    /// the send failed (systemd gone: nothing to do about it).
    @discardableResult
    public static func send(_ state: String) -> Bool {
        guard let path = socketPath else { return false }
        var name = Array(path.utf8)
        if name.first == UInt8(ascii: "@") { name[0] = 0 }  // an abstract socket: a leading NUL
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard name.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in name.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + name.count + (name.first == 0 ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
        return sent == bytes.count
    }
}

/// Whether a TCP server on this machine answers: connects to `host:port` (a numeric IPv4 or IPv6
/// address), sends one HTTP request line and waits up to `milliseconds` for `HTTP/` to come back.
/// A server whose loop is stuck accepts (the kernel does) but does not answer.
public enum LoopbackProbe {
    public static func answers(host: String, port: Int, path: String = "/", milliseconds: Int32 = 2000) -> Bool {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let a = list else { return false }
        defer { freeaddrinfo(list) }
        let fd = socket(a.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var wait = timeval(tv_sec: Int(milliseconds / 1000), tv_usec: Int(milliseconds % 1000) * 1000)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, a.pointee.ai_addr, a.pointee.ai_addrlen) == 0 else { return false }
        let shown = host.contains(":") ? "[\(host)]" : host
        let request = Array("GET \(path) HTTP/1.0\r\nHost: \(shown):\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return false }
        var reply = [UInt8](repeating: 0, count: 5)
        var got = 0
        while got < 5 {
            let n = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, 5 - got, 0) }
            if n <= 0 { break }
            got += n
        }
        return got == 5 && reply == Array("HTTP/".utf8)
    }
}
