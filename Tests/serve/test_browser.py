"""The page in a real browser: Debian's chromium and chromium-driver (the same version), driven by
Selenium with the system driver and no download (SE_OFFLINE). The page loads with the token URL,
the live picture changes, Arm and Trigger work, the shot appears, the scrubber shows frame 0, an
export finishes and downloads. A screenshot goes to SLOMO_SCREENSHOT when that is set."""
import hashlib
import os
import shutil
import time

import pytest

os.environ.setdefault("SE_OFFLINE", "true")
webdriver = pytest.importorskip("selenium.webdriver", reason="skipped: selenium is not installed (scripts/serve-tests.sh installs it)")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from client import calibration_index  # noqa: E402

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


@pytest.fixture
def browser(scratch):
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        if os.geteuid() == 0:
            pytest.fail("chromium and chromium-driver are missing: scripts/dev.sh deps test installs them")
        pytest.skip("skipped: chromium and chromium-driver are not installed")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    downloads = os.path.join(scratch, "downloads")
    os.makedirs(downloads)
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900", "--disable-dev-shm-usage"):
        opts.add_argument(a)
    opts.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
    d = webdriver.Chrome(service=Service(DRIVER), options=opts)
    d.set_page_load_timeout(60)
    d.downloads = downloads
    yield d
    d.quit()


def picture_hash(d, element_id):
    """The hash of the picture an <img> shows now (drawn onto a canvas in the page)."""
    return d.execute_script("""
        const img = document.getElementById(arguments[0]);
        if (!img.complete || img.naturalWidth === 0) return null;
        const c = document.createElement('canvas'); c.width = img.naturalWidth; c.height = img.naturalHeight;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        return c.toDataURL('image/png');""", element_id)


def test_page_end_to_end(server, browser, scratch):
    d = browser
    wait = WebDriverWait(d, 60, poll_frequency=0.1)
    d.get(f"http://127.0.0.1:{server.port}/?token={server.token}")
    # the token became a session cookie and left the address bar
    assert d.current_url == f"http://127.0.0.1:{server.port}/"
    cookie = d.get_cookie("slomo_session")
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    wait.until(lambda d: d.find_element(By.ID, "state").text.lower() == "idle")
    # the live picture changes
    wait.until(lambda d: picture_hash(d, "preview") is not None)
    first = picture_hash(d, "preview")
    wait.until(lambda d: picture_hash(d, "preview") not in (None, first))
    frames = {d.find_element(By.ID, "preview").get_attribute("data-frame")}
    time.sleep(0.3)
    frames.add(d.find_element(By.ID, "preview").get_attribute("data-frame"))
    assert len(frames) == 2

    d.find_element(By.XPATH, "//button[text()='Arm']").click()
    wait.until(lambda d: d.find_element(By.ID, "state").text.lower() == "armed")
    wait.until(lambda d: float(d.find_element(By.ID, "pre-fill").get_attribute("value")) == 1)
    d.find_element(By.XPATH, "//button[text()='Trigger']").click()
    shot = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#shots li[data-shot='1']"))[0]
    wait.until(lambda d: d.find_element(By.ID, "state").text.lower() == "idle")
    shot.click()
    # the scrubber starts at the trigger frame: the picture shows the trigger frame's own number
    assert d.find_element(By.ID, "scrub").get_attribute("value") == "0"
    wait.until(lambda d: d.find_element(By.ID, "frame").get_attribute("data-frame") == "0" and picture_hash(d, "frame"))
    c = server.client()
    rep = c.get("/api/v1/shots/1").json()["report"]
    src = d.find_element(By.ID, "frame").get_attribute("src")
    assert src.endswith("/api/v1/shots/1/frames/0.jpg")
    assert calibration_index(c.get("/api/v1/shots/1/frames/0.jpg").body, scratch) == rep["triggerSequence"]
    # scrub to -5, mark it in; to 5, mark it out
    for value, mark in ((-5, "In"), (5, "Out")):
        d.execute_script("const s = document.getElementById('scrub'); s.value = arguments[0]; s.dispatchEvent(new Event('input'));", value)
        wait.until(lambda d: d.find_element(By.ID, "frame").get_attribute("data-frame") == str(value))
        d.find_element(By.XPATH, f"//button[text()='{mark}']").click()
    assert (d.find_element(By.ID, "in").text, d.find_element(By.ID, "out").text) == ("-5", "5")
    d.find_element(By.CSS_SELECTOR, "#export select[name=rate] option[value='1/4']").click()
    d.find_element(By.ID, "export-button").click()
    link = wait.until(lambda d: d.find_element(By.ID, "download") if d.find_element(By.ID, "download").is_displayed() else None)
    assert float(d.find_element(By.ID, "export-progress").get_attribute("value")) == 1
    jobs = c.get("/api/v1/jobs").json()["jobs"]
    job = jobs[-1]
    assert (job["from"], job["to"], job["rate"]) == (-5, 5, {"numerator": 1, "denominator": 4}) and job["state"] == "done"
    shot_path = os.environ.get("SLOMO_SCREENSHOT")
    if shot_path:
        d.save_screenshot(shot_path)
    link.click()
    name = job["file"]
    deadline = time.time() + 30
    while time.time() < deadline and not os.path.exists(os.path.join(d.downloads, name)):
        time.sleep(0.2)
    got = open(os.path.join(d.downloads, name), "rb").read()
    assert got == c.get(f"/api/v1/jobs/{job['id']}/file").body


def test_phone_sized_screen(server, browser):
    d = browser
    d.set_window_size(390, 844)
    d.get(f"http://127.0.0.1:{server.port}/?token={server.token}")
    WebDriverWait(d, 30).until(lambda d: d.find_element(By.ID, "state").text.lower() == "idle")
    # nothing wider than the screen; the buttons in reach
    width = d.execute_script("return document.documentElement.scrollWidth")
    inner = d.execute_script("return window.innerWidth")
    assert width <= inner, (width, inner)
    for label in ("Arm", "Trigger", "Disarm"):
        b = d.find_element(By.XPATH, f"//button[text()='{label}']")
        assert b.size["height"] >= 44 and b.location["x"] + b.size["width"] <= inner


def test_page_of_two_cameras(scratch, servers, browser):
    """Each camera's live picture, one Arm and one Trigger for both, the event's shots grouped in
    one entry, each camera's frames and export from the viewer."""
    from client import Server
    cams = ["synthetic:fps=120,size=320x240,format=yuv420p", "synthetic:fps=120,size=256x144,format=yuv420p"]
    s = Server([*cams, "--pre-trigger", "0.25", "--post-trigger", "0.25"], os.path.join(scratch, "out"),
               token_file=os.path.join(scratch, "token"))
    servers.append(s)
    d = browser
    wait = WebDriverWait(d, 60, poll_frequency=0.1)
    d.get(f"http://127.0.0.1:{s.port}/?token={s.token}")
    wait.until(lambda d: d.find_element(By.ID, "state").text.lower() == "idle")
    # both live pictures move, each labelled with its camera
    for img in ("preview", "preview-2"):
        wait.until(lambda d: picture_hash(d, img) is not None)
        first = picture_hash(d, img)
        wait.until(lambda d: picture_hash(d, img) not in (None, first))
    names = [e.text for e in d.find_elements(By.CSS_SELECTOR, "#previews figure .cam-name")]
    assert names[0].startswith("1: " + cams[0]) and names[1].startswith("2: " + cams[1]), names
    d.find_element(By.XPATH, "//button[text()='Arm']").click()
    wait.until(lambda d: float(d.find_element(By.ID, "pre-fill").get_attribute("value")) == 1)
    d.find_element(By.XPATH, "//button[text()='Trigger']").click()
    shot = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#shots li[data-shot='1']"))[0]
    wait.until(lambda d: d.find_element(By.ID, "state").text.lower() == "idle")
    # one entry for the event: both cameras' trigger frames, and how far apart they were
    shot = d.find_element(By.CSS_SELECTOR, "#shots li[data-shot='1']")
    assert [i.get_attribute("data-camera") for i in shot.find_elements(By.TAG_NAME, "img")] == ["1", "2"]
    assert "2 cameras" in shot.text and "within" in shot.text
    shot.click()
    buttons = d.find_elements(By.CSS_SELECTOR, "#viewer-cameras button")
    assert [b.text for b in buttons] == ["camera 1", "camera 2"]
    buttons[1].click()
    wait.until(lambda d: d.find_element(By.ID, "frame").get_attribute("src").endswith("/api/v1/shots/1/frames/0.jpg?camera=2"))
    wait.until(lambda d: picture_hash(d, "frame"))
    c = s.client()
    rep = c.get("/api/v1/shots/1").json()["cameras"][1]["report"]
    assert calibration_index(c.get("/api/v1/shots/1/frames/0.jpg?camera=2").body, scratch) == rep["triggerSequence"]
    d.find_element(By.ID, "export-button").click()
    wait.until(lambda d: d.find_element(By.ID, "download").is_displayed())
    job = c.get("/api/v1/jobs").json()["jobs"][-1]
    assert job["camera"] == 2 and job["state"] == "done", job
