// Search and filters of the catalog's index.html. index.html?q=TERM
// (and &platform=, &dist=) applies them on load, so other sites can link
// to a search; cards that do not match get the hidden attribute.
"use strict";
(function () {
  var form = document.getElementById("filters");
  if (!form) {
    return;
  }
  var q = form.elements.q;
  var platform = form.elements.platform;
  var dist = form.elements.dist;
  var cards = Array.prototype.slice.call(document.querySelectorAll("[data-agent-id]"));
  var count = document.getElementById("count");
  var none = document.getElementById("none");
  var universal = ["npx", "uvx"]; // node and python run everywhere

  function choose(select, value) {
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].value === value) {
        select.value = value;
        return;
      }
    }
  }

  var params = new URLSearchParams(window.location.search);
  q.value = params.get("q") || "";
  choose(platform, params.get("platform") || "");
  choose(dist, params.get("dist") || "");

  // data-search holds the id, name and description, lowercased: reading
  // an attribute is cheap, while reading the text of three elements of
  // each of 5,000 cards takes the better part of a second.
  function matches(card, terms, p, d) {
    var text = card.getAttribute("data-search");
    for (var i = 0; i < terms.length; i++) {
      if (text.indexOf(terms[i]) < 0) {
        return false;
      }
    }
    // Some distribution of the agent is the one asked for and runs on the
    // platform asked for: a binary where it has an archive for it, npx and
    // uvx anywhere.
    var dists = card.getAttribute("data-dist").split(" ");
    var platforms = card.getAttribute("data-platforms").split(" ");
    for (var j = 0; j < dists.length; j++) {
      if (d && dists[j] !== d) {
        continue;
      }
      if (!p || universal.indexOf(dists[j]) >= 0 || platforms.indexOf(p) >= 0) {
        return true;
      }
    }
    return false;
  }

  function apply() {
    var terms = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var shown = 0;
    for (var i = 0; i < cards.length; i++) {
      var ok = matches(cards[i], terms, platform.value, dist.value);
      if (cards[i].hidden === ok) {
        cards[i].hidden = !ok; // only on change: each change costs a style pass
      }
      if (ok) {
        shown++;
      }
    }
    count.textContent = shown === cards.length ? cards.length + " agents" : shown + " of " + cards.length + " agents";
    none.hidden = shown !== 0;
  }

  function remember() {
    var next = new URLSearchParams();
    if (q.value) {
      next.set("q", q.value);
    }
    if (platform.value) {
      next.set("platform", platform.value);
    }
    if (dist.value) {
      next.set("dist", dist.value);
    }
    var s = next.toString();
    try {
      window.history.replaceState(null, "", s ? "?" + s : window.location.pathname);
    } catch (e) {
      // Some browsers refuse it on file://; the filter works without it.
    }
  }

  form.addEventListener("input", function () {
    apply();
    remember();
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    apply();
    remember();
  });
  apply();
})();
