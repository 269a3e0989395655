"""Fixtures for the web tests: an app on a temporary store, a client, CSRF and PIN helpers,
and the real browser.

Following flaskr's tests/conftest.py: ``app`` builds the application with a test
configuration, ``client`` talks to it. ``Phone`` wraps a client the way a phone uses the
pages: it reads the CSRF token from a page and posts forms with it.

The browser tests share one Chromium (Debian's, driven by Playwright) per test process: the
``browser`` fixture lives as long as the process runs tests/web, started by the first test that
asks for it. Each test
gets fresh browser contexts (``open_phone``, or ``page`` for one phone), so no cookie, stored
seat or PIN carries from one test to the next.
"""

from __future__ import annotations

import asyncio
import importlib.resources
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest
from ducktable.device.demo import next_event
from ducktable.device.store import MatchInfo, MatchStore
from ducktable.rules.core import RandomBot
from ducktable.web import create_app
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Browser, Page, ViewportSize, expect, sync_playwright

PIN = "4821"
PLAYERS = ["Ada", "Bo", "Cy"]
TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
# Waits, not speed checks: a shared CI machine can be several times slower than a quiet one.
expect.set_options(timeout=30_000)


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One Chromium for the web tests of a test process (each xdist worker starts its own),
    closed when the process leaves tests/web: Playwright's sync API leaves its event loop
    marked as running in this thread between calls, and a library that looks for a running
    loop (zeroconf does) would attach to it and wait forever."""
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(autouse=True)
def _no_browser_loop_outside_browser_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """A web test without the browser runs as if no event loop were running in this thread,
    though the shared browser's loop is marked so (see ``browser``); the mark is put back
    for the browser's next call."""
    loop = asyncio._get_running_loop()
    if loop is None or "browser" in request.fixturenames:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)


# A phone's page at arm's length, measured in the browser with every fold opened: all text
# 16 px or more; every link, button, box, menu and fold 44 px tall or more (a tick box through
# its label); no sentence said twice in one form or outside the forms; the chart's axes, the
# nav on screen, the turn line.
MEASURE = """() => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const seen = (el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; };
  const small = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("svg, script, style, noscript") || !seen(el)) continue;
    const text = Array.from(el.childNodes).filter((n) => n.nodeType === 3)
      .map((n) => n.textContent.trim()).join("");
    if (text && parseFloat(getComputedStyle(el).fontSize) < 16) {
      small.push(`${el.tagName}.${el.className} ${getComputedStyle(el).fontSize} "${text.slice(0, 30)}"`);
    }
  }
  const short = [];
  for (const el of document.querySelectorAll(
      "a[href], button, input:not([type=hidden]), select, textarea, summary")) {
    if (!seen(el) && !(el.type === "checkbox" || el.type === "radio")) continue;
    // a tick box or a choice is tapped through its label
    const target = (el.type === "checkbox" || el.type === "radio") ? (el.closest("label") || el) : el;
    if (!seen(target)) continue;
    const h = target.getBoundingClientRect().height;
    if (h < 44) short.push(`${el.tagName}.${el.className}[${el.name || el.textContent.trim().slice(0, 20)}] ${h}px`);
  }
  // a sentence said twice in one form, or twice outside the forms; a list item counts whole
  // (two rounds may end alike in part, two events may be alike)
  const twice = [];
  const scopes = [...document.querySelectorAll("main form"), document.querySelector("main")];
  for (const scope of scopes) {
    const count = {};
    for (const el of scope.querySelectorAll("p, li, h1, h2, h3, dd, legend, .help, .flash, figcaption")) {
      if (!seen(el) || el.querySelector("p, li") || el.closest("ol.events")) continue;
      if (scope.tagName === "MAIN" && el.closest("form")) continue;
      const said = el.tagName === "LI" ? [el.innerText] : el.innerText.split(/(?<=[.!?])\\s+/);
      for (const s of said) {
        const words = s.trim();
        if (words.split(/\\s+/).length >= 4) count[words] = (count[words] || 0) + 1;
      }
    }
    twice.push(...Object.entries(count).filter(([, n]) => n > 1).map(([s]) => s));
  }
  const axes = Array.from(document.querySelectorAll("svg.chart text.axis")).map(
    (t) => t.getBoundingClientRect().height);
  const nav = document.querySelector(".top nav");
  const navHidden = nav ? nav.scrollWidth - nav.clientWidth : 0;  // links pushed off the screen
  const turn = document.getElementById("turn");
  const turnStyle = turn ? getComputedStyle(turn) : null;
  return { small, short, twice, axes, navHidden,
           turnPx: turnStyle ? parseFloat(turnStyle.fontSize) : 0,
           turnWeight: turnStyle ? Number(turnStyle.fontWeight) : 0 };
}"""


def measured(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(MEASURE)
    return result


# axe-core, as axe-playwright-python ships it; only the script is used. It goes in as an init
# script: the page's CSP forbids inline scripts, an init script is the browser's, not the page's.
AXE_JS = (importlib.resources.files("axe_playwright_python") / "axe.min.js").read_text()


def serious_axe_problems(page: Page) -> list[str]:
    """axe-core's serious and critical findings on the open page (opened with ``axe=True``)."""
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:4])
        for v in result["violations"] if v["impact"] in ("serious", "critical")
    ]


# What a person should never read: the engine's names (double_barrel, all_tied_discard, a zone
# such as seat0.pile) and seats, tables or events counted from 0.
JARGON = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z]+\d\.[a-z]+|\b(?:[Ss]eat|[Tt]able|[Ee]vent|[Rr]ound|[Hh]and) 0\b|#0\b")


def every_part_problems(page: Page, where: str) -> list[str]:
    """What is too small, said twice, in jargon or hard to use on the open page, each named by
    ``where``."""
    found = measured(page)
    words = page.inner_text("main")
    found["jargon"] = sorted({m.group(0) for m in JARGON.finditer(words)})
    return [f"{where}: {kind} {what}" for kind in ("small", "short", "twice", "jargon")
            for what in found[kind][:6]] + [f"{where}: {p}" for p in serious_axe_problems(page)]


class OpenPhone(Protocol):
    def __call__(self, *, timeout_ms: float = 30_000, init_script: str | None = None,
                 axe: bool = False, **context: Any) -> Page: ...


@pytest.fixture
def open_phone(browser: Browser) -> Iterator[OpenPhone]:
    """Opens a phone-sized tab in a fresh browser context (keyword arguments go to
    ``new_context`` over the phone's defaults; ``axe`` brings axe-core); every context is closed after the test."""
    contexts = []

    def open_tab(*, timeout_ms: float = 30_000, init_script: str | None = None,
                 axe: bool = False, **context: Any) -> Page:
        settings: dict[str, Any] = {"viewport": PHONE, "device_scale_factor": 2,
                                    "is_mobile": True, "has_touch": True, **context}
        opened = browser.new_context(**settings)
        contexts.append(opened)
        for script in (AXE_JS if axe else None, init_script):
            if script:  # the browser's own script: it runs before the page's, CSP or not
                opened.add_init_script(script=script)
        tab = opened.new_page()
        tab.set_default_timeout(timeout_ms)
        return tab

    yield open_tab
    for opened in contexts:
        opened.close()


@pytest.fixture
def page(open_phone: OpenPhone) -> Page:
    """One phone (390 x 844) in a fresh browser context."""
    return open_phone()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    s = MatchStore(tmp_path / "matches.sqlite3")
    yield s
    s.close()


@pytest.fixture
def app(store: MatchStore, tmp_path: Path) -> Flask:
    return create_app(
        {
            "TESTING": True,
            "STORE": store,
            "TABLE_PIN": PIN,
            "SECRET_KEY": "test-secret-" + "x" * 32,
            "INSTANCE_PATH": str(tmp_path),
            "PIN_FILE": str(tmp_path / "table-pin"),
            "PARTY_FILE": str(tmp_path / "party.json"),
            "LIVE_WAIT_S": 0.05,
        }
    )


class Phone:
    """A test client used like a phone: fetch a page, then post its form with the token."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.token = ""

    def get(self, url: str, **kwargs: Any) -> Any:
        response = self.client.get(url, **kwargs)
        found = TOKEN.search(response.get_data(as_text=True))
        if found:
            self.token = found.group(1)
        return response

    def post(self, url: str, data: dict[str, Any] | None = None, *, token: bool = True,
             **kwargs: Any) -> Any:
        if token and not self.token:
            self.get("/setup")
        form = dict(data or {})
        if token:
            form.setdefault("csrf_token", self.token)
        return self.client.post(url, data=form, **kwargs)

    def unlock(self, pin: str = PIN) -> Any:
        self.get("/unlock")
        return self.post("/unlock", {"pin": pin, "next": "/history"})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def phone(client: FlaskClient) -> Phone:
    return Phone(client)


@pytest.fixture
def unlocked(app: Flask) -> Phone:
    p = Phone(app.test_client())
    response = p.unlock()
    assert response.status_code == 303
    return p


def new_duck(store: MatchStore, *, observer: bool = True, players: list[str] | None = None,
             **options: Any) -> MatchInfo:
    return store.create_match("duck", players or PLAYERS, options, observer=observer)


def play_bots(store: MatchStore, match_id: int, events: int, seed: int = 7) -> None:
    """Let random bots add up to ``events`` events to a full-information match."""
    rng = random.Random(seed)
    info = store.match(match_id)
    bots = [RandomBot(random.Random(seed + i)) for i in range(len(info.players))]
    for _ in range(events):
        state = store.state(match_id)
        if state.is_over():
            return
        assert store.submit(match_id, next_event(state, bots, rng)).ok


def play_until_round_scored(store: MatchStore, match_id: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    info = store.match(match_id)
    bots = [RandomBot(random.Random(seed + i)) for i in range(len(info.players))]
    while True:
        state = store.state(match_id)
        event = next_event(state, bots, rng)
        assert store.submit(match_id, event).ok
        if event.type == "reveal":
            return
