// A click track played into an ALSA device, with the CLOCK_MONOTONIC time of its samples: the
// reference the audio capture tests compare slomo's recording with (Tests/vivid/audio-checks.sh).
//
//   clicks DEVICE SECONDS [INTERVAL_MS [NOISE_PEAK]]
//
// Plays 48 kHz stereo S16_LE silence with a 2 ms click (full-scale square burst) every INTERVAL_MS
// (default 500; 0: none) starting at sample 12000, over white noise of NOISE_PEAK (S16 units, default
// 0; 328 is -40 dBFS). Prints "C index" for every click's first sample, and
// "P position sec nsec" after every period: the hardware position at that status timestamp
// (frames written − frames still queued), from which the test fits when each sample was played;
// "X n" at the end: underruns (a run with any is not a valid reference). SIGTERM ends the track
// early, cleanly (the tests stop it when the capture it accompanies has ended).
#include <alsa/asoundlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop;
static void on_term(int sig) { (void)sig; stop = 1; }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: clicks DEVICE SECONDS [INTERVAL_MS [NOISE_PEAK]]\n"); return 64; }
    const char *dev = argv[1];
    const long total = (long)(atof(argv[2]) * 48000);
    const long interval = (argc > 3 ? atol(argv[3]) : 500) * 48;
    const long noise = argc > 4 ? atol(argv[4]) : 0;
    unsigned int seed = 12345;
    snd_pcm_t *pcm;
    int rc = snd_pcm_open(&pcm, dev, SND_PCM_STREAM_PLAYBACK, 0);
    if (rc < 0) { fprintf(stderr, "clicks: %s: %s\n", dev, snd_strerror(rc)); return 66; }
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_malloc(&hw);
    snd_pcm_hw_params_any(pcm, hw);
    snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED);
    snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE);
    snd_pcm_hw_params_set_channels(pcm, hw, 2);
    snd_pcm_hw_params_set_rate(pcm, hw, 48000, 0);
    // 200 ms of buffer: under emulation the player must never underrun (each underrun would move its
    // samples against the timeline the test fits); the timestamps make the buffer's size irrelevant
    snd_pcm_uframes_t period = 480, buffer = 9600;
    snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, 0);
    snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer);
    if ((rc = snd_pcm_hw_params(pcm, hw)) < 0) { fprintf(stderr, "clicks: hw params: %s\n", snd_strerror(rc)); return 65; }
    snd_pcm_hw_params_free(hw);
    snd_pcm_sw_params_t *sw;
    snd_pcm_sw_params_malloc(&sw);
    snd_pcm_sw_params_current(pcm, sw);
    snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE);
    snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC);
    snd_pcm_sw_params_set_start_threshold(pcm, sw, period);
    snd_pcm_sw_params(pcm, sw);
    snd_pcm_sw_params_free(sw);
    // SA_RESTART: a blocked write goes on after the signal (an EINTR would read as an underrun)
    struct sigaction sa = { .sa_handler = on_term, .sa_flags = SA_RESTART };
    sigaction(SIGTERM, &sa, NULL);
    short *buf = calloc(period * 2, sizeof(short));
    long written = 0, xruns = 0;
    for (long k = 12000; interval > 0 && k < total; k += interval) printf("C %ld\n", k);
    while (written < total && !stop) {
        for (long i = 0; i < (long)period; i++) {
            long s = written + i, since = interval > 0 ? (s - 12000) % interval : 96;
            long v = (s >= 12000 && since < 96) ? ((since / 12) % 2 ? -28000 : 28000) : 0;
            if (noise > 0) { seed = seed * 1664525u + 1013904223u; v += (long)((seed >> 16) % (2 * noise + 1)) - noise; }
            buf[2 * i] = buf[2 * i + 1] = v;
        }
        snd_pcm_sframes_t n = snd_pcm_writei(pcm, buf, period);
        if (n < 0) {
            xruns++;
            n = snd_pcm_recover(pcm, (int)n, 1);
            if (n < 0) { fprintf(stderr, "clicks: %s\n", snd_strerror((int)n)); return 74; }
            continue;
        }
        written += n;
        snd_pcm_uframes_t avail;
        snd_htimestamp_t ts;
        if (snd_pcm_htimestamp(pcm, &avail, &ts) == 0 && (ts.tv_sec || ts.tv_nsec)) {
            long queued = (long)buffer - (long)avail;
            printf("P %ld %ld %ld\n", written - queued, (long)ts.tv_sec, (long)ts.tv_nsec);
        }
    }
    printf("X %ld\n", xruns);
    snd_pcm_drain(pcm);
    snd_pcm_close(pcm);
    return 0;
}
