import Foundation
import SlomoFFmpeg

/// Process-wide set-up that the command line does once at start.
public enum SlomoSetup {
    public static func configure() {
        FFmpegLog.configure(environment: ProcessInfo.processInfo.environment)
        // A parent (a test runner, a job scheduler, a thread of a script's interpreter) may hand us
        // SIGINT/SIGTERM/SIGUSR1 blocked; slomo relies on them to stop cleanly and to trigger a shot
        // (`--trigger signal`), so unblock them before any thread starts. Found by the documentation
        // examples' test: a signal trigger sent from a test runner's child never arrived.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
