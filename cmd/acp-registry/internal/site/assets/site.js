// The catalog's one script. On every page: the copy buttons beside
// commands. On index.html: search, filters and sort. index.html?q=TERM
// (and &platform=, &dist=, &status=, &sort=) applies them on load, so
// other sites can link to a search; cards that do not match get the
// hidden attribute, and the others are ordered: id or name equal to the
// search, then starting with it, then containing it, then matching only
// in the description; within each, by the sort chosen.
"use strict";
(function () {
  // --- copy buttons -------------------------------------------------------
  // Each button copies the <code> beside it. Where the clipboard is
  // refused (a page from http:// on another host), the command is
  // selected instead, for Ctrl+C.
  function select(code) {
    var range = document.createRange();
    range.selectNodeContents(code);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  function copied(button, word) {
    button.textContent = word;
    window.setTimeout(function () {
      button.textContent = "Copy";
    }, 2000);
  }
  var buttons = document.querySelectorAll("button.copy");
  for (var b = 0; b < buttons.length; b++) {
    buttons[b].hidden = false;
    buttons[b].addEventListener("click", function (e) {
      var button = e.currentTarget;
      var code = button.parentNode.querySelector("code");
      var text = code.textContent;
      if (!navigator.clipboard || !navigator.clipboard.writeText) {
        select(code);
        copied(button, "Selected");
        return;
      }
      navigator.clipboard.writeText(text).then(function () {
        copied(button, "Copied");
      }, function () {
        select(code);
        copied(button, "Selected");
      });
    });
  }

  // --- search, filters, sort ---------------------------------------------
  var form = document.getElementById("filters");
  if (!form) {
    return;
  }
  var q = form.elements.q;
  var platform = form.elements.platform;
  var dist = form.elements.dist;
  var status = form.elements.status; // only with a protocol matrix
  var sort = form.elements.sort;
  var list = document.querySelector(".cards");
  var cards = Array.prototype.slice.call(list.children); // in name order
  var count = document.getElementById("count");
  var none = document.getElementById("none");
  var universal = ["npx", "uvx"]; // node and python run everywhere

  function choose(select, value) {
    if (!select) {
      return;
    }
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
  choose(status, params.get("status") || "");
  choose(sort, params.get("sort") || "");

  // data-search holds the id, name and description, lowercased: reading
  // an attribute is cheap, while reading the text of three elements of
  // each of 5,000 cards takes the better part of a second.
  function matches(card, terms, p, d, s) {
    var text = card.getAttribute("data-search");
    for (var i = 0; i < terms.length; i++) {
      if (text.indexOf(terms[i]) < 0) {
        return false;
      }
    }
    if (s && card.getAttribute("data-status") !== s) {
      return false;
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

  // rank: 0 the id or name is the search, 1 starts with it, 2 holds every
  // word of it, 3 only the description does.
  function rank(card, whole, terms) {
    var id = card.getAttribute("data-agent-id");
    var name = card.getAttribute("data-name");
    if (id === whole || name === whole) {
      return 0;
    }
    if (id.indexOf(whole) === 0 || name.indexOf(whole) === 0) {
      return 1;
    }
    for (var i = 0; i < terms.length; i++) {
      if (id.indexOf(terms[i]) < 0 && name.indexOf(terms[i]) < 0) {
        return 3;
      }
    }
    return 2;
  }

  function apply() {
    var terms = q.value.toLowerCase().split(/\s+/).filter(Boolean);
    var whole = terms.join(" ");
    var s = status ? status.value : "";
    var by = sort.value;
    var shown = [];
    for (var i = 0; i < cards.length; i++) {
      var card = cards[i];
      var ok = matches(card, terms, platform.value, dist.value, s);
      if (card.hidden === ok) {
        card.hidden = !ok; // only on change: each change costs a style pass
      }
      if (ok) {
        shown.push({ card: card, pos: i, rank: terms.length ? rank(card, whole, terms) : 0,
          key: by === "id" ? card.getAttribute("data-agent-id") : by === "updated" ? card.getAttribute("data-updated") || "" : "" });
      }
    }
    shown.sort(function (a, b) {
      if (a.rank !== b.rank) {
        return a.rank - b.rank;
      }
      if (a.key !== b.key) {
        // Newest first; ids A to Z.
        return (by === "updated" ? a.key < b.key : a.key > b.key) ? 1 : -1;
      }
      return a.pos - b.pos;
    });
    // Move only the shown cards that are out of place, and leave hidden
    // cards wherever they are: a search usually lifts a few cards to the
    // top, and moving thousands would restyle them all.
    var cursor = list.firstElementChild;
    for (var k = 0; k < shown.length; k++) {
      while (cursor && cursor.hidden) {
        cursor = cursor.nextElementSibling;
      }
      if (shown[k].card === cursor) {
        cursor = cursor.nextElementSibling;
      } else {
        list.insertBefore(shown[k].card, cursor);
      }
    }
    count.textContent = shown.length === cards.length ? cards.length + " agents" : shown.length + " of " + cards.length + " agents";
    none.hidden = shown.length !== 0;
  }

  function remember() {
    var next = new URLSearchParams();
    var fields = [["q", q], ["platform", platform], ["dist", dist], ["status", status], ["sort", sort]];
    for (var i = 0; i < fields.length; i++) {
      if (fields[i][1] && fields[i][1].value) {
        next.set(fields[i][0], fields[i][1].value);
      }
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
