// auditor report: a link into a folded game (or a folded group of findings) opens it (the browser
// would scroll to a hidden element), the buttons open or fold every game, and the findings' filter
// shows all of them or one severity. The page works without it.
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
    // the findings' filter: all, or one severity, in the table and in the games' rulings
    var filter = document.querySelector("p.filter");
    if (filter) {
      filter.hidden = false;
      var shows = filter.querySelectorAll("button[data-show]");
      for (var k = 0; k < shows.length; k++) {
        shows[k].addEventListener("click", function (ev) {
          var want = ev.currentTarget.getAttribute("data-show");
          for (var m = 0; m < shows.length; m++) {
            shows[m].setAttribute("aria-pressed", String(shows[m] === ev.currentTarget));
          }
          var items = document.querySelectorAll("details.code-group, article.ruling[data-severity]");
          for (var n = 0; n < items.length; n++) {
            items[n].hidden = want !== "all" && items[n].getAttribute("data-severity") !== want;
          }
        });
      }
    }
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
