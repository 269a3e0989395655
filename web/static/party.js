// The party page's live part: fetched again every 2 s while this Pi hosts or joins a party.
"use strict";
(function () {
  function refresh() {
    var live = document.getElementById("party-live");
    if (!live || !live.dataset.refresh) { return; }
    fetch(live.dataset.refresh, {credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var current = document.getElementById("party-live");
        if (current) { current.outerHTML = html; }
      })
      .catch(function () { /* the Pi is away for a moment: try again next time */ });
  }
  setInterval(refresh, 2000);
})();
