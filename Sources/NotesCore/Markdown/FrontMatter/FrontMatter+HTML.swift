extension FrontMatter {
    /// The HTML shown at the top of the page: the other keys as a compact properties list, or,
    /// for YAML that could not be read, the block itself as code. Every piece of note text is
    /// escaped; nil when there is nothing to show.
    public var html: String? {
        if error != nil {
            return "<pre class=\"front-matter-invalid\"><code class=\"language-yaml\">\(HTMLEscaping.escape(source))</code></pre>\n"
        }
        guard !properties.isEmpty else { return nil }
        var html = "<dl class=\"properties\">\n"
        for property in properties {
            html += "<dt>\(HTMLEscaping.escape(property.key))</dt><dd>\(HTMLEscaping.escape(property.value.displayText))</dd>\n"
        }
        return html + "</dl>\n"
    }

    /// What export reports for this block, when the YAML could not be read.
    public var warning: String? {
        error.map { "front matter is not valid YAML (\($0)): shown as code" }
    }
}
