// Notes: typesets what the renderer marks for the browser, with the libraries the page loaded
// before this script (each only when the page has something for it). Without JavaScript, or
// without a library, the page still reads: math as its TeX source, code unhighlighted.
//  - `<span class="math math-inline|math-display">TeX</span>`: KaTeX, without `trust` (no
//    \href, \url, \includegraphics or HTML extensions), errors shown in place, expansion bounded.
//  - `<pre><code class="language-NAME">`: highlight.js, for the languages it knows; Mermaid
//    stays a labelled code block.
// `NotesRender.typeset(element)` does the same for content added later (the editor's preview).
(function () {
  "use strict";
  var katexOptions = {
    throwOnError: false, trust: false, strict: "ignore", maxExpand: 1000, maxSize: 20
  };
  var typesetMath = function (root) {
    if (!window.katex) return;
    root.querySelectorAll("span.math").forEach(function (span) {
      if (span.hasAttribute("data-typeset")) return;
      var tex = span.textContent;
      var options = Object.assign({ displayMode: span.classList.contains("math-display") }, katexOptions);
      try {
        window.katex.render(tex, span, options);
        span.setAttribute("data-typeset", "");
      } catch (error) {
        // Only a bug in KaTeX gets here (`throwOnError` is off): keep the source readable.
        span.textContent = tex;
      }
    });
  };
  var highlightCode = function (root) {
    var hljs = window.hljs;
    if (!hljs) return;
    root.querySelectorAll("pre code[class*=language-]").forEach(function (code) {
      var match = /(?:^|\s)language-([^\s]+)/.exec(code.className);
      if (!match || match[1] === "mermaid" || code.classList.contains("hljs") || !hljs.getLanguage(match[1])) return;
      hljs.highlightBlock(code);
    });
  };
  var typeset = function (root) {
    typesetMath(root);
    highlightCode(root);
  };
  window.NotesRender = { typeset: typeset };
  typeset(document);
})();
