"""A small client of `slomo serve`, standard library only (the VM checks use it too):
starts the server, calls the API, reads Server-Sent Events, the multipart preview and the
WebSocket of live pictures."""
import base64
import http.client
import json
import os
import re
import socket
import struct
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# Every command's exit status once SIGINT or SIGTERM stopped it (serve too: README, "Exit statuses").
INTERRUPTED = 130


def binary():
    return os.environ.get("SLOMO_BIN") or os.path.join(ROOT, ".build", "debug", "slomo")


class Server:
    """`slomo serve ARGS --listen 127.0.0.1:0`; the URL it prints gives the port and token."""

    def __init__(self, args, out_dir, token_file=None, listen="127.0.0.1:0", extra=(), wait=True, env=None):
        self.out_dir = out_dir
        cmd = [binary(), "serve", *args, "--out-dir", out_dir, "--listen", listen, *extra]
        if token_file:
            cmd += ["--token-file", token_file]
        environment = dict(os.environ, **(env or {}))
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=environment)
        self.lines = []
        self.url = None
        self.port = None
        self.token = None
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if wait and not self._ready.wait(60):
            self.stop()
            raise RuntimeError("slomo serve printed no URL in 60 s: " + " | ".join(self.lines))

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            m = re.search(r"serving (http://[^/]+:(\d+)/)(\?token=(\w+))?", line)
            if m:
                self.url, self.port, self.token = m.group(1), int(m.group(2)), m.group(4)
                self._ready.set()
        self._ready.set()

    def stop(self, sig=2):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def client(self, **kw):
        return Client("127.0.0.1", self.port, self.token, **kw)


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)

    def header(self, name):
        return self.headers.get(name.lower())


class Client:
    def __init__(self, host, port, token, host_header=None, origin=None, cookie=None):
        self.host, self.port, self.token = host, port, token
        self.host_header = host_header or f"127.0.0.1:{port}"
        self.origin, self.cookie = origin, cookie

    def headers(self, extra=None, auth=True):
        h = {"Host": self.host_header}
        if auth and self.token:
            h["Authorization"] = "Bearer " + self.token
        if self.origin:
            h["Origin"] = self.origin
        if self.cookie:
            h["Cookie"] = self.cookie
        h.update(extra or {})
        return h

    def request(self, method, path, body=None, headers=None, auth=True, raw=None, timeout=60, chunked=False):
        c = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        data = raw
        h = self.headers(headers, auth)
        if body is not None:
            data = json.dumps(body).encode()
            h.setdefault("Content-Type", "application/json")
        if chunked:     # no Content-Length: the body in 4 KiB chunks
            whole = data
            data = (whole[i:i + 4096] for i in range(0, len(whole), 4096))
            h["Transfer-Encoding"] = "chunked"
        c.request(method, path, body=data, headers=h, encode_chunked=chunked)
        r = c.getresponse()
        out = Response(r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
        c.close()
        return out

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def status(self):
        return self.get("/api/v1/status").json()

    def wait(self, predicate, timeout=60, what="a condition"):
        end = time.time() + timeout
        while time.time() < end:
            s = self.status()
            if predicate(s):
                return s
            time.sleep(0.1)
        raise AssertionError(f"{what} not reached in {timeout} s; last status {s}")

    def events(self, into, until, timeout=60, started=None):
        """Reads /api/v1/events into the list `into`, as (name, data) pairs, until `until(into)`
        is true; `started` is set once the stream is open (its first status event read)."""
        c = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        c.request("GET", "/api/v1/events", headers=self.headers())
        r = c.getresponse()
        assert r.status == 200, r.status
        name, data = None, None
        end = time.time() + timeout
        while not until(into) and time.time() < end:
            line = r.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and name:
                into.append((name, data))
                if started is not None:
                    started.set()
                name, data = None, None
        c.close()
        return into

    def websocket(self, path="/api/v1/live", origin=None):
        """An open WebSocket (client side, unmasked reads, masked writes), or the refusal's status."""
        s = socket.create_connection((self.host, self.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        h = self.headers({"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13"})
        if origin:
            h["Origin"] = origin
        s.sendall((f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(1)
            if not chunk:
                break
            head += chunk
        status = int(head.split(b" ")[1]) if head else 0
        return WebSocket(s) if status == 101 else status


class WebSocket:
    def __init__(self, sock):
        self.sock = sock

    def _exact(self, n):
        b = b""
        while len(b) < n:
            chunk = self.sock.recv(n - len(b))
            if not chunk:
                raise EOFError("closed")
            b += chunk
        return b

    def message(self):
        """The next data message's payload (binary pictures: header dict and JPEG bytes)."""
        while True:
            b0, b1 = self._exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._exact(8))[0]
            payload = self._exact(n)
            op = b0 & 0x0F
            if op == 2:
                k = struct.unpack(">I", payload[:4])[0]
                return json.loads(payload[4:4 + k]), payload[4 + k:]
            if op == 8:
                raise EOFError("closed by the server")
            if op == 9:  # the server pings every 30 s and closes a client that has not answered
                self.send(10, payload)

    def send(self, op, payload=b""):
        """One masked frame (a client's must be), payload under 126 bytes."""
        mask = os.urandom(4)
        self.sock.sendall(bytes([0x80 | op, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def close(self):
        try:
            self.send(8)
        except OSError:
            pass
        self.sock.close()


def mjpeg_parts(client, count, timeout=30, read=True):
    """The first `count` JPEG parts of /preview.mjpg, with their headers."""
    c = http.client.HTTPConnection(client.host, client.port, timeout=timeout)
    c.request("GET", "/preview.mjpg", headers=client.headers())
    r = c.getresponse()
    assert r.status == 200 and "multipart/x-mixed-replace" in r.getheader("Content-Type"), r.status
    parts = []
    while len(parts) < count:
        line = r.fp.readline()
        if not line:
            break
        if line.strip() == b"--slomoframe":
            headers = {}
            while True:
                h = r.fp.readline().decode().strip()
                if not h:
                    break
                k, v = h.split(":", 1)
                headers[k.strip().lower()] = v.strip()
            parts.append((headers, r.fp.read(int(headers["content-length"]))))
    c.close()
    return parts


def calibration_index(jpeg_bytes, scratch):
    """The calibration code painted into a picture (slomo probe --frames reads it)."""
    path = os.path.join(scratch, "frame-%d.jpg" % time.monotonic_ns())
    with open(path, "wb") as f:
        f.write(jpeg_bytes)
    out = subprocess.run([binary(), "probe", path, "--frames", "--json"], capture_output=True, text=True, check=True).stdout
    os.unlink(path)
    frames = json.loads(out)["frames"]
    return frames[0].get("calibrationIndex") if frames else None
