extension MarkdownPreflight.Refusal {
    /// What a refused note renders as: the notice, then the note's own text, escaped, in a `<pre>`.
    ///
    /// The text is everything the note holds, so nothing is hidden from its reader; being escaped
    /// it can never become markup (`<script>` stays text), and invalid UTF-8 and NUL become
    /// U+FFFD as they would in a rendering. Building it is one linear pass.
    public func html(showing markdown: UnsafeBufferPointer<UInt8>) -> String {
        var text = String(decoding: markdown, as: UTF8.self)
        if markdown.contains(0) {
            text = String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
        }
        var html = ""
        html.reserveCapacity(markdown.count + 256)
        html += "<p class=\"notes-unrendered\" role=\"note\">\(HTMLEscaping.escape(message))</p>\n"
        html += "<pre class=\"notes-unrendered-text\">"
        html += HTMLEscaping.escape(text)
        html += "</pre>\n"
        return html
    }
}
