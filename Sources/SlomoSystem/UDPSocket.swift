import Glibc

/// An IPv4 address and port (`127.0.0.1:9000`, a multicast group `239.1.2.3:9000`).
public struct IPv4Endpoint: Sendable, Equatable, CustomStringConvertible {
    /// The address in network byte order, as `sockaddr_in` holds it.
    public let address: UInt32
    public let port: UInt16

    /// Parses a dotted quad (`inet_pton`); nil when it is not one.
    public init?(host: String, port: UInt16) {
        var a = in_addr()
        guard inet_pton(AF_INET, host, &a) == 1 else { return nil }
        address = a.s_addr
        self.port = port
    }

    /// 224.0.0.0/4.
    public var isMulticast: Bool { UInt32(bigEndian: address) >> 28 == 0xE }

    public var host: String {
        var a = in_addr(s_addr: address)
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
        return cText(text)
    }

    public var description: String { "\(host):\(port)" }

    var sockaddr: sockaddr_in {
        var s = sockaddr_in()
        s.sin_family = sa_family_t(AF_INET)
        s.sin_port = port.bigEndian
        s.sin_addr = in_addr(s_addr: address)
        return s
    }
}

/// A UDP socket: a listener bound to a port (a multicast group joined when the address is one), or
/// a sender. Datagrams are read with a timeout, so the reader can see the capture end.
public struct UDPSocket: Sendable {
    public let descriptor: FileDescriptor

    /// A socket that receives datagrams sent to `endpoint` (`bind`; for a multicast group, bound
    /// to the group's port on every address and `IP_ADD_MEMBERSHIP` on the default interface).
    public static func listening(on endpoint: IPv4Endpoint) throws(Errno) -> UDPSocket {
        let fd = try retryingInterrupts { socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        let s = UDPSocket(descriptor: FileDescriptor(rawValue: fd))
        do throws(Errno) {
            if endpoint.isMulticast {
                var yes: Int32 = 1
                _ = try retryingInterrupts { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) }
            }
            var addr = endpoint.sockaddr
            if endpoint.isMulticast { addr.sin_addr = in_addr(s_addr: INADDR_ANY) }
            _ = try retryingInterrupts {
                withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            if endpoint.isMulticast {
                var group = ip_mreq(imr_multiaddr: in_addr(s_addr: endpoint.address), imr_interface: in_addr(s_addr: INADDR_ANY))
                _ = try retryingInterrupts { setsockopt(fd, Int32(IPPROTO_IP), IP_ADD_MEMBERSHIP, &group, socklen_t(MemoryLayout<ip_mreq>.size)) }
            }
        } catch {
            s.close()
            throw error
        }
        return s
    }

    /// A socket for sending (`socket` only; each datagram names its destination).
    public static func sender() throws(Errno) -> UDPSocket {
        UDPSocket(
            descriptor: FileDescriptor(rawValue: try retryingInterrupts { socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }))
    }

    /// The port the socket is bound to (after binding to port 0, the one the kernel chose).
    public var localPort: UInt16 {
        var addr = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor.rawValue, $0, &len) } }
        return UInt16(bigEndian: addr.sin_port)
    }

    /// One datagram and where it came from, or nil when none came within `milliseconds`.
    public func receive(maxBytes: Int = 2048, milliseconds: Int32) throws(Errno) -> (bytes: [UInt8], from: IPv4Endpoint)? {
        guard descriptor.waitForInput(milliseconds: milliseconds) else { return nil }
        var buffer = [UInt8](repeating: 0, count: maxBytes)
        var from = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = try retryingInterrupts {
            buffer.withUnsafeMutableBytes { b in
                withUnsafeMutablePointer(to: &from) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        recvfrom(descriptor.rawValue, b.baseAddress, b.count, Int32(MSG_DONTWAIT), $0, &len)
                    }
                }
            }
        }
        let sender = IPv4Endpoint(address: from.sin_addr.s_addr, port: UInt16(bigEndian: from.sin_port))
        return (Array(buffer.prefix(n)), sender)
    }

    /// Sends one datagram to `endpoint` (a multicast group: on the default interface, TTL 1).
    public func send(_ bytes: [UInt8], to endpoint: IPv4Endpoint) throws(Errno) {
        var addr = endpoint.sockaddr
        _ = try retryingInterrupts {
            bytes.withUnsafeBytes { b in
                withUnsafePointer(to: &addr) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        sendto(descriptor.rawValue, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
        }
    }

    public func close() { descriptor.close() }
}

extension IPv4Endpoint {
    init(address: UInt32, port: UInt16) {
        self.address = address
        self.port = port
    }
}
