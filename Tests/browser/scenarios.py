"""Browser scenarios for the Notes web app, run by Tests/browser/run.sh against a live server.

Each scenario is a function taking a Harness; it drives headless Chromium (Debian's, through
/usr/bin/chromedriver), asserts what a person relies on, and saves a screenshot. Prints one
line per scenario and exits non-zero when any fails.
"""
import argparse
import http.server
import json
import sys
import threading
import time
import traceback
import urllib.error
import urllib.request
import uuid

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

ALICE = ("alice", "correct horse battery")
BOB = ("bob", "another long secret")

# Every payload sets window.pwned if it ever runs.
PAYLOADS = {
    "payloads/script.md": "# Script\n\n<script>window.pwned = 'script'</script>\n\nplain words payloadword\n",
    "payloads/links.md": "# Links\n\n[click me](javascript:window.pwned='link') and "
                         "[data](data:text/html,<script>parent.pwned='data'</script>) payloadword\n",
    "payloads/events.md": "# Events\n\n<img src=x onerror=\"window.pwned='img'\">\n\n"
                          "<a href=\"#\" onmouseover=\"window.pwned='hover'\">hover</a> payloadword\n",
    "payloads/svg.md": "# SVG\n\n<svg onload=\"window.pwned='svg'\"><script>window.pwned='svg2'</script></svg>\n\n"
                       "<iframe srcdoc=\"<script>parent.pwned='iframe'</script>\"></iframe>\n\n"
                       "![x](javascript:window.pwned='imgsrc') payloadword\n",
    "payloads/\"><script>window.pwned='path'<\u2060script>.md": "payloadword in a hostile path\n",
}


class Harness:
    def __init__(self, base, screenshots):
        self.base = base
        self.screenshots = screenshots
        self.drivers = []

    # --- API side, to seed notes quickly -------------------------------------------------
    def api(self, method, path, body=None, token=None, headers=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", "Bearer " + token)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request) as response:
                raw = response.read()
                return response.status, (json.loads(raw) if raw and raw[:1] in b"{[" else raw)
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def token(self, user=ALICE):
        status, body = self.api("POST", "/v1/auth/login", {"username": user[0], "password": user[1], "device": "seed"})
        assert status == 200, (status, body)
        return body["access_token"]

    def put_note(self, token, path, content, note_id=None):
        note_id = note_id or str(uuid.uuid4())
        status, body = self.api("PUT", "/v1/notes/" + note_id, {"path": path, "content": content}, token,
                                {"If-None-Match": "*"})
        return note_id, status, body

    # --- browser side ---------------------------------------------------------------------
    def browser(self, width=1280, height=900):
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={width},{height}", "--force-prefers-reduced-motion"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.set_page_load_timeout(20)
        # Runs before any page script (CSP does not apply to it): records CSP violations.
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__csp = [];
            document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));
        """})
        self.drivers.append(driver)
        return driver

    def open(self, driver, path):
        driver.get(self.base + path)

    def sign_in(self, driver, user=ALICE):
        self.open(driver, "/sign-in")
        driver.find_element(By.ID, "username").send_keys(user[0])
        driver.find_element(By.ID, "password").send_keys(user[1])
        driver.find_element(By.CSS_SELECTOR, "form[action='/sign-in'] button[type=submit]").click()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "nav.site-nav"), "the signed-in navigation")

    def shot(self, driver, name):
        driver.save_screenshot(f"{self.screenshots}/{name}.png")

    def close(self):
        for driver in self.drivers:
            try:
                driver.quit()
            except Exception:
                pass
        self.drivers = []


def wait_for(driver, condition, what, timeout=10):
    # A condition that reads the page while the browser is still navigating meets elements of
    # the page being left (stale) or not there yet: both mean "not yet", not a failure.
    try:
        return WebDriverWait(driver, timeout, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(condition)
    except Exception:
        raise AssertionError(f"timed out waiting for {what} on {driver.current_url}")


def text_of(driver, selector):
    return driver.find_element(By.CSS_SELECTOR, selector).text


def note_url_for(driver, title):
    return driver.find_element(By.LINK_TEXT, title).get_attribute("href")


# --- scenarios ------------------------------------------------------------------------------

def scenario_sign_in_browse_read(h):
    token = h.token()
    h.put_note(token, "Projects/Garden plan.md", "# Garden plan\n\nTomatoes by the **south wall**.\n\n- beans\n- peas\n")
    h.put_note(token, "Journal/2026-12-01.md", "# Monday\n\nSee [[Garden plan]] for the beds.\n")
    h.put_note(token, "Inbox.md", "# Inbox\n\nCall the plumber.\n")
    d = h.browser()
    h.open(d, "/")
    assert d.find_element(By.ID, "username").get_attribute("autocomplete") == "username"
    h.shot(d, "01-sign-in")
    h.sign_in(d)
    assert "Your notes" in text_of(d, "main h1")
    tree = text_of(d, ".tree")
    assert "Projects" in tree and "Garden plan" in tree and "Inbox" in tree, tree
    # Notes, files and folders carry glyphs, not the outlined box that read as an unchecked checkbox.
    icon = d.execute_script("const s = getComputedStyle(document.querySelector('.tree .note'), '::before');"
                            "return [s.maskImage || s.webkitMaskImage, s.borderTopWidth];")
    assert "svg" in icon[0] and icon[1] == "0px", icon
    h.shot(d, "02-home")
    d.find_element(By.CSS_SELECTOR, ".tree").find_element(By.LINK_TEXT, "Garden plan").click()
    wait_for(d, lambda d: "Garden plan" in text_of(d, "main h1"), "the note's title")
    assert d.find_element(By.CSS_SELECTOR, ".note-body strong").text == "south wall"
    assert "2026-12-01" in text_of(d, "aside"), "the journal note links here and is listed as a backlink"
    h.shot(d, "03-note")
    d.set_window_size(360, 800)
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 360, f"the note page scrolls sideways at 360 px ({width} px wide)"
    h.shot(d, "04-note-360px")
    d.set_window_size(1280, 900)
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    h.open(d, "/")
    background = d.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(251, 250, 248)", "dark mode follows the system"
    h.shot(d, "04-home-dark")


def scenario_search(h):
    d = h.browser()
    h.sign_in(d)
    box = d.find_element(By.ID, "site-q")
    box.send_keys("tomatoes")
    box.submit()
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".snippet mark"), "a highlighted match")
    marks = [m.text.lower() for m in d.find_elements(By.CSS_SELECTOR, ".snippet mark")]
    assert "tomatoes" in marks, marks
    # The snippet is the note's own text: its Markdown bold stays as typed, and the match is
    # marked apart from it (the API's old `**` markers could not be told from it).
    assert "Tomatoes by the **south wall**" in text_of(d, ".snippet"), text_of(d, ".snippet")
    h.shot(d, "05-search")


def scenario_edit_and_save(h):
    token = h.token()
    note_id, status, _ = h.put_note(token, "Recipes/Bread.md", "# Bread\n\nFlour, water, salt.\n")
    assert status == 201, status
    d = h.browser()
    h.sign_in(d)
    h.open(d, f"/notes/{note_id}/edit")
    area = d.find_element(By.ID, "content")
    area.send_keys("\nAdd *yeast* last.")
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#preview em"), "the live preview")
    assert d.find_element(By.CSS_SELECTOR, "#preview em").text == "yeast"
    h.shot(d, "06-edit-preview")
    d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".note-body em"), "the saved note")
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert body["content"] == "# Bread\n\nFlour, water, salt.\n\nAdd *yeast* last.", repr(body["content"])
    h.shot(d, "07-saved")


def scenario_two_editors_lose_nothing(h):
    token = h.token()
    note_id, _, _ = h.put_note(token, "Shared.md", "first line\n")
    first, second = h.browser(), h.browser()
    h.sign_in(first)
    h.sign_in(second)
    h.open(first, f"/notes/{note_id}/edit")
    h.open(second, f"/notes/{note_id}/edit")
    # Both rewrite the same line: an overlapping change, which no merge can settle.
    first.find_element(By.ID, "content").clear()
    first.find_element(By.ID, "content").send_keys("from the laptop\n")
    first.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(first, lambda d: "/edit" not in d.current_url, "the first save")
    second.find_element(By.ID, "content").clear()
    second.find_element(By.ID, "content").send_keys("from the phone\n")
    second.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(second, lambda d: d.find_elements(By.CSS_SELECTOR, ".notice.error"), "the conflict notice")
    typed = second.find_element(By.ID, "content").get_attribute("value")
    assert "from the phone" in typed, "the second editor's text is still in the editor"
    assert "from the laptop" in text_of(second, "#saved-text"), "the saved version is shown beside it"
    consequence = text_of(second, "#save-consequence")
    assert consequence.startswith("Save my text replaces the saved version (revision ") and "saved from web at" in consequence, consequence
    assert "the 1 line marked − in the difference leaves the note" in consequence, consequence
    button = second.find_element(By.XPATH, "//button[normalize-space()='Save my text']")
    assert button.get_attribute("aria-describedby") == "save-consequence"
    h.shot(second, "08-conflict")
    second.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    h.shot(second, "08-conflict-dark")
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert "from the laptop" in body["content"] and "from the phone" not in body["content"]
    area = second.find_element(By.ID, "content")
    area.send_keys("and from the laptop too")
    button.click()
    wait_for(second, lambda d: "/edit" not in d.current_url, "the second save")
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert "from the phone" in body["content"] and "and from the laptop too" in body["content"], body["content"]


def scenario_conflict_merge(h):
    """A line appended in the web editor while the CLI (the API, as `notes sync` sends it) appends
    another: the save merges them as sync does, both lines kept, no conflict page."""
    token = h.token()
    note_id, _, created = h.put_note(token, "Journal/Log.md", "# Log\n\nmonday: planted beans\n")
    d = h.browser()
    h.sign_in(d)
    h.open(d, f"/notes/{note_id}/edit")
    status, _ = h.api("PUT", f"/v1/notes/{note_id}",
                      {"path": "Journal/Log.md", "content": "# Log\n\nmonday: planted beans\ntuesday: from the CLI\n"},
                      token, {"If-Match": f'"{created["rev"]}"'})
    assert status == 200, status
    d.find_element(By.ID, "content").send_keys("wednesday: from the web\n")
    d.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    wait_for(d, lambda d: "done=merged" in d.current_url, "the merged save")
    assert "merged with changes made elsewhere" in text_of(d, ".notice"), text_of(d, ".notice")
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert body["content"] == "# Log\n\nmonday: planted beans\ntuesday: from the CLI\nwednesday: from the web\n", repr(body["content"])
    body_text = text_of(d, ".note-body")
    assert "tuesday: from the CLI" in body_text and "wednesday: from the web" in body_text, body_text
    h.shot(d, "08-merged")


def scenario_phone_editor_save_reachable(h):
    """At 390 px the preview sits below the text: Save stays in view at the bottom of the window
    without scrolling, and still halfway down the page."""
    token = h.token()
    long_text = "# Packing list\n\n" + "".join(f"- item {n}: something to remember\n" for n in range(60))
    note_id, _, _ = h.put_note(token, "Trips/Packing.md", long_text)
    d = phone(h)
    h.sign_in(d)
    for scheme in ("light", "dark"):
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        h.open(d, f"/notes/{note_id}/edit")
        wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#preview li"), "the preview")
        assert d.execute_script("return window.scrollY") == 0
        save = d.find_element(By.CSS_SELECTOR, "main form button[type=submit]")
        assert save_in_view(d, save), f"Save is out of view at 390 px ({save.rect}, window {d.execute_script('return innerHeight')})"
        h.shot(d, f"phone-editor-{scheme}")
    d.execute_script("window.scrollTo(0, document.body.scrollHeight / 2)")
    assert save_in_view(d, save), "Save stays in view halfway down"
    d.find_element(By.ID, "content").send_keys("- sun cream\n")
    save.click()
    wait_for(d, lambda d: "done=saved" in d.current_url, "the saved note")
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert "- sun cream" in body["content"]


def phone(h, width=390, height=844):
    """A browser the width of a phone. Headless Chromium starts no narrower than 500 px whatever
    --window-size says; resizing afterwards is honoured."""
    d = h.browser()
    d.set_window_size(width, height)
    inner = d.execute_script("return innerWidth")
    assert inner <= width, f"the window is {inner} px wide, not {width}"
    return d


def save_in_view(driver, button):
    """Whether `button` is inside the window and the element at its centre is the button itself (not covered)."""
    return driver.execute_script("""
        const r = arguments[0].getBoundingClientRect();
        if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) return false;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return hit === arguments[0] || arguments[0].contains(hit);
    """, button)


def scenario_history_diff_restore(h):
    token = h.token()
    note_id, _, body = h.put_note(token, "Poem.md", "roses are red\nviolets are blue\n")
    first_rev = body["rev"]
    status, _ = h.api("PUT", f"/v1/notes/{note_id}", {"path": "Poem.md", "content": "roses are red\nviolets are green\nsugar is sweet\n"},
                      token, {"If-Match": f'"{first_rev}"'})
    assert status == 200, status
    d = h.browser()
    h.sign_in(d)
    h.open(d, f"/notes/{note_id}/history")
    d.find_element(By.LINK_TEXT, f"Revision {first_rev}").click()
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".diff .ins"), "the diff")
    removed = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".diff .del")]
    added = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".diff .ins")]
    assert any("violets are blue" in t for t in removed) and any("sugar is sweet" in t for t in added), (removed, added)
    h.shot(d, "09-history-diff")
    d.find_element(By.XPATH, "//button[normalize-space()='Restore this revision']").click()
    wait_for(d, lambda d: "done=restored" in d.current_url, "the restored note")
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert body["content"] == "roses are red\nviolets are blue\n", body["content"]
    h.shot(d, "10-restored")


def scenario_cross_origin_post_refused(h):
    token = h.token()
    note_id, _, body = h.put_note(token, "Keep me.md", "precious\n")
    target = f"{h.base}/notes/{note_id}/delete"

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            page = (f"<form id=f method=post action='{target}'><input name=rev value='{body['rev']}'>"
                    f"<input name=csrf value='guess'></form><script>document.getElementById('f').submit()</script>")
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page.encode())

        def log_message(self, *args):
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        d = h.browser()
        h.sign_in(d)  # the cookie is SameSite=Lax, and another port of 127.0.0.1 is the same site
        d.get(f"http://127.0.0.1:{evil.server_address[1]}/")
        wait_for(d, lambda d: d.current_url.startswith(h.base), "the form post")
        wait_for(d, lambda d: "another site" in d.find_element(By.TAG_NAME, "body").text, "the refusal")
        h.shot(d, "11-cross-origin-refused")
    finally:
        evil.shutdown()
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert status == 200 and not body["deleted"], "the note is still there"


def scenario_script_payloads_run_nothing(h):
    token = h.token()
    ids = []
    for path, content in PAYLOADS.items():
        note_id, status, _ = h.put_note(token, path, content)
        if status == 201:
            ids.append(note_id)
    assert len(ids) >= 4, "the payload notes were stored"
    # A second revision, so the history and diff pages show payload text too.
    status, body = h.api("GET", f"/v1/notes/{ids[0]}", token=token)
    h.api("PUT", f"/v1/notes/{ids[0]}", {"path": body["path"], "content": body["content"] + "\n<b onclick=x>more</b>\n"}, token,
          {"If-Match": f'"{body["rev"]}"'})
    d = h.browser()
    h.sign_in(d)
    pages = ["/", "/search?q=payloadword", "/trash"]
    for note_id in ids:
        status, body = h.api("GET", f"/v1/notes/{note_id}/revisions", token=token)
        pages += [f"/notes/{note_id}", f"/notes/{note_id}/edit", f"/notes/{note_id}/history",
                  f"/notes/{note_id}/history/{body['revisions'][-1]['rev']}"]
        # The published page shows the note to anyone: it must be as inert as the signed-in ones.
        status, publication = h.api("POST", f"/v1/notes/{note_id}/publication", {}, token)
        assert status == 201, (status, publication)
        pages.append("/p/" + publication["token"])
    for page in pages:
        h.open(d, page)
        for link in d.find_elements(By.CSS_SELECTOR, "main a"):
            href = link.get_attribute("href") or ""
            assert not href.lower().startswith(("javascript:", "data:")), f"{page} links to {href}"
        if page.endswith("/edit"):
            wait_for(d, lambda d: not d.find_element(By.ID, "preview").get_attribute("hidden"), "the preview")
            time.sleep(0.3)  # let the preview render the payload
        pwned = d.execute_script("return window.pwned")
        assert pwned is None, f"{page} ran a payload: {pwned}"
    h.open(d, f"/notes/{ids[3]}")
    h.shot(d, "12-payloads-inert")


def scenario_no_console_errors_or_csp_violations(h):
    token = h.token()
    note_id, _, _ = h.put_note(token, "Clean.md", "# Clean\n\nA *tidy* page with `code` and a [link](Inbox.md).\n")
    d = h.browser()
    h.sign_in(d)
    d.get_log("browser")  # drop what signing in logged
    for page in ["/", f"/notes/{note_id}", f"/notes/{note_id}/edit", "/search?q=tidy", "/account", "/trash", f"/notes/{note_id}/history"]:
        h.open(d, page)
        if page.endswith("/edit"):
            wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#preview em"), "the preview")
        violations = d.execute_script("return window.__csp")
        assert violations == [], f"{page}: CSP violations {violations}"
        errors = [entry for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == [], f"{page}: console errors {errors}"
    h.open(d, "/account")
    h.shot(d, "13-account")


def scenario_tokens_and_sessions(h):
    d = h.browser()
    h.sign_in(d, BOB)
    h.open(d, "/account")
    d.find_element(By.ID, "token-name").send_keys("backup script")
    d.find_element(By.CSS_SELECTOR, "form[action='/account/tokens'] button").click()
    secret = wait_for(d, lambda d: d.find_elements(By.ID, "new-token"), "the new token")[0].text
    assert secret.startswith("npt_"), secret
    status, body = h.api("GET", "/v1/me", token=secret)
    assert status == 200 and body["username"] == "bob", (status, body)
    h.shot(d, "14-token-created")
    h.open(d, "/account")
    assert secret not in d.page_source, "the secret is shown only once"


def scenario_sign_out_ends_session(h):
    d = h.browser()
    h.sign_in(d)
    cookie = d.get_cookie("notes_session")
    assert cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Lax", cookie
    d.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
    wait_for(d, lambda d: d.find_elements(By.ID, "password"), "the sign-in page")
    h.shot(d, "15-signed-out")
    # The old cookie, presented again, no longer works.
    d.add_cookie({"name": "notes_session", "value": cookie["value"], "path": "/"})
    h.open(d, "/account")
    assert d.find_elements(By.ID, "password"), "the ended session does not open the account page"
    status, _ = h.api("GET", "/v1/me", headers={"Cookie": "notes_session=" + cookie["value"]})
    assert status == 401, "a cookie never authenticates the API"


def scenario_device_code_approved(h):
    """notes login --device's other half: a code opened from its complete link while signed out goes
    through sign-in and back, is filled in, names the device, and one Approve gives the device a session."""
    status, codes = h.api("POST", "/v1/auth/device", {"device": "notes on build-box"})
    assert status == 200, (status, codes)
    complete = codes["verification_uri_complete"]
    d = h.browser()
    h.open(d, complete[complete.index("/device"):])
    d.find_element(By.ID, "username").send_keys(ALICE[0])
    d.find_element(By.ID, "password").send_keys(ALICE[1])
    d.find_element(By.CSS_SELECTOR, "form[action='/sign-in'] button[type=submit]").click()
    field = wait_for(d, lambda d: d.find_elements(By.ID, "device-code"), "the device code form")[0]
    assert field.get_attribute("value") == codes["user_code"], field.get_attribute("value")
    d.find_element(By.CSS_SELECTOR, "form[action='/device'] button[type=submit]").click()
    name = wait_for(d, lambda d: d.find_elements(By.ID, "device-name"), "the confirmation")[0]
    assert name.text == "notes on build-box", name.text
    h.shot(d, "16-device-confirm")
    d.find_element(By.ID, "approve").click()
    result = wait_for(d, lambda d: d.find_elements(By.ID, "device-result"), "the approval result")[0]
    assert "signed in" in result.text, result.text
    h.shot(d, "17-device-approved")
    status, body = h.api("POST", "/v1/auth/token", {"grant_type": "urn:ietf:params:oauth:grant-type:device_code",
                                                     "device_code": codes["device_code"]})
    assert status == 200 and body["user"]["username"] == "alice", (status, body)


SCENARIOS = [
    scenario_sign_in_browse_read,
    scenario_search,
    scenario_edit_and_save,
    scenario_two_editors_lose_nothing,
    scenario_conflict_merge,
    scenario_phone_editor_save_reachable,
    scenario_history_diff_restore,
    scenario_cross_origin_post_refused,
    scenario_script_payloads_run_nothing,
    scenario_no_console_errors_or_csp_violations,
    scenario_tokens_and_sessions,
    scenario_sign_out_ends_session,
    scenario_device_code_approved,
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--screenshots", required=True)
    parser.add_argument("only", nargs="*")
    arguments = parser.parse_args()
    failures = 0
    started = time.monotonic()
    for scenario in SCENARIOS:
        name = scenario.__name__.removeprefix("scenario_")
        if arguments.only and name not in arguments.only:
            continue
        harness = Harness(arguments.base, arguments.screenshots)
        began = time.monotonic()
        try:
            scenario(harness)
            print(f"browser: ok   {name} ({time.monotonic() - began:.1f}s)")
        except Exception:
            failures += 1
            print(f"browser: FAIL {name}")
            traceback.print_exc()
            for index, driver in enumerate(harness.drivers):
                try:
                    driver.save_screenshot(f"{arguments.screenshots}/FAILED-{name}-{index}.png")
                except Exception:
                    pass
        finally:
            harness.close()
    print(f"browser: {len(SCENARIOS) - failures if not arguments.only else '-'} passed, {failures} failed "
          f"in {time.monotonic() - started:.0f}s")
    sys.exit(1 if failures else 0)


def tiny_png(width=160, height=100, rgb=(200, 40, 40)):
    """A real, decodable PNG of one colour, made without any imaging library."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def image_shows(driver, alt):
    """Whether the note's <img alt=ALT> has loaded and decoded (a broken image has naturalWidth 0)."""
    return driver.execute_script(
        "const i = [...document.querySelectorAll('img')].find(i => i.alt === arguments[0]);"
        "return !!i && i.complete && i.naturalWidth > 0;", alt)


def scenario_upload_embed_publish_image(h):
    import os
    import tempfile
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "square.png")
    with open(path, "wb") as file:
        file.write(tiny_png())
    d = h.browser()
    h.sign_in(d)
    d.find_element(By.ID, "upload-folder").send_keys("Pictures")
    d.find_element(By.ID, "upload-file").send_keys(path)
    d.find_element(By.CSS_SELECTOR, "form[action='/upload'] button[type=submit]").click()
    wait_for(d, lambda d: "Uploaded." in d.page_source, "the upload's notice")
    h.shot(d, "attachments-1-uploaded")
    link = d.find_element(By.LINK_TEXT, "square.png")
    assert link.get_attribute("href").endswith("/files/Pictures/square.png"), link.get_attribute("href")
    token = h.token()
    note_id, status, _ = h.put_note(token, "Pictures/Gallery.md", "# Gallery\n\n![a red square](square.png)\n")
    assert status == 201, status
    h.open(d, f"/notes/{note_id}")
    wait_for(d, lambda d: image_shows(d, "a red square"), "the embedded image to show")
    assert d.execute_script("return window.__csp") == [], "no CSP violation"
    h.shot(d, "attachments-2-note-with-image")
    status, publication = h.api("POST", f"/v1/notes/{note_id}/publication", {}, token)
    assert status == 201, (status, publication)
    reader = h.browser(width=390, height=700)
    h.open(reader, "/p/" + publication["token"])
    wait_for(reader, lambda d: image_shows(d, "a red square"), "the image on the published page")
    assert reader.execute_script("return window.__csp") == [], "no CSP violation on the published page"
    h.shot(reader, "attachments-3-published-image")


SCENARIOS.append(scenario_upload_embed_publish_image)


# --- publishing from the web app, and sign-in with an identity provider (issues 15 and 17) ---

def scenario_publish_open_anonymously_revoke(h):
    token = h.token()
    note_id, _, _ = h.put_note(token, "Shared/Reading list.md", "# Reading list\n\n- *The Dispossessed*\n- Piranesi\n")
    d = h.browser()
    h.sign_in(d)
    h.open(d, f"/notes/{note_id}")
    d.find_element(By.XPATH, "//summary[normalize-space()='Publish…']").click()
    d.find_element(By.CSS_SELECTOR, "#publish-expiry option[value='604800']").click()
    h.shot(d, "16-publish-form")
    d.find_element(By.CSS_SELECTOR, "form[action$='/publish'] button[type=submit]").click()
    field = wait_for(d, lambda d: d.find_elements(By.ID, "publication-link"), "the new link")[0]
    link = field.get_attribute("value")
    assert link.startswith(h.base + "/p/"), link
    assert d.find_element(By.CSS_SELECTOR, "button[data-copy]").is_displayed(), "the Copy button is shown with scripts on"
    h.shot(d, "17-published-link")
    # A fresh browser with no session reads it.
    reader = h.browser(width=390, height=800)
    reader.get(link)
    assert "Piranesi" in reader.find_element(By.TAG_NAME, "body").text
    h.shot(reader, "18-published-anonymous")
    # The note page now offers Unpublish and never shows the link again.
    h.open(d, f"/notes/{note_id}")
    assert d.find_elements(By.XPATH, "//button[normalize-space()='Unpublish']"), "the note offers Unpublish"
    assert link not in d.page_source
    # Revoke it from the account page: the link is gone.
    h.open(d, "/account")
    row = d.find_element(By.XPATH, "//section[@aria-labelledby='publications-heading']//li[.//a[normalize-space()='Shared/Reading list.md']]")
    assert "expires" in row.text, row.text
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    h.shot(d, "19-account-publications")
    row.find_element(By.XPATH, ".//button[normalize-space()='Revoke']").click()
    wait_for(d, lambda d: "done=unpublished" in d.current_url, "the revoked notice")
    assert link not in d.page_source
    reader.get(link)
    status, _ = h.api("GET", link[len(h.base):])
    assert status == 404, status
    assert "Piranesi" not in reader.find_element(By.TAG_NAME, "body").text
    h.shot(reader, "20-revoked-link")


def scenario_sign_in_with_provider(h):
    import os
    if os.environ.get("NOTES_BROWSER_OIDC") != "mock":
        print("browser: sign_in_with_provider skipped: the test identity provider is not running")
        return
    d = h.browser()
    h.open(d, "/sign-in")
    button = d.find_element(By.LINK_TEXT, "Sign in with Mock ID")
    h.shot(d, "21-sign-in-with-provider")
    # Denied consent first: back on the sign-in page with the reason, and no session.
    button.click()
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, "button[value=deny]"), "the provider's consent page")
    d.find_element(By.CSS_SELECTOR, "button[value=deny]").click()
    wait_for(d, lambda d: "cancelled or denied" in d.find_element(By.TAG_NAME, "body").text, "the denial message")
    assert d.get_cookie("notes_session") is None
    h.shot(d, "22-provider-denied")
    # Then approve as dora, whose first sign-in creates her account.
    d.find_element(By.LINK_TEXT, "Sign in with Mock ID").click()
    wait_for(d, lambda d: d.find_elements(By.NAME, "sub"), "the provider's consent page")
    h.shot(d, "23-provider-consent")
    d.find_element(By.NAME, "sub").send_keys("dora-sub")
    d.find_element(By.XPATH, "//button[normalize-space()='Authorize']").click()
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, "nav.site-nav"), "the signed-in home page")
    cookie = d.get_cookie("notes_session")
    assert cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Lax", cookie
    h.open(d, "/account")
    assert "Account: dora" in d.find_element(By.TAG_NAME, "h1").text
    h.shot(d, "24-signed-in-with-provider")


SCENARIOS += [
    scenario_publish_open_anonymously_revoke,
    scenario_sign_in_with_provider,
]


# --- the editor's preview shows embedded images; an oversized upload gets a page ---

def scenario_preview_image_and_oversized_upload(h):
    import os
    import tempfile
    folder = tempfile.mkdtemp()
    image = os.path.join(folder, "dot.png")
    with open(image, "wb") as file:
        file.write(tiny_png(120, 80, (30, 90, 200)))
    d = h.browser()
    h.sign_in(d)
    h.open(d, "/upload?folder=Sketches")
    d.find_element(By.ID, "upload-file").send_keys(image)
    d.find_element(By.CSS_SELECTOR, "form[action='/upload'] button[type=submit]").click()
    wait_for(d, lambda d: "Uploaded." in d.page_source, "the upload's notice")
    # Editing a saved note: the preview resolves its relative image from the note's folder.
    note_id, status, _ = h.put_note(h.token(), "Sketches/Board.md", "# Board\n\nA dot:\n")
    assert status == 201, status
    h.open(d, f"/notes/{note_id}/edit")
    editor = d.find_element(By.ID, "content")
    editor.send_keys("\n![a blue dot](dot.png)\n")
    wait_for(d, lambda d: image_shows(d, "a blue dot"), "the preview to show the embedded image")
    src = d.execute_script("return [...document.querySelectorAll('#preview img')].map(i => i.getAttribute('src'))")
    assert src == ["/files/Sketches/dot.png"], src
    assert d.execute_script("return window.__csp") == [], "no CSP violation"
    h.shot(d, "preview-1-edit-with-image")
    # A new note: the preview follows the folder typed into the path.
    h.open(d, "/new")
    d.find_element(By.ID, "path").send_keys("Sketches/Another board")
    d.find_element(By.ID, "content").send_keys("![the same dot](dot.png)")
    wait_for(d, lambda d: image_shows(d, "the same dot"), "the new note's preview to show the image")
    h.shot(d, "preview-2-new-note-with-image")
    # A file over the attachment limit (256 MiB by default): refused before a byte is sent.
    big = os.path.join(folder, "huge.bin")
    with open(big, "wb") as file:
        file.truncate(257 * 1024 * 1024)
    h.open(d, "/upload")
    d.find_element(By.ID, "upload-file").send_keys(big)
    d.find_element(By.CSS_SELECTOR, "form[action='/upload'] button[type=submit]").click()
    wait_for(d, lambda d: d.find_element(By.ID, "upload-status").is_displayed(), "the refusal")
    status_text = text_of(d, "#upload-status")
    assert status_text == "huge.bin has 257 MB; a file may have at most 256 MB. Nothing was stored.", status_text
    h.shot(d, "preview-3-upload-too-large")
    status, listing = h.api("GET", "/v1/notes?kinds=note,attachment", token=h.token())
    assert status == 200 and not any(n["path"].endswith("huge.bin") for n in listing["notes"]), listing


SCENARIOS.append(scenario_preview_image_and_oversized_upload)


# --- chunked uploads, the trash's files, published pages --------------------------------------

def scenario_upload_above_31_mb(h):
    """A 40 MiB file goes up from the upload form in chunks through the resumable upload (one PUT
    per 8 MiB chunk, never the whole file in one request) and arrives byte-exact."""
    import hashlib
    import os
    import tempfile
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "recording.wav")
    digest = hashlib.sha256()
    with open(path, "wb") as file:
        block = bytes(range(256)) * 4096  # 1 MiB
        for n in range(40):
            piece = block[n:] + block[:n]
            digest.update(piece)
            file.write(piece)
    size = os.path.getsize(path)
    d = h.browser()
    h.sign_in(d)
    h.open(d, "/upload?folder=Audio")
    # Records what the page's script sends (WebDriver's script is not subject to the page's CSP).
    d.execute_script("""
        const original = window.fetch;
        window.fetch = function (url, options) {
            const sent = JSON.parse(sessionStorage.getItem('sent') || '[]');
            const body = options && options.body;
            sent.push([(options && options.method) || 'GET', String(url), body && body.byteLength !== undefined ? body.byteLength : -1]);
            sessionStorage.setItem('sent', JSON.stringify(sent));
            return original.apply(this, arguments);
        };
    """)
    d.find_element(By.ID, "upload-file").send_keys(path)
    d.find_element(By.CSS_SELECTOR, "form[action='/upload'] button[type=submit]").click()
    wait_for(d, lambda d: d.find_element(By.ID, "upload-status").is_displayed(), "the progress")
    h.shot(d, "upload-1-progress")
    wait_for(d, lambda d: "done=uploaded" in d.current_url, "the finished upload", timeout=240)
    assert "Uploaded." in text_of(d, ".notice")
    sent = json.loads(d.execute_script("return sessionStorage.getItem('sent')"))
    chunks = [entry for entry in sent if entry[0] == "PUT"]
    assert [entry[1].rsplit("/", 1)[1] for entry in chunks] == ["0", "1", "2", "3", "4"], sent
    assert all(entry[1].startswith("/upload/" + digest.hexdigest() + "/chunks/") for entry in chunks), sent
    assert max(entry[2] for entry in chunks) == 8 * 1024 * 1024, "no request carries more than one chunk"
    h.shot(d, "upload-2-done")
    token = h.token()
    status, listing = h.api("GET", "/v1/notes?kinds=note,attachment", token=token)
    entry = next(n for n in listing["notes"] if n["path"] == "Audio/recording.wav")
    assert entry["size"] == size and entry["hash"] == digest.hexdigest(), entry
    status, _ = h.api("GET", "/v1/uploads/" + digest.hexdigest(), token=token)
    assert status == 404, "the upload was completed, none is left open"


def upload_attachment(h, token, path, data):
    """Stores `data` as the attachment at `path` through the API, as a sync does: the content
    by its hash, then the entry in a batch. Returns its id, the hash and the batch's answer."""
    import hashlib
    digest = hashlib.sha256(data).hexdigest()
    request = urllib.request.Request(f"{h.base}/v1/content/{digest}", data=data, method="PUT")
    request.add_header("Authorization", "Bearer " + token)
    request.add_header("Content-Type", "application/octet-stream")
    with urllib.request.urlopen(request) as response:
        assert response.status in (200, 201), response.status
    file_id = str(uuid.uuid4())
    status, batch = h.api("POST", "/v1/batch", {"operations": [{"op": "put", "id": file_id, "path": path,
                                                                "if_none_match": "*", "kind": "attachment", "hash": digest}]}, token)
    assert status == 200 and batch["results"][0]["status"] == 201, batch
    return file_id, digest, batch


def scenario_trash_lists_files(h):
    """A deleted file is in the web trash beside deleted notes, and Undelete brings it back."""
    token = h.token()
    data = tiny_png()
    file_id, digest, batch = upload_attachment(h, token, "Garden/bed.png", data)
    rev = batch["results"][0]["note"]["rev"]
    status, batch = h.api("POST", "/v1/batch", {"operations": [{"op": "delete", "id": file_id, "if_match": rev}]}, token)
    assert batch["results"][0]["status"] == 200, batch
    note_id, _, created = h.put_note(token, "Garden/Old plan.md", "# Old plan\n")
    h.api("DELETE", f"/v1/notes/{note_id}", token=token, headers={"If-Match": f'"{created["rev"]}"'})
    d = h.browser()
    h.sign_in(d)
    h.open(d, "/trash")
    listed = text_of(d, "main .card")
    assert "bed.png" in listed and "file ·" in listed and "Old plan" in listed, listed
    h.shot(d, "trash-1-files-and-notes")
    row = d.find_element(By.XPATH, "//li[.//span[@class='title' and normalize-space()='bed.png']]")
    row.find_element(By.XPATH, ".//button[normalize-space()='Undelete']").click()
    wait_for(d, lambda d: "done=restored-file" in d.current_url, "the restored file")
    assert "The file was brought back." in text_of(d, ".notice")
    h.shot(d, "trash-2-file-restored")
    status, listing = h.api("GET", "/v1/notes?kinds=note,attachment", token=token)
    assert any(n["path"] == "Garden/bed.png" and n["hash"] == digest for n in listing["notes"]), listing


def scenario_published_page_frame(h):
    """A published page has a quiet header (title, updated date) with room above it, a footer,
    and print styles; looked at wide and narrow, light and dark, and printed."""
    token = h.token()
    content = "# Reading list\n\nBooks for the winter.\n\n- *The Dispossessed*\n- Piranesi\n\n" + "Some words to read. " * 40 + "\n"
    note_id, _, created = h.put_note(token, "Shared/Reading.md", content)
    status, publication = h.api("POST", f"/v1/notes/{note_id}/publication", {}, token)
    assert status == 201, (status, publication)
    for width, height in ((1280, 900), (390, 844)):
        reader = h.browser(width=width, height=height) if width > 500 else phone(h, width, height)
        for scheme in ("light", "dark"):
            reader.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
            h.open(reader, "/p/" + publication["token"])
            header = reader.find_element(By.CSS_SELECTOR, "header.page-header")
            assert header.find_element(By.CSS_SELECTOR, ".page-title").text == "Reading list"
            assert header.find_element(By.CSS_SELECTOR, ".page-date").text == "Updated " + created["updated_at"][:10]
            top = reader.execute_script("return arguments[0].getBoundingClientRect().top", header)
            assert top >= 20, f"the header has room above it ({top} px)"
            heading = reader.execute_script("return document.querySelector('main h1').getBoundingClientRect().top")
            assert heading >= top + 40, "the note's heading sits below the header"
            assert reader.find_element(By.CSS_SELECTOR, "footer.page-footer").text == "Published with Notes"
            assert reader.execute_script("return document.documentElement.scrollWidth") <= width
            assert reader.execute_script("return window.__csp") == [], "no CSP violation"
            h.shot(reader, f"published-{width}px-{scheme}")
        reader.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print", "features": []})
        footer = reader.execute_script("return getComputedStyle(document.querySelector('footer.page-footer')).display")
        assert footer == "none", "no footer on paper"
        h.shot(reader, f"published-{width}px-print")


SCENARIOS += [
    scenario_upload_above_31_mb,
    scenario_trash_lists_files,
    scenario_published_page_frame,
]


# One note holding every construct of the default flavour, in the web app and in an export.
EVERY_CONSTRUCT = """---
title: Field guide
aliases: [Guide]
tags: [guide, birds/waders]
status: draft
reviewed: 2026-12-01
---
# Field guide

> [!tip] Read *this* first
> Waders feed at low tide. See [[Second note]] and ![[heron.png]].

> [!warning]- Folded warning
> Mud is deeper than it looks.

> [!bug] A bug callout
> With ==highlighted== words.

| Bird | Length | Seen |
|:-----|-------:|:----:|
| Heron | 95 cm | ~~no~~ yes |
| Curlew | 55 cm | yes |

- [ ] bring boots
- [x] charge the camera

==Remember== the tide tables %%a hidden comment%% #birds/waders, a footnote[^1], www.example.com,
inline math $e^{i\\pi} + 1 = 0$ and display math:

$$
\\int_0^1 x^2 \\, dx = \\frac{1}{3}
$$

```python
def count(birds):
    return len([b for b in birds if b.wading])  # waders only
```

```mermaid
graph TD; Tide-->Mud; Mud-->Waders
```

[^1]: Counted at dawn.
"""


def every_construct_assertions(d, where):
    """What a page with every construct shows once its scripts ran: KaTeX's output, highlighted
    code, Mermaid as a labelled block, callouts, a table, footnotes; and no CSP violation or
    console error."""
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".math-display .katex-display"), f"display math typeset ({where})")
    assert len(d.find_elements(By.CSS_SELECTOR, ".math-inline .katex")) == 1, f"{where}: inline math typeset"
    tokens = d.find_elements(By.CSS_SELECTOR, "pre code.language-python span[class^=hljs-]")
    assert len(tokens) >= 3, f"{where}: highlighted code ({len(tokens)} token spans)"
    assert not d.find_elements(By.CSS_SELECTOR, "code.language-mermaid span[class^=hljs-]"), f"{where}: Mermaid is not highlighted"
    assert "Mermaid diagram (source)" in text_of(d, "figure.mermaid figcaption")
    assert len(d.find_elements(By.CSS_SELECTOR, ".callout")) == 3 and d.find_elements(By.CSS_SELECTOR, "details.callout")
    color = d.execute_script("return getComputedStyle(document.querySelector('.callout[data-callout=warning] .callout-title')).color")
    other = d.execute_script("return getComputedStyle(document.querySelector('.callout[data-callout=tip] .callout-title')).color")
    assert color != other, f"{where}: each callout kind has its colour ({color})"
    assert d.find_elements(By.CSS_SELECTOR, "table td[align=right]") and d.find_elements(By.CSS_SELECTOR, "section.footnotes")
    assert d.find_elements(By.CSS_SELECTOR, "dl.properties") and d.find_elements(By.CSS_SELECTOR, "mark")
    fonts = d.execute_script("return Array.from(document.fonts).filter(f => f.status === 'loaded').map(f => f.family)")
    assert any(font.startswith("KaTeX") for font in fonts), f"{where}: KaTeX's fonts load ({fonts})"
    assert d.execute_script("return window.__csp") == [], f"{where}: CSP violations {d.execute_script('return window.__csp')}"
    errors = [entry for entry in d.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], f"{where}: console errors {errors}"


def shoot_light_dark_phone(h, d, name):
    for scheme in ("light", "dark"):
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        h.shot(d, f"{name}-{scheme}")
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    d.set_window_size(390, 844)
    width = d.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, f"{name}: the page scrolls sideways at 390 px ({width} px wide)"
    h.shot(d, f"{name}-390px")
    d.set_window_size(1280, 900)


def scenario_every_construct_in_the_export(h):
    """The export of a folder with every construct, opened from file://: math typeset by the
    copied KaTeX, code by the copied highlight.js, nothing fetched from elsewhere."""
    import os
    import pathlib
    import subprocess
    import tempfile
    root = pathlib.Path(__file__).resolve().parents[2]
    work = pathlib.Path(tempfile.mkdtemp())
    (work / "notes" / "guide").mkdir(parents=True)
    (work / "notes" / "guide" / "Field guide.md").write_text(EVERY_CONSTRUCT)
    (work / "notes" / "Second note.md").write_text("# Second note\n\nBack to [[Field guide]].\n")
    (work / "notes" / "heron.png").write_bytes(tiny_png())
    result = subprocess.run([str(root / ".build" / "debug" / "notes"), "export", "--html", str(work / "site"), str(work / "notes")],
                            capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    assert result.returncode == 0, result.stderr
    d = h.browser()
    d.get((work / "site" / "guide" / "Field guide.html").as_uri())
    every_construct_assertions(d, "export")
    shoot_light_dark_phone(h, d, "every-construct-export")


def scenario_every_construct_in_the_web_app(h):
    """The same note in the web app: typeset, highlighted, styled, under the app's strict CSP;
    ticking a task there saves a new revision."""
    token = h.token()
    upload_attachment(h, token, "Guide/heron.png", tiny_png())
    h.put_note(token, "Guide/Second note.md", "# Second note\n\nBack to [[Field guide]].\n")
    note_id, status, created = h.put_note(token, "Guide/Field guide.md", EVERY_CONSTRUCT)
    assert status == 201, status
    d = h.browser()
    h.sign_in(d)
    d.get_log("browser")  # drop what signing in logged
    h.open(d, f"/notes/{note_id}")
    every_construct_assertions(d, "web app")
    assert d.find_elements(By.CSS_SELECTOR, "a.tag"), "tags link to their page"
    shoot_light_dark_phone(h, d, "every-construct-web")
    boxes = d.find_elements(By.CSS_SELECTOR, ".note-body input[type=checkbox]")
    assert [box.is_enabled() for box in boxes] == [True, True], "the web app's task checkboxes can be ticked"
    boxes[0].click()
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, ".note-body input[type=checkbox][value='0']:checked"), "the ticked task after saving")
    status, body = h.api("GET", f"/v1/notes/{note_id}", token=token)
    assert body["rev"] > created["rev"] and "- [x] bring boots\n- [x] charge the camera" in body["content"], body["content"]
    h.shot(d, "every-construct-web-task-ticked")


SCENARIOS += [
    scenario_every_construct_in_the_export,
    scenario_every_construct_in_the_web_app,
]


# --- the token page says how to use a token as a WebDAV app password ---

def scenario_webdav_app_password(h):
    """The account page shows the personal space's WebDAV address; a token made there signs a
    WebDAV client in as the app password, and the account password does not."""
    import base64
    d = h.browser()
    h.sign_in(d, BOB)
    h.open(d, "/account")
    help_text = d.find_element(By.ID, "webdav-help").text
    address = h.base + "/dav/personal/"
    assert address in help_text and "app" in help_text, help_text
    d.find_element(By.ID, "token-name").send_keys("Finder")
    d.find_element(By.CSS_SELECTOR, "form[action='/account/tokens'] button").click()
    secret = wait_for(d, lambda d: d.find_elements(By.ID, "new-token"), "the new token")[0].text
    h.shot(d, "webdav-app-password")

    def propfind(password):
        request = urllib.request.Request(address, method="PROPFIND", headers={
            "Depth": "0",
            "Authorization": "Basic " + base64.b64encode(f"bob:{password}".encode()).decode(),
        })
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    assert propfind(secret) == 207, "the token signs in as the app password"
    assert propfind(BOB[1]) == 401, "the account password is refused"


SCENARIOS.append(scenario_webdav_app_password)



CAROL = ("carol", "a third long secret")


def scenario_space_switcher_members_viewer(h):
    """Alice switches to her space Team, adds bob as viewer and carol as editor on the members
    page, removes carol again; bob, a viewer, reads a note of Team with no Edit or Delete."""
    alice = h.token()
    status, space = h.api("POST", "/v1/spaces", {"name": "Team"}, alice)
    assert status == 201, (status, space)
    team = space["id"]
    note_id = str(uuid.uuid4())
    status, _ = h.api("PUT", f"/v1/spaces/{team}/notes/{note_id}", {"path": "Runbook.md", "content": "# Runbook\n\nRestart the thing.\n"},
                      alice, {"If-None-Match": "*"})
    assert status == 201, status

    d = h.browser()
    h.sign_in(d)
    d.find_element(By.CSS_SELECTOR, ".space-switcher summary").click()
    h.shot(d, "spaces-01-switcher-open")
    d.find_element(By.CSS_SELECTOR, f".space-switcher a[href='/s/{team}/']").click()
    wait_for(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#space-banner .space-name"), "Team's banner")
    assert text_of(d, "#space-banner .space-name") == "Team"
    assert d.find_element(By.LINK_TEXT, "Runbook").get_attribute("href").endswith(f"/s/{team}/notes/{note_id}")
    h.shot(d, "spaces-02-team-home")

    # The upload form's script sends the file in parts to the space's own upload address.
    import os
    import tempfile
    picture = os.path.join(tempfile.mkdtemp(), "diagram.png")
    with open(picture, "wb") as file:
        file.write(tiny_png())
    d.find_element(By.ID, "upload-file").send_keys(picture)
    d.find_element(By.CSS_SELECTOR, f"form[action='/s/{team}/upload'] button[type=submit]").click()
    wait_for(d, lambda d: "Uploaded." in d.page_source, "the upload's notice")
    assert d.find_element(By.LINK_TEXT, "diagram.png").get_attribute("href").endswith(f"/s/{team}/files/diagram.png")
    status, listing = h.api("GET", f"/v1/spaces/{team}/notes?kinds=note,attachment", token=alice)
    assert status == 200 and "diagram.png" in [entry["path"] for entry in listing["notes"]], (status, listing)
    status, personal = h.api("GET", "/v1/notes?kinds=note,attachment", token=alice)
    assert "diagram.png" not in [entry["path"] for entry in personal["notes"]], "nothing landed in the personal space"

    d.find_element(By.CSS_SELECTOR, "#space-banner a").click()
    for user, role in (("bob", "viewer"), ("carol", "editor")):
        wait_for(d, lambda d: d.find_elements(By.ID, "member-username"), "the add-member form")
        d.find_element(By.ID, "member-username").send_keys(user)
        d.find_element(By.CSS_SELECTOR, f"#member-role option[value='{role}']").click()
        d.find_element(By.CSS_SELECTOR, f"form[action='/s/{team}/members/add'] button[type=submit]").click()
        wait_for(d, lambda d: user in [e.text for e in d.find_elements(By.CSS_SELECTOR, ".members .title")], f"{user} in the list")
    h.shot(d, "spaces-03-members")
    d.find_element(By.CSS_SELECTOR, "button[aria-label='Remove carol']").click()
    wait_for(d, lambda d: "carol" not in [e.text for e in d.find_elements(By.CSS_SELECTOR, ".members .title")], "carol gone")
    assert "bob" in [e.text for e in d.find_elements(By.CSS_SELECTOR, ".members .title")]

    b = h.browser()
    h.sign_in(b, BOB)
    h.open(b, f"/s/{team}/notes/{note_id}")
    wait_for(b, lambda d: d.find_elements(By.CSS_SELECTOR, ".note-body h1"), "the note")
    assert text_of(b, "#space-banner .space-role") == "you are a viewer (read only)"
    assert not b.find_elements(By.LINK_TEXT, "Edit"), "a viewer has no Edit"
    assert not b.find_elements(By.XPATH, "//button[normalize-space()='Delete']"), "a viewer has no Delete"
    assert b.find_elements(By.LINK_TEXT, "History")
    h.shot(b, "spaces-04-viewer-note")
    h.open(b, f"/s/{team}/members")
    wait_for(b, lambda d: d.find_elements(By.CSS_SELECTOR, ".members"), "the members list")
    assert not b.find_elements(By.ID, "member-username"), "a viewer cannot add members"
    h.shot(b, "spaces-05-viewer-members")

    # On a phone the open switcher stays inside the window.
    p = phone(h)
    h.sign_in(p, BOB)
    h.open(p, f"/s/{team}/")
    p.find_element(By.CSS_SELECTOR, ".space-switcher summary").click()
    box = p.execute_script("const r = document.querySelector('.space-switcher ul').getBoundingClientRect(); return [r.left, r.right];")
    assert box[0] >= 0 and box[1] <= p.execute_script("return innerWidth"), box
    h.shot(p, "spaces-06-phone-switcher")


SCENARIOS.append(scenario_space_switcher_members_viewer)


if __name__ == "__main__":
    main()
