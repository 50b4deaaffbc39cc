// reverie review page: the only script, loaded from 'self' (the CSP forbids inline code).
// Progressive enhancement only: every form works without it.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // The scope picker opens the chosen scope as soon as it changes.
  document.querySelectorAll("select.autosubmit").forEach(function (select) {
    select.addEventListener("change", function () {
      if (select.form) { select.form.submit(); }
    });
  });
  // Forget and dismiss cannot be undone from this page: ask first.
  document.querySelectorAll("form.confirm").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      var label = form.querySelector("button");
      var verb = label ? label.textContent : "do this";
      if (!window.confirm("Really " + verb + "? The reason is kept in the history.")) {
        event.preventDefault();
      }
    });
  });
});
