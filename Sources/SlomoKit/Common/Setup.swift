import Foundation
import SlomoFFmpeg

/// Process-wide set-up that the command line does once at start. Signals are the application's
/// own (`ProcessSignals.own()` in SlomoSystem), not set up here.
public enum SlomoSetup {
    public static func configure() {
        FFmpegLog.configure(environment: ProcessInfo.processInfo.environment)
    }
}
