"""What `slomo serve` refuses, each with its status and one sentence, and nothing changed."""
import os
import re
import time
import socket
import stat
import subprocess

from client import INTERRUPTED, Client, Server, binary
from conftest import SYNTHETIC


def refused(r, status, words):
    assert r.status == status, (r.status, r.body)
    body = r.json()
    assert words in body["error"], body
    assert not re.search(r"[.!?] [A-Z]", body["error"]) and "\n" not in body["error"], body     # one sentence
    assert r.header("access-control-allow-origin") is None                     # no CORS, ever


def test_tokens_origins_hosts(server):
    c = server.client()
    anon = Client("127.0.0.1", server.port, None)
    refused(anon.post("/api/v1/arm"), 401, "no token")
    assert anon.post("/api/v1/arm").header("www-authenticate") == "Bearer"
    refused(anon.get("/api/v1/status"), 401, "no token")
    refused(anon.get("/preview.mjpg"), 401, "no token")
    refused(anon.get("/api/v1/shots/1/file"), 401, "no token")
    wrong = Client("127.0.0.1", server.port, "0" * 64)
    refused(wrong.post("/api/v1/arm"), 401, "wrong token")
    # a page elsewhere cannot drive the rig, even with the token in the browser's hands
    foreign = Client("127.0.0.1", server.port, server.token, origin="http://evil.example")
    refused(foreign.post("/api/v1/arm"), 403, "origin")
    refused(foreign.request("PATCH", "/api/v1/settings", {"shots": 3}), 403, "origin")
    assert foreign.websocket() in (400, 403)        # refused, never upgraded
    assert Client("127.0.0.1", server.port, None).websocket() in (400, 401)
    # DNS rebinding: a name this server is not
    rebound = Client("127.0.0.1", server.port, server.token, host_header=f"attacker.example:{server.port}")
    refused(rebound.get("/api/v1/status"), 403, "Host")
    refused(Client("127.0.0.1", server.port, server.token, host_header="127.0.0.1:1").get("/api/v1/status"), 403, "Host")
    # no state change on GET
    for path in ("/api/v1/arm", "/api/v1/trigger", "/api/v1/disarm"):
        refused(c.get(path), 405, "POST")
    assert c.status()["state"] == "idle"
    assert c.get("/api/v1/settings").json()["shots"] == 1


def test_bad_bodies_and_paths(server):
    c = server.client()
    refused(c.request("PATCH", "/api/v1/settings", raw=b'{"preTrigger": ', headers={"Content-Type": "application/json"}), 400, "not JSON")
    refused(c.request("PATCH", "/api/v1/settings", raw=b'[1, 2]', headers={"Content-Type": "application/json"}), 400, "JSON object")
    refused(c.request("PATCH", "/api/v1/settings", raw=b'preTrigger=2', headers={"Content-Type": "application/x-www-form-urlencoded"}), 415, "JSON")
    big = b'{"shots": 1, "x": "' + b"a" * (70 * 1024) + b'"}'
    refused(c.request("PATCH", "/api/v1/settings", raw=big, headers={"Content-Type": "application/json"}), 413, "bytes")
    refused(c.request("PATCH", "/api/v1/settings", raw=big, headers={"Content-Type": "application/json"}, chunked=True), 413, "bytes")
    assert c.request("PATCH", "/api/v1/settings", raw=b'{"shots": 2}', headers={"Content-Type": "application/json"}, chunked=True).status == 200
    refused(c.post("/api/v1/arm", {"preTrigger": "soon"}), 400, "preTrigger")
    refused(c.post("/api/v1/arm", {"shots": True}), 400, "shots")
    assert c.status()["state"] == "idle"
    # paths: only the output directory's files, by id
    for path in ("/api/v1/shots/..%2F..%2Fetc%2Fpasswd/file", "/api/v1/shots/1/../../../etc/passwd", "/../../etc/passwd",
                 "/api/v1/jobs/%2e%2e/file", "/api/v1/shots/-1/file"):
        r = c.get(path)
        assert r.status in (400, 404), (path, r.status)
        assert b"root:" not in r.body
    refused(c.get("/api/v1/shots/abc"), 400, "id")
    assert c.request("PATCH", "/api/v1/settings", {"shots": 1}).status == 200
    refused(c.get("/api/v1/shots/7"), 404, "no shot 7")
    refused(c.get("/api/v1/jobs/3"), 404, "no job 3")
    refused(c.post("/api/v1/shots/9/export", {"rate": 0.5}), 404, "no shot 9")


def test_page_session_cookie(server):
    c = Client("127.0.0.1", server.port, None)
    assert c.get("/").status == 401
    refused(c.get("/?token=" + "1" * 64), 401, "wrong token")
    r = c.get("/?token=" + server.token)
    assert r.status == 303 and r.header("location") == "/"
    cookie = r.header("set-cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    session = cookie.split(";")[0]
    page = Client("127.0.0.1", server.port, None, cookie=session)
    r = page.get("/")
    assert r.status == 200 and b'id="preview"' in r.body
    assert "default-src 'self'" in r.header("content-security-policy")
    assert r.header("x-frame-options") == "DENY"
    assert page.get("/api/v1/status").status == 200
    # a change with the cookie must say where it comes from, and come from here
    refused(page.post("/api/v1/arm"), 403, "Origin")
    same = Client("127.0.0.1", server.port, None, cookie=session, origin=f"http://127.0.0.1:{server.port}")
    assert same.post("/api/v1/arm").status == 200
    assert same.post("/api/v1/disarm").status == 200
    # the live pictures' WebSocket with the cookie: only from this origin
    assert page.websocket() in (400, 403)
    ws = same.websocket()
    assert not isinstance(ws, int), ws
    header, jpeg = ws.message()
    ws.close()
    assert jpeg[:2] == b"\xff\xd8"


def run(args, **kw):
    return subprocess.run([binary(), "serve", *args], capture_output=True, text=True, timeout=60, **kw)


def one_line(p):
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, p.stderr
    return lines[0]


def test_refusals_before_start(scratch):
    out = os.path.join(scratch, "out")
    # --no-token only where nobody else can reach it
    p = run(SYNTHETIC + ["--out-dir", out, "--no-token", "--listen", "0.0.0.0:0"])
    assert p.returncode == 64 and "not a loopback address" in one_line(p)
    assert not os.path.exists(out)
    # an output directory that cannot be written: 73, before the camera opens
    blocker = os.path.join(scratch, "file")
    open(blocker, "w").close()
    p = run(SYNTHETIC + ["--out-dir", blocker, "--token-file", os.path.join(scratch, "t")])
    assert p.returncode == 73 and "output directory" in one_line(p)
    p = run(SYNTHETIC + ["--out-dir", "/proc/slomo-out", "--token-file", os.path.join(scratch, "t")])
    assert p.returncode == 73, p.stderr
    # a port in use: 69
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    p = run(SYNTHETIC + ["--out-dir", out, "--listen", f"127.0.0.1:{port}", "--token-file", os.path.join(scratch, "t")])
    busy.close()
    assert p.returncode == 69 and "in use" in one_line(p), p.stderr
    # the token file: made with mode 0600, reused, refused when others can read it
    tf = os.path.join(scratch, "t")
    assert stat.S_IMODE(os.stat(tf).st_mode) == 0o600
    token = open(tf).read().strip()
    assert len(token) == 64
    os.chmod(tf, 0o644)
    p = run(SYNTHETIC + ["--out-dir", out, "--token-file", tf, "--listen", "127.0.0.1:0"])
    assert p.returncode == 73 and "chmod 600" in one_line(p)


def test_no_token_on_loopback(scratch):
    s = Server(SYNTHETIC, os.path.join(scratch, "out"), extra=["--no-token"])
    try:
        assert s.token is None
        c = Client("127.0.0.1", s.port, None)
        assert c.get("/api/v1/status").status == 200
        # still no change from another origin
        refused(Client("127.0.0.1", s.port, None, origin="http://evil.example").post("/api/v1/arm"), 403, "origin")
    finally:
        assert s.stop() == INTERRUPTED


def test_files_only_from_the_output_directory(server, scratch):
    """A shot file replaced by a link to a file outside the output directory is not served."""
    c = server.client()
    assert c.post("/api/v1/arm").status == 200
    c.wait(lambda s: s.get("preTriggerFill") == 1, what="armed")
    assert c.post("/api/v1/trigger").status == 202
    c.wait(lambda s: s["shotsSaved"] == 1 and s["state"] == "idle", what="the shot saved")
    path = os.path.join(server.out_dir, c.get("/api/v1/shots/1").json()["file"])
    secret = os.path.join(scratch, "secret.txt")
    with open(secret, "w") as f:
        f.write("not for the network\n")
    os.remove(path)
    os.symlink(secret, path)
    refused(c.get("/api/v1/shots/1/file"), 403, "output directory")
    os.remove(path)
    refused(c.get("/api/v1/shots/1/file"), 404, "not in the output directory")


def test_concurrent_changes_keep_one_camera(server):
    """Window changes and an arm at once: each is answered, one after another; the rig ends with
    one camera running the window the settings say."""
    import threading
    c = server.client()
    results = []
    def patch(v):
        results.append(c.request("PATCH", "/api/v1/settings", {"preTrigger": v}).status)
    threads = [threading.Thread(target=patch, args=(v,)) for v in ("1/4", "1/2", "3/4")]
    threads.append(threading.Thread(target=lambda: results.append(c.post("/api/v1/arm").status)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == 4 and all(r in (200, 409) for r in results), results
    s = c.wait(lambda s: s["state"] in ("idle", "armed") and s["framesCaptured"] > 0, what="the camera streaming")
    pre = c.get("/api/v1/settings").json()["preTrigger"]
    assert s["preFrames"] == 240 * pre["numerator"] // pre["denominator"], (s["preFrames"], pre)
    n = s["framesCaptured"]
    time.sleep(0.5)
    assert c.status()["framesCaptured"] > n
