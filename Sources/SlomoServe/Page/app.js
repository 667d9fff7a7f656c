// slomo serve's page: the live picture over a WebSocket, the rig's state from its events,
// the buttons and forms as API calls. Plain JavaScript, no build step; every text from the
// server is set with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const api = "/api/v1";
let status = null;
let selected = null;     // the shot in the viewer
let viewCamera = null;   // a rig of several cameras: whose file the viewer shows (1 first)
let marks = { in: null, out: null };
let exportJob = null;

async function call(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const r = await fetch(api + path, options);
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
  if (!r.ok) {
    say(json && json.error ? json.error : `${method} ${path}: ${r.status}`);
    throw new Error(json && json.error ? json.error : String(r.status));
  }
  return json;
}

function say(text) { $("message").textContent = text || ""; }

function seconds(r) { return r ? r.numerator / r.denominator : 0; }

// MARK: the state

function show(s) {
  status = s;
  const st = $("state");
  st.textContent = s.state;
  st.className = "state " + s.state;
  const f = s.format;
  $("camera").textContent = f ? `${s.camera} ${f.fourcc} ${f.width}×${f.height} @ ${seconds(s.nominalFrameRate)} fps` : s.camera;
  $("fps").textContent = s.achievedFps != null ? `${s.achievedFps} fps` : "–";
  $("drops").textContent = `${s.droppedByDriver} by the camera, ${s.droppedBySlomo} by slomo`;
  $("shots-left").textContent = s.state === "idle" || s.state === "stopped" ? "–" : s.shotsLeft == null ? "until disarmed" : String(s.shotsLeft);
  $("pre-fill").value = s.preTriggerFill || 0;
  $("post-fill").value = s.postTriggerFill || 0;
  $("save-fill").value = s.savingProgress || 0;
  $("arm").disabled = s.state !== "idle";
  $("trigger").disabled = !(s.state === "armed" || ((s.state === "triggered" || s.state === "saving") && s.shotsLeft !== 0));
  $("disarm").disabled = s.state === "idle" || s.state === "stopped";
  if (s.state === "stopped" && s.message) say(s.message);
  showCameras(s.cameras || []);
}

// MARK: several cameras: a live picture and a line for each

function showCameras(cams) {
  const box = $("previews");
  for (const c of cams) {
    let fig = box.querySelector(`figure[data-camera="${c.camera}"]`);
    if (!fig) {
      fig = document.createElement("figure");
      fig.className = "cam";
      fig.dataset.camera = String(c.camera);
      const img = document.createElement("img");
      img.id = `preview-${c.camera}`;
      img.alt = `camera ${c.camera}`;
      const cap = document.createElement("figcaption");
      const name = document.createElement("span");
      name.className = "cam-name";
      const note = document.createElement("span");
      note.className = "note";
      note.id = `live-note-${c.camera}`;
      cap.append(name, " ", note);
      fig.append(img, cap);
      box.append(fig);
      live(c.camera, img, note);
    }
    fig.classList.toggle("lost", c.state === "lost");
    fig.dataset.state = c.state;
    const f = c.format;
    fig.querySelector(".cam-name").textContent = `${c.camera}: ${c.name}` +
      (f ? ` ${f.fourcc} ${f.width}×${f.height}` : "") + (c.state === "streaming" ? "" : ` (${c.state}${c.message ? ": " + c.message : ""})`);
  }
}

async function refresh() { show(await call("GET", "/status")); }

// MARK: events

function listen() {
  const es = new EventSource(api + "/events");
  es.addEventListener("status", (e) => show(JSON.parse(e.data)));
  for (const kind of ["state", "progress", "drops", "trigger"]) {
    es.addEventListener(kind, () => refresh().catch(() => {}));
  }
  es.addEventListener("shot", () => { loadShots(); refresh().catch(() => {}); });
  // a GPIO or network trigger that fired no shot, or a warning: said, not lost
  for (const kind of ["ignored", "warning"]) {
    es.addEventListener(kind, (e) => { const ev = JSON.parse(e.data); if (ev.message) say(ev.message); });
  }
  es.addEventListener("job", (e) => {
    const ev = JSON.parse(e.data);
    if (exportJob && ev.job === exportJob) followJob(ev.job);
  });
}

// MARK: the live picture

function live(camera, img, note) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}${api}/live` + (camera > 1 ? `?camera=${camera}` : ""));
  ws.binaryType = "arraybuffer";
  let url = null;
  ws.onmessage = (m) => {
    const view = new DataView(m.data);
    const n = view.getUint32(0);
    const header = JSON.parse(new TextDecoder().decode(new Uint8Array(m.data, 4, n)));
    const blob = new Blob([new Uint8Array(m.data, 4 + n)], { type: "image/jpeg" });
    const next = URL.createObjectURL(blob);
    img.onload = () => { if (url) URL.revokeObjectURL(url); url = next; };
    img.src = next;
    img.dataset.frame = header.frameIndex;
    note.textContent = `frame ${header.frameIndex} · ${header.width}×${header.height}`;
  };
  ws.onclose = () => {
    note.textContent = "reconnecting…";
    setTimeout(() => live(camera, img, note), 1000);
  };
}

// MARK: shots

async function loadShots() {
  const list = await call("GET", "/shots");
  const ul = $("shots");
  ul.replaceChildren();
  for (const s of list.shots) {
    const li = document.createElement("li");
    li.dataset.shot = String(s.id);
    // one event's shots together: each camera's trigger frame side by side
    const thumbs = document.createElement("div");
    thumbs.className = "thumbs";
    for (const c of s.cameras || [s]) {
      const img = document.createElement("img");
      img.src = `${api}/shots/${s.id}/frames/0.jpg` + (c.camera ? `?camera=${c.camera}` : "");
      img.alt = c.camera ? `shot ${s.id} camera ${c.camera}` : `shot ${s.id}`;
      if (c.camera) img.dataset.camera = String(c.camera);
      thumbs.append(img);
    }
    const label = document.createElement("span");
    label.textContent = s.cameras
      ? `#${s.id} · ${s.cameras.length} cameras · trigger frames within ${s.triggerFrameSpreadMs} ms`
      : `#${s.id} · ${s.frames} frames · ${s.file}`;
    li.append(thumbs, label);
    li.onclick = () => open(s);
    if (selected && selected.id === s.id) li.classList.add("selected");
    ul.append(li);
  }
}

function open(shot, camera) {
  const s = shot.cameras ? (shot.cameras.find((c) => c.camera === camera) || shot.cameras[0]) : shot;
  selected = s;
  viewCamera = shot.cameras ? s.camera : null;
  const pick = $("viewer-cameras");
  pick.hidden = !shot.cameras;
  pick.replaceChildren();
  for (const c of shot.cameras || []) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = `camera ${c.camera}`;
    b.dataset.camera = String(c.camera);
    b.title = c.cameraName || "";
    if (c.camera === viewCamera) b.classList.add("selected");
    b.onclick = () => open(shot, c.camera);
    pick.append(b);
  }
  marks = { in: s.firstFrame, out: s.lastFrame };
  for (const li of $("shots").children) li.classList.toggle("selected", li.dataset.shot === String(s.id));
  $("viewer").hidden = false;
  $("viewer-title").textContent = `Shot ${s.id}${viewCamera ? ", camera " + viewCamera : ""}: frames ${s.firstFrame} … ${s.lastFrame} (0 is the trigger frame)`;
  const scrub = $("scrub");
  scrub.min = s.firstFrame; scrub.max = s.lastFrame; scrub.value = 0;
  $("download").hidden = true;
  $("export-progress").value = 0;
  showMarks();
  showFrame(0);
}

let frameTimer = null;
function showFrame(n) {
  $("frame-number").textContent = String(n);
  clearTimeout(frameTimer);
  // at most one request per 50 ms while the scrubber moves
  frameTimer = setTimeout(() => {
    const img = $("frame");
    img.src = `${api}/shots/${selected.id}/frames/${n}.jpg` + (viewCamera ? `?camera=${viewCamera}` : "");
    img.dataset.frame = String(n);
  }, 50);
}

function showMarks() {
  $("in").textContent = String(marks.in);
  $("out").textContent = String(marks.out);
}

async function followJob(id) {
  const j = await call("GET", `/jobs/${id}`);
  $("export-progress").value = j.progress;
  if (j.state === "done") {
    const a = $("download");
    a.href = `${api}/jobs/${id}/file`;
    a.textContent = `Download ${j.file}`;
    a.setAttribute("download", j.file);
    a.hidden = false;
    $("export-button").disabled = false;
    say(`export ${id} done: ${j.file}`);
  } else if (j.state === "failed") {
    say(j.error || "the export failed");
    $("export-button").disabled = false;
  }
}

// MARK: wiring

function wire() {
  $("arm").onclick = () => call("POST", "/arm").then(show).catch(() => {});
  $("trigger").onclick = () => call("POST", "/trigger").then(refresh).catch(() => {});
  $("disarm").onclick = () => call("POST", "/disarm").then(show).catch(() => {});
  $("scrub").oninput = (e) => showFrame(Number(e.target.value));
  $("mark-in").onclick = () => { marks.in = Number($("scrub").value); if (marks.out < marks.in) marks.out = marks.in; showMarks(); };
  $("mark-out").onclick = () => { marks.out = Number($("scrub").value); if (marks.in > marks.out) marks.in = marks.out; showMarks(); };
  $("settings").onsubmit = async (e) => {
    e.preventDefault();
    const body = {};
    for (const [k, v] of new FormData(e.target)) if (v !== "") body[k] = k === "shots" ? Number(v) : v;
    try { await call("PATCH", "/settings", body); say("settings applied"); loadSettings(); } catch (err) {}
  };
  $("export").onsubmit = async (e) => {
    e.preventDefault();
    if (!selected) return;
    const f = new FormData(e.target);
    $("download").hidden = true;
    $("export-button").disabled = true;
    try {
      const job = await call("POST", `/shots/${selected.id}/export`,
        Object.assign({ from: marks.in, to: marks.out, rate: f.get("rate"), pitch: f.get("pitch"), fps: f.get("fps") },
          viewCamera ? { camera: viewCamera } : {}));
      exportJob = job.id;
      say(`export ${job.id} running`);
      followJob(job.id);
    } catch (err) { $("export-button").disabled = false; }
  };
}

async function loadSettings() {
  const s = await call("GET", "/settings");
  const form = $("settings");
  form.preTrigger.value = seconds(s.preTrigger);
  form.postTrigger.value = seconds(s.postTrigger);
  form.shots.value = s.shots;
}

wire();
refresh().catch(() => {});
loadSettings().catch(() => {});
loadShots().catch(() => {});
listen();
live(1, $("preview"), $("live-note"));
