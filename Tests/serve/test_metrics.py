"""`GET /metrics` (Prometheus's text format, behind the token): checked by `promtool check metrics`,
against `status` and the shot reports, and scraped by Prometheus itself (Debian's prometheus) on
loopback with the token as its bearer credentials, its query results equal to what the API says."""
import json
import os
import re
import socket
import subprocess
import time
import urllib.parse
import urllib.request

from test_api import arm_and_shoot


def samples(text):
    """{(name, labels): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$", line)
        assert m, "not a sample line: %r" % line
        out[(m.group(1), m.group(2) or "")] = float(m.group(3))
    return out


def test_metrics_are_what_status_and_the_shots_say(server):
    c = server.client()
    assert c.get("/metrics", auth=False).status == 401
    arm_and_shoot(c)
    c.wait(lambda s: s["shotsSaved"] == 1 and s["state"] == "idle", what="the shot saved")
    before = c.status()
    r = c.get("/metrics")
    after = c.status()
    assert r.status == 200 and r.header("content-type").startswith("text/plain; version=0.0.4"), r.headers
    text = r.body.decode()
    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert lint.returncode == 0 and not lint.stdout.strip() and not lint.stderr.strip(), lint.stdout + lint.stderr
    m = samples(text)
    assert before["framesCaptured"] <= m[("slomo_frames_captured_total", "")] <= after["framesCaptured"]
    assert m[("slomo_frames_dropped_total", '{by="slomo"}')] == after["droppedBySlomo"]
    assert m[("slomo_rig_state", '{state="idle"}')] == 1 and m[("slomo_rig_state", '{state="armed"}')] == 0
    assert m[("slomo_shots_saved_total", "")] == 1 and m[("slomo_shots", "")] == 1
    assert m[("slomo_ring_frames", "")] == after["ringFrames"]
    report = c.get("/api/v1/shots").json()["shots"][0]["report"]
    assert m[("slomo_trigger_decision_latency_seconds_count", "")] == 1
    assert abs(m[("slomo_trigger_decision_latency_seconds_sum", "")] - report["decisionLatencyMs"] / 1000) < 1e-6
    assert m[("slomo_trigger_decision_latency_seconds_bucket", '{le="+Inf"}')] == 1
    assert m[("slomo_export_jobs", '{state="running"}')] == 0
    free = [v for (name, labels), v in m.items() if name == "slomo_disk_free_bytes"]
    st = os.statvfs(server.out_dir)
    assert len(free) == 1 and abs(free[0] - st.f_bavail * st.f_frsize) < 64 << 20, (free, st.f_bavail * st.f_frsize)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def query(port, q):
    url = "http://127.0.0.1:%d/api/v1/query?query=%s" % (port, urllib.parse.quote(q))
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)["data"]["result"]


def test_prometheus_scrapes_the_rig(server, scratch):
    c = server.client()
    arm_and_shoot(c)
    c.wait(lambda s: s["shotsSaved"] == 1 and s["state"] == "idle", what="the shot saved")
    port = free_port()
    config = os.path.join(scratch, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global: {scrape_interval: 1s}\nscrape_configs:\n  - job_name: slomo\n"
                "    authorization: {credentials: %s}\n    static_configs: [{targets: ['127.0.0.1:%d']}]\n" % (server.token, server.port))
    prom = subprocess.Popen(["prometheus", "--config.file", config, "--storage.tsdb.path", os.path.join(scratch, "tsdb"),
                             "--web.listen-address", "127.0.0.1:%d" % port], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        result = []
        end = time.time() + 60
        while time.time() < end and not result:
            time.sleep(0.5)
            try:
                result = query(port, "slomo_shots_saved_total")
            except OSError:
                continue
        assert result, "Prometheus scraped nothing in 60 s"
        assert result[0]["metric"]["job"] == "slomo" and float(result[0]["value"][1]) == c.status()["shotsSaved"] == 1
        assert query(port, "up{job='slomo'}")[0]["value"][1] == "1"
        assert float(query(port, 'slomo_rig_state{state="idle"}')[0]["value"][1]) == 1
        count = query(port, "slomo_trigger_decision_latency_seconds_count")
        assert float(count[0]["value"][1]) == 1
        frames = float(query(port, "slomo_frames_captured_total")[0]["value"][1])
        assert 0 < frames <= c.status()["framesCaptured"]
    finally:
        prom.terminate()
        prom.wait(30)


def test_an_arm_the_disk_cannot_hold_is_refused(servers, scratch):
    """A 20 MB tmpfs as the output directory (root only; else SKIPPED): a take of 0.5 s + 0.5 s of
    640x360 raw frames at 240 fps (~83 MB into Matroska) cannot fit, so arming is refused (409, one
    sentence naming the directory, the free space and the need), a warning event and
    slomo_disk_refusals_total say so, and nothing is written; a shorter window that fits is armed."""
    import pytest
    from client import Server
    from conftest import SYNTHETIC
    if os.getuid() != 0:
        pytest.skip("SKIPPED: not root, cannot mount a small tmpfs")
    disk = os.path.join(scratch, "disk")
    os.makedirs(disk)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", disk]).returncode != 0:
        pytest.skip("SKIPPED: mount -t tmpfs failed")
    try:
        s = Server(SYNTHETIC, disk, token_file=os.path.join(scratch, "token"), extra=["--codec", "ffv1", "--min-free", "30M"])
        servers.append(s)
        c = s.client()
        r = c.post("/api/v1/arm")
        assert r.status == 409, r.body
        words = r.json()["error"]
        assert disk in words and "free" in words and "may need" in words, words
        assert c.status()["state"] == "idle"
        m = samples(c.get("/metrics").body.decode())
        assert m[("slomo_disk_refusals_total", "")] == 1
        # 0.02 s + 0.02 s (11 frames, ~4 MB) fits: armed, with the --min-free warning on stderr
        r = c.post("/api/v1/arm", {"preTrigger": 0.02, "postTrigger": 0.02})
        assert r.status == 200, r.body
        assert any("below --min-free" in line for line in s.lines), s.lines
        assert [f for f in os.listdir(disk) if f.startswith("shot")] == []
        s.stop()
    finally:
        subprocess.run(["umount", "-l", disk])
