/// The one stylesheet of rendered pages: readable on a phone (fluid width, no horizontal scroll
/// except inside code), comfortable on a desktop (a measure of about 70 characters), dark when
/// the system is, and clean on paper (no navigation, black on white, link targets printed).
public enum NotesStylesheet {
    /// The CSS text, ending in a newline: the page, then what a note's content needs (`noteContent`).
    public static let css = page + noteContent

    /// The page around a note: type, measure, colours, code, quotes, print.
    static let page = """
        :root { color-scheme: light dark; --text: #1f2328; --muted: #59636e; --bg: #ffffff;
          --code-bg: #f6f8fa; --rule: #d1d9e0; --link: #0550ae; }
        @media (prefers-color-scheme: dark) {
          :root { --text: #e6edf3; --muted: #9198a1; --bg: #0d1117; --code-bg: #161b22;
            --rule: #3d444d; --link: #4493f8; }
        }
        *, *::before, *::after { box-sizing: border-box; }
        html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
        body { margin: 0 auto; max-width: 46rem; padding: 1rem 1.25rem 3rem;
          font: 1.0625rem/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--text); background: var(--bg); overflow-wrap: break-word; }
        nav { font-size: 0.9rem; margin-bottom: 1.5rem; }
        a { color: var(--link); }
        h1, h2, h3, h4, h5, h6 { line-height: 1.25; margin: 1.6em 0 0.6em; }
        h1 { font-size: 1.9rem; } h2 { font-size: 1.5rem; } h3 { font-size: 1.2rem; }
        main > :first-child { margin-top: 0; }
        img, video { max-width: 100%; height: auto; }
        code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
        code { background: var(--code-bg); padding: 0.1em 0.3em; border-radius: 4px; }
        pre { background: var(--code-bg); padding: 0.8rem 1rem; border-radius: 6px; overflow-x: auto; }
        pre code { background: none; padding: 0; }
        blockquote { margin: 1em 0; padding: 0 1em; color: var(--muted); border-left: 0.25em solid var(--rule); }
        hr { border: 0; border-top: 1px solid var(--rule); margin: 2em 0; }
        .notes-index ul { padding-left: 1.2em; }
        .notes-index .file { color: var(--muted); font-size: 0.85em; }
        @media print {
          :root { --text: #000; --muted: #333; --bg: #fff; --code-bg: #f3f3f3; --link: #000; }
          body { max-width: none; padding: 0; font-size: 11pt; }
          nav { display: none; }
          pre { white-space: pre-wrap; overflow: visible; }
          pre, blockquote, img, table { break-inside: avoid; }
          h1, h2, h3, h4 { break-after: avoid; }
          main a[href^="http"]::after { content: " (" attr(href) ")"; font-size: 0.85em; }
        }

        """
}
