import Foundation
import SlomoFFmpeg

/// Process-wide set-up that the command line does once at start.
public enum SlomoSetup {
    public static func configure() {
        FFmpegLog.configure(environment: ProcessInfo.processInfo.environment)
        // A parent (a test runner, a job scheduler) may hand us SIGINT/SIGTERM blocked; slomo
        // relies on them to stop cleanly, so unblock them before any thread starts.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
