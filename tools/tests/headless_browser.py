"""One headless Chromium for many pages, driven over the DevTools protocol on a pipe.

test_docs_site loads every lesson page and reads what the browser built (the DOM after its
scripts ran) and what it complained about (console messages, uncaught exceptions, failed loads).
Started once per page with --dump-dom, Chromium took about 2.3 s a page, most of it its own start:
about 25 s of the unit suite's `rest` group (docs/results/check-times.md). Here it starts once and
each page is a navigation in the same tab.

The protocol runs over two pipes given to Chromium as descriptors 3 (its input) and 4 (its
output) with --remote-debugging-pipe: JSON messages, each ended by a NUL byte. Only what the tests
use is here: open a tab, load a page, read its DOM, collect its complaints, take a screenshot.
"""
from __future__ import annotations

import fcntl
import json
import os
import select
import time
from pathlib import Path

LOAD_TIMEOUT_S = 60  # a busy machine loads a page slowly; a page that never loads fails the test


class BrowserError(RuntimeError):
    pass


class Page:
    """What one navigation left: the DOM's HTML and every complaint, in words."""

    def __init__(self, url, html, complaints):
        self.url, self.html, self.complaints = url, html, complaints


class HeadlessBrowser:
    def __init__(self, executable, flags, profile, stderr_path):
        to_browser_r, to_browser_w = os.pipe()
        from_browser_r, from_browser_w = os.pipe()
        # Above 2 and the two numbers Chromium reads, so that the dup2s below cannot overwrite one another.
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)
        self._err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        argv = [executable, *flags, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"]
        try:
            self.pid = os.posix_spawn(executable, argv, dict(os.environ), file_actions=[
                (os.POSIX_SPAWN_DUP2, null, 0), (os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, self._err, 2),
                (os.POSIX_SPAWN_DUP2, high_r, 3), (os.POSIX_SPAWN_DUP2, high_w, 4)])
        finally:
            for fd in (high_r, high_w, null):
                os.close(fd)
        self._in, self._out = to_browser_w, from_browser_r
        self._buffer, self._events, self._next_id = b"", [], 0
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self._call(f"{domain}.enable", session=True)

    # ------------------------------------------------------------ the protocol

    def _send(self, method, params=None, session=False):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._in, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _receive(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._out, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its protocol pipe (it stopped)")
            self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def _call(self, method, params=None, session=False):
        """The result of one command; the events that come before it are kept for the page."""
        wanted = self._send(method, params, session)
        deadline = time.monotonic() + LOAD_TIMEOUT_S
        while True:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._events.append(message)

    def _wait_for(self, event):
        deadline = time.monotonic() + LOAD_TIMEOUT_S
        while True:
            message = self._receive(deadline)
            self._events.append(message)
            if message.get("method") == event and message.get("sessionId") == self._session:
                return

    # ------------------------------------------------------------ what the tests use

    def load(self, url) -> Page:
        """Navigates the tab to `url`, waits for its load event, and returns its DOM and complaints."""
        self._events = []
        result = self._call("Page.navigate", {"url": url}, session=True)
        if result.get("errorText"):
            return Page(url, "", [f"the page did not load: {result['errorText']}"])
        self._wait_for("Page.loadEventFired")
        dom = self._call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                              "returnByValue": True}, session=True)
        html = "<!DOCTYPE html>\n" + dom.get("result", {}).get("value", "")
        return Page(url, html, [c for c in map(_complaint, self._events) if c])

    def screenshot(self, url, path, width, height):
        """A PNG of `url` drawn in a window of width x height pixels, written to `path`."""
        import base64
        self._call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                          "deviceScaleFactor": 1, "mobile": False}, session=True)
        page = self.load(url)
        shot = self._call("Page.captureScreenshot", {"format": "png"}, session=True)
        Path(path).write_bytes(base64.b64decode(shot["data"]))
        return page

    def close(self):
        try:
            self._send("Browser.close")
        except OSError:
            pass
        for fd in (self._in, self._out, self._err):
            os.close(fd)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                return
            time.sleep(0.05)
        os.kill(self.pid, 9)
        os.waitpid(self.pid, 0)


def _complaint(message):
    """A console message, an uncaught exception or a log entry (a failed load, say), in words;
    None for every other event. Chromium's --enable-logging prints the same as CONSOLE lines."""
    method, params = message.get("method"), message.get("params", {})
    if method == "Runtime.consoleAPICalled":
        words = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
        return f"console.{params.get('type')}: {words}"
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        return f"uncaught exception: {details.get('exception', {}).get('description') or details.get('text')}"
    if method == "Log.entryAdded" and params.get("entry", {}).get("level") != "verbose":
        entry = params["entry"]
        return f"{entry.get('source')} {entry.get('level')}: {entry.get('text')} {entry.get('url', '')}".strip()
    return None
