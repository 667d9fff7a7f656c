import Foundation
import SlomoFFmpeg

/// Process-wide set-up that the command line does once at start.
public enum SlomoSetup {
    public static func configure() {
        FFmpegLog.configure(environment: ProcessInfo.processInfo.environment)
    }
}
