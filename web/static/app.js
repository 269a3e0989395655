// ducktable's few behaviours: the live scoreboard, the card pickers, the setup form.
// Everything works without JavaScript too (forms post, pages reload); this only makes it nicer.
"use strict";

// Keep the phone's screen on while a game is being played (Screen Wake Lock API). Where the
// browser has no wake lock, or refuses it (battery saver, no https), nothing happens. The
// browser drops the lock whenever the page is hidden, so it is asked for again on return.
const wakeLock = {
  sentinel: null,
  wanted: false,
  async acquire() {
    this.wanted = true;
    if (!("wakeLock" in navigator) || this.sentinel || document.visibilityState !== "visible") { return; }
    try {
      this.sentinel = await navigator.wakeLock.request("screen");
      this.sentinel.addEventListener("release", () => { this.sentinel = null; });
    } catch (err) {
      this.sentinel = null;  // refused: the screen may dim, the page still works
    }
  },
  release() {
    this.wanted = false;
    if (this.sentinel) { this.sentinel.release().catch(() => {}); this.sentinel = null; }
  },
};

document.addEventListener("visibilitychange", () => {
  if (wakeLock.wanted && document.visibilityState === "visible") { wakeLock.acquire(); }
});

// Times arrive as <time datetime="ISO">readable UTC</time>; show them in the phone's own zone.
function localTimes(root) {
  root.querySelectorAll("time[datetime]").forEach((el) => {
    const when = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(when.getTime())) { return; }
    el.textContent = when.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
    el.title = el.getAttribute("datetime");
  });
}

function followWakeLock(over) {
  if (over) { wakeLock.release(); } else { wakeLock.acquire(); }
}

function startLiveBoard(live) {
  followWakeLock(live.dataset.over === "1");
  const state = document.getElementById("live-state");
  if (state) state.hidden = false;  // hidden in the page itself: without JavaScript it never connects
  const board = document.getElementById("board");
  const leds = document.getElementById("leds");
  const camera = document.getElementById("camera");
  const newer = document.getElementById("newer");
  const follow = live.dataset.follow === "1";
  const source = new EventSource(live.dataset.liveUrl);
  source.addEventListener("board", (message) => {
    const data = JSON.parse(message.data);
    if (String(data.seq) !== live.dataset.seq) { board.innerHTML = data.board; localTimes(board); }
    live.dataset.over = data.over ? "1" : "0";
    followWakeLock(Boolean(data.over));
    leds.innerHTML = data.leds;
    if (camera && camera.dataset.sent !== data.camera) {
      camera.dataset.sent = data.camera;
      camera.innerHTML = data.camera;
      // the stream is the same for every phone: its forms get this page's own token
      camera.querySelectorAll("input[name=csrf_token]").forEach((input) => {
        if (!input.value) { input.value = live.dataset.csrf; }
      });
      keyForms(camera);
    }
    live.dataset.seq = String(data.seq);
    state.textContent = "live · update " + data.seq;
    state.dataset.state = "live";
    if (data.newer) {
      if (follow) {
        source.close();
        window.location.replace(live.dataset.home);
        return;
      }
      newer.hidden = false;
      newer.innerHTML = "";
      const link = document.createElement("a");
      link.href = "/match/" + Number(data.newer);
      link.textContent = "A newer match is being played: match " + Number(data.newer) + " →";
      newer.appendChild(link);
    }
  });
  source.addEventListener("open", () => { state.textContent = "live"; state.dataset.state = "live"; });
  source.addEventListener("error", () => {
    state.textContent = "reconnecting…";
    state.dataset.state = "reconnecting";
  });
}

// "My seat": the phone's own seat comes first on the board. The choice is kept per match in
// localStorage and put in the address (?seat=K, counted from 1), so a reload keeps it.
function startMySeat(live) {
  const select = document.getElementById("my-seat");
  if (!select) { return; }
  const key = "ducktable.seat." + live.dataset.match;
  const show = (value) => {
    if (value === "") { delete live.dataset.me; } else { live.dataset.me = String(Number(value) - 1); }
    const url = new URL(window.location.href);
    if (value === "") { url.searchParams.delete("seat"); } else { url.searchParams.set("seat", value); }
    window.history.replaceState(null, "", url);
  };
  if (live.dataset.meFixed !== "1") {
    let kept = null;
    try { kept = window.localStorage.getItem(key); } catch (err) { kept = null; }
    if (kept !== null && select.querySelector('option[value="' + CSS.escape(kept) + '"]')) {
      select.value = kept;
      show(kept);
    }
  }
  select.addEventListener("change", () => {
    try { window.localStorage.setItem(key, select.value); } catch (err) { /* private mode: not kept */ }
    show(select.value);
  });
}

function setActive(form, input) {
  form.querySelectorAll("[data-cards]").forEach((el) => el.classList.remove("active-cards"));
  if (input) { input.classList.add("active-cards"); }
  form.activeCards = input;
}

function tokens(value) {
  return value.split(/[\s,;]+/).filter((t) => t.length > 0);
}

function startPickers(form) {
  const inputs = form.querySelectorAll("[data-cards]");
  if (inputs.length === 0) { return; }
  setActive(form, inputs[0]);
  form.addEventListener("focusin", (e) => {
    if (e.target.matches("[data-cards]")) { setActive(form, e.target); }
  });
  form.addEventListener("click", (e) => {
    const pick = e.target.closest(".pick");
    const back = e.target.closest(".pick-back");
    const input = form.activeCards;
    if (!input || (!pick && !back)) { return; }
    e.preventDefault();
    if (pick) {
      const label = pick.dataset.card;
      input.value = input.dataset.cards === "one" ? label : tokens(input.value).concat([label]).join(", ");
    } else {
      input.value = tokens(input.value).slice(0, -1).join(", ");
    }
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

function startSetup(form) {
  const update = () => {
    const chosen = form.querySelector("input[name=game]:checked");
    if (!chosen) { return; }
    const max = Number(chosen.dataset.max);
    form.querySelectorAll("fieldset.options").forEach((fs) => {
      fs.hidden = fs.dataset.game !== chosen.value;
      fs.disabled = fs.hidden;
    });
    form.querySelectorAll(".seat-input").forEach((label) => {
      label.hidden = Number(label.dataset.seat) >= max;
      label.querySelector("input").disabled = label.hidden;
    });
  };
  form.addEventListener("change", update);
  update();
}

// Every entry carries a random key, made once per form: when the phone sends it again (the
// answer was slow, the person tapped twice, the browser resent it), the table records it once
// and answers the second try as it answered the first. crypto.randomUUID needs https, which a
// table on the local network has not; getRandomValues works on plain http too.
const ENTRY_KEY = "idempotency_key";

function newEntryKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function keyForm(form) {
  if ((form.getAttribute("method") || "get").toLowerCase() !== "post") { return; }
  if (form.querySelector(`input[name=${ENTRY_KEY}]`)) { return; }
  const input = document.createElement("input");
  input.type = "hidden";
  input.name = ENTRY_KEY;
  input.value = newEntryKey();
  form.appendChild(input);
}

function keyForms(root) { root.querySelectorAll("form").forEach(keyForm); }

// forms added later (by other scripts) get their key when they are sent
document.addEventListener("submit", (e) => { if (e.target instanceof HTMLFormElement) { keyForm(e.target); } }, true);

// a script's POST gets a key header unless it gives its own (a retry should reuse it); a
// form's key that was answered is renewed, so that the form's next use is a new entry
function renewKey(key) {
  document.querySelectorAll(`input[name=${ENTRY_KEY}]`).forEach((input) => {
    if (input.value === key) { input.value = newEntryKey(); }
  });
}

if (window.fetch) {
  const plainFetch = window.fetch.bind(window);
  window.fetch = (resource, options = {}) => {
    const method = (options.method || (resource instanceof Request ? resource.method : "GET")).toUpperCase();
    if (method === "GET" || method === "HEAD") { return plainFetch(resource, options); }
    const headers = new Headers(options.headers || (resource instanceof Request ? resource.headers : undefined));
    const body = options.body;
    const formKey = (body instanceof FormData || body instanceof URLSearchParams) && body.has(ENTRY_KEY);
    if (!formKey && !headers.has("Idempotency-Key")) { headers.set("Idempotency-Key", newEntryKey()); }
    return plainFetch(resource, { ...options, headers }).then((response) => {
      if (formKey && response.status < 500) { renewKey(body.get(ENTRY_KEY)); }
      return response;
    });
  };
}

document.addEventListener("DOMContentLoaded", () => {
  localTimes(document);
  keyForms(document);
  const live = document.getElementById("live");
  if (live && window.EventSource) { startLiveBoard(live); }
  if (live) { startMySeat(live); }
  document.querySelectorAll("form.event-form").forEach(startPickers);
  const setup = document.getElementById("setup-form");
  if (setup) { startSetup(setup); }
  document.querySelectorAll("[data-autosubmit]").forEach((el) => {
    el.addEventListener("change", () => el.form.submit());
  });
});
