// auditor report: a link into a folded game opens the game (the browser would scroll to
// a hidden element), and the buttons open or fold every game. The page works without it.
(function () {
  "use strict";
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") { p.open = true; }
    }
    if (el) { el.scrollIntoView(); }
  }
  window.addEventListener("hashchange", reveal);
  document.addEventListener("DOMContentLoaded", function () {
    if (location.hash) { reveal(); }
    var buttons = document.querySelectorAll("button[data-toggle]");
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].addEventListener("click", function (ev) {
        var open = ev.currentTarget.getAttribute("data-toggle") === "open";
        var games = document.querySelectorAll("details.game");
        for (var j = 0; j < games.length; j++) { games[j].open = open; }
      });
    }
  });
})();
