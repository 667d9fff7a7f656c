import Foundation

/// What the kernel says of the machine's memory.
public enum SystemMemory {
    /// MemAvailable from /proc/meminfo, in bytes (memory a new allocation can have without
    /// swapping); nil where the file cannot be read.
    public static func available() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            if let kb = Int64(line.split(separator: " ")[1]) { return kb * 1024 }
        }
        return nil
    }
}
