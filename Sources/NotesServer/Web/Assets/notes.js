// Notes web app: progressive enhancement only. Every page works without this file.
// Live preview: while typing in the editor, ask the server to render the draft (same safe
// renderer and link rewriting as saved notes) and show it beside the text. The HTML comes from
// our own server's safe renderer and is shown in a sandboxed container with the page's strict CSP.
// The note's path goes along (a new note's as typed), so relative images resolve from its folder.
(function () {
  "use strict";
  var editor = document.querySelector("textarea[data-preview-url]");
  var preview = document.getElementById("preview");
  if (editor && preview) {
    var form = editor.form;
    var token = form ? form.querySelector("input[name=csrf]") : null;
    var pathField = form ? form.querySelector("input[name=path]") : null;
    var timer = null;
    var sequence = 0;
    var render = function () {
      var mine = ++sequence;
      var body = new URLSearchParams();
      body.set("content", editor.value);
      body.set("path", pathField ? pathField.value : (editor.getAttribute("data-note-path") || ""));
      if (token) body.set("csrf", token.value);
      fetch(editor.getAttribute("data-preview-url"), {
        method: "POST", credentials: "same-origin", body: body,
        headers: { "Content-Type": "application/x-www-form-urlencoded" }
      }).then(function (response) {
        // A redirect means the session ended (to the sign-in page): keep the last preview.
        return response.ok && !response.redirected ? response.text() : null;
      }).then(function (html) {
        if (html === null || mine !== sequence) return;
        var parsed = new DOMParser().parseFromString(html, "text/html");
        preview.replaceChildren.apply(preview, Array.prototype.slice.call(parsed.body.childNodes));
        // Math and code, as on the note's page (notes-render.js, loaded on the editor's pages).
        if (window.NotesRender) window.NotesRender.typeset(preview);
      }).catch(function () { /* offline: the preview just stops updating */ });
    };
    preview.hidden = false;
    var container = editor.closest(".editor");
    if (container) container.classList.add("with-preview");
    var later = function () {
      clearTimeout(timer);
      timer = setTimeout(render, 250);
    };
    editor.addEventListener("input", later);
    if (pathField) pathField.addEventListener("input", later);
    render();
  }
})();

// Copy buttons (`data-copy="INPUT-ID"`): hidden until this script shows them, since without it
// the field itself is selectable and copyable.
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      field.select();
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
      } else {
        document.execCommand("copy");
        done();
      }
    });
  });
})();

// Task checkboxes of a rendered note (they belong to the form `note-tasks`, after the page's
// head): a click saves at once by submitting that form, which carries the revision the page
// shows and the CSRF token, and the page comes back scrolled where it was. Without this script
// the form's own button saves what was ticked.
(function () {
  "use strict";
  var form = document.getElementById("note-tasks");
  if (!form) return;
  var key = "notes-task-scroll";
  try {
    var saved = JSON.parse(sessionStorage.getItem(key) || "null");
    sessionStorage.removeItem(key);
    if (saved && saved[0] === location.pathname) window.scrollTo(0, saved[1]);
  } catch (ignored) { /* no session storage: the page starts at the top */ }
  form.hidden = true;
  Array.prototype.forEach.call(form.elements, function (box) {
    if (box.type !== "checkbox") return;
    box.addEventListener("change", function () {
      try {
        sessionStorage.setItem(key, JSON.stringify([location.pathname, window.scrollY]));
      } catch (ignored) { /* the page starts at the top */ }
      form.classList.add("saving");
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
  });
})();
