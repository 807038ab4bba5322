extension NotesStylesheet {
    /// What the default flavour writes into a note, styled: the properties list, callouts (a
    /// colour and an icon per kind), task lists, highlights, tags, footnotes, tables, math,
    /// labelled Mermaid blocks and highlight.js's tokens, light and dark. Shared by every
    /// rendered page (`css`) and the web app's stylesheet, so a note looks the same in each;
    /// it uses only the variables both define (`--text`, `--muted`, `--rule`, `--code-bg`) and
    /// its own.
    public static let noteContent = """
        :root { --highlight: #fff3a3; --tag: 47 111 94;
          --hl-keyword: #cf222e; --hl-string: #0a3069; --hl-number: #0550ae; --hl-title: #8250df;
          --hl-comment: #6e7781; --hl-type: #953800; }
        @media (prefers-color-scheme: dark) {
          :root { --highlight: #5c4d00; --tag: 108 195 168;
            --hl-keyword: #ff7b72; --hl-string: #a5d6ff; --hl-number: #79c0ff; --hl-title: #d2a8ff;
            --hl-comment: #8b949e; --hl-type: #ffa657; }
        }
        mark { background: var(--highlight); color: inherit; border-radius: 3px; padding: 0 0.1em; }
        del { color: var(--muted); }
        .properties { display: grid; grid-template-columns: minmax(5rem, max-content) minmax(0, 1fr); gap: 0.2rem 1rem;
          margin: 0 0 1.5rem; padding: 0.6rem 0.9rem; border: 1px solid var(--rule); border-radius: 8px; font-size: 0.9em; }
        .properties dt { color: var(--muted); font-weight: 600; overflow-wrap: anywhere; }
        .properties dd { margin: 0; overflow-wrap: anywhere; }
        .tag { display: inline-block; padding: 0 0.5em; border-radius: 999px; background: rgb(var(--tag) / 14%);
          color: rgb(var(--tag)); font-size: 0.88em; line-height: 1.6; text-decoration: none; white-space: nowrap; }
        a.tag:hover { background: rgb(var(--tag) / 24%); }
        table { border-collapse: collapse; display: block; max-width: 100%; overflow-x: auto; margin: 1em 0; }
        th, td { border: 1px solid var(--rule); padding: 0.35em 0.7em; }
        th { background: var(--code-bg); font-weight: 600; }
        tbody tr:nth-child(even) { background: color-mix(in srgb, var(--code-bg) 55%, transparent); }
        li:has(> input[type="checkbox"]), li:has(> p:first-child > input[type="checkbox"]) { list-style: none; }
        li > input[type="checkbox"], li > p:first-child > input[type="checkbox"] { margin: 0 0.5em 0 -1.4em; vertical-align: -0.1em; }
        input.task { cursor: pointer; }
        .footnotes { margin-top: 2.5em; padding-top: 0.5em; border-top: 1px solid var(--rule); color: var(--muted); font-size: 0.9em; }
        .footnotes ol { padding-left: 1.4em; }
        sup.footnote-ref, .footnote-ref { font-size: 0.75em; line-height: 0; }
        .footnote-ref a, a.footnote-backref { text-decoration: none; }
        .math-display { display: block; margin: 1em 0; overflow-x: auto; overflow-y: hidden; text-align: center; }
        .math-display .katex-display { margin: 0; }
        figure.mermaid { margin: 1em 0; }
        figure.mermaid figcaption { color: var(--muted); font-size: 0.8em; margin-bottom: 0.3em; }
        .hljs-keyword, .hljs-selector-tag, .hljs-literal, .hljs-doctag, .hljs-meta-keyword { color: var(--hl-keyword); }
        .hljs-string, .hljs-regexp, .hljs-addition, .hljs-template-tag, .hljs-meta-string { color: var(--hl-string); }
        .hljs-number, .hljs-attr, .hljs-attribute, .hljs-variable, .hljs-template-variable, .hljs-symbol, .hljs-bullet,
          .hljs-selector-attr, .hljs-selector-pseudo, .hljs-link { color: var(--hl-number); }
        .hljs-title, .hljs-section, .hljs-name, .hljs-selector-id, .hljs-selector-class { color: var(--hl-title); }
        .hljs-built_in, .hljs-type, .hljs-class .hljs-title, .hljs-params { color: var(--hl-type); }
        .hljs-comment, .hljs-quote, .hljs-meta, .hljs-deletion { color: var(--hl-comment); }
        .hljs-comment, .hljs-quote { font-style: italic; }
        .hljs-emphasis { font-style: italic; } .hljs-strong { font-weight: 600; }
        .callout { --callout: 8 109 221; --callout-icon: \(CalloutIcon.pencil); margin: 1em 0; padding: 0.65em 0.9em;
          border: 1px solid rgb(var(--callout) / 30%); border-left: 4px solid rgb(var(--callout)); border-radius: 8px;
          background: rgb(var(--callout) / 8%); color: var(--text); }
        .callout-title { display: flex; align-items: baseline; gap: 0.45em; font-weight: 600; color: rgb(var(--callout)); }
        .callout-title::before { content: ""; flex: none; align-self: center; width: 1.1em; height: 1.1em; background: currentColor;
          -webkit-mask: var(--callout-icon) center / contain no-repeat; mask: var(--callout-icon) center / contain no-repeat; }
        @media (prefers-color-scheme: dark) { .callout-title { color: color-mix(in srgb, rgb(var(--callout)) 65%, white); } }
        .callout-content { margin-top: 0.4em; }
        .callout-content > :first-child { margin-top: 0; }
        .callout-content > :last-child { margin-bottom: 0; }
        details.callout > summary { cursor: pointer; list-style: none; }
        details.callout > summary::-webkit-details-marker { display: none; }
        details.callout > summary::after { content: "›"; margin-left: auto; font-size: 1.2em; line-height: 1; transition: transform 0.15s; }
        details.callout[open] > summary::after { transform: rotate(90deg); }
        .callout[data-callout="abstract"] { --callout: 0 150 170; --callout-icon: \(CalloutIcon.clipboard); }
        .callout[data-callout="info"] { --callout: 8 109 221; --callout-icon: \(CalloutIcon.info); }
        .callout[data-callout="todo"] { --callout: 8 109 221; --callout-icon: \(CalloutIcon.checkCircle); }
        .callout[data-callout="tip"] { --callout: 0 150 170; --callout-icon: \(CalloutIcon.flame); }
        .callout[data-callout="success"] { --callout: 8 150 70; --callout-icon: \(CalloutIcon.check); }
        .callout[data-callout="question"] { --callout: 210 105 0; --callout-icon: \(CalloutIcon.question); }
        .callout[data-callout="warning"] { --callout: 210 105 0; --callout-icon: \(CalloutIcon.warning); }
        .callout[data-callout="failure"] { --callout: 220 45 65; --callout-icon: \(CalloutIcon.cross); }
        .callout[data-callout="danger"] { --callout: 220 45 65; --callout-icon: \(CalloutIcon.bolt); }
        .callout[data-callout="bug"] { --callout: 220 45 65; --callout-icon: \(CalloutIcon.bug); }
        .callout[data-callout="example"] { --callout: 120 82 238; --callout-icon: \(CalloutIcon.list); }
        .callout[data-callout="quote"] { --callout: 130 130 130; --callout-icon: \(CalloutIcon.quote); }

        """
}

/// The callouts' icons: small line drawings as SVG `data:` URLs, used as masks painted in the
/// callout's colour (so one drawing serves light and dark).
private enum CalloutIcon {
    static func svg(_ paths: String) -> String {
        "url(\"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16' fill='none' stroke='black' "
            + "stroke-width='1.5' stroke-linecap='round' stroke-linejoin='round'%3E\(paths)%3C/svg%3E\")"
    }

    static let pencil = svg("%3Cpath d='M11 2.5l2.5 2.5L6 12.5l-3.2.7.7-3.2z'/%3E%3Cpath d='M9.5 4l2.5 2.5'/%3E")
    static let clipboard = svg("%3Crect x='3' y='2.5' width='10' height='12' rx='1.5'/%3E%3Cpath d='M6 2.5v1.5h4V2.5M5.5 7.5h5M5.5 10.5h5'/%3E")
    static let info = svg("%3Ccircle cx='8' cy='8' r='6.2'/%3E%3Cpath d='M8 7.3v4M8 4.8v.1'/%3E")
    static let checkCircle = svg("%3Ccircle cx='8' cy='8' r='6.2'/%3E%3Cpath d='M5.3 8.2l1.9 1.9 3.6-3.8'/%3E")
    static let flame = svg("%3Cpath d='M8 14.5c-2.6 0-4.3-1.8-4.3-4.2 0-2.6 2.3-3.9 2.6-7 1.8 1.1 2.6 2.7 2.6 4.2.7-.4 1.1-1.1 1.2-1.9 1.3 1.2 2.2 2.7 2.2 4.7 0 2.4-1.7 4.2-4.3 4.2z'/%3E")
    static let check = svg("%3Cpath d='M2.8 8.6l3.3 3.3 7.1-7.4'/%3E")
    static let question = svg("%3Ccircle cx='8' cy='8' r='6.2'/%3E%3Cpath d='M6.2 6.2a1.9 1.9 0 1 1 2.6 1.8c-.5.2-.8.6-.8 1.1v.6M8 11.6v.1'/%3E")
    static let warning = svg("%3Cpath d='M8 2.2l6.3 11.3H1.7z'/%3E%3Cpath d='M8 6.5v3.3M8 11.7v.1'/%3E")
    static let cross = svg("%3Cpath d='M3.5 3.5l9 9M12.5 3.5l-9 9'/%3E")
    static let bolt = svg("%3Cpath d='M9.2 1.8L3.6 9h4.1l-1 5.2L12.4 7H8.3z'/%3E")
    static let bug = svg("%3Crect x='4.8' y='5' width='6.4' height='8.6' rx='3.2'/%3E%3Cpath d='M6 5a2 2 0 0 1 4 0M8 8v5.6M4.8 8.5H2.3M13.7 8.5h-2.5M4.9 11.5l-2.2 1.4M11.1 11.5l2.2 1.4M5 6.4L3 5M11 6.4L13 5'/%3E")
    static let list = svg("%3Cpath d='M5.8 4h7.4M5.8 8h7.4M5.8 12h7.4M2.8 4v.1M2.8 8v.1M2.8 12v.1'/%3E")
    static let quote = svg("%3Cpath d='M3 9.5h3.2v3.5H3zM3 9.5c0-2.8 1-4.3 3-5M9.8 9.5H13v3.5H9.8zM9.8 9.5c0-2.8 1-4.3 3-5'/%3E")
}
