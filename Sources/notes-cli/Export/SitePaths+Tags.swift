extension SitePaths {
    /// The folder of the tag pages.
    static let tagFolder = "tags"
    /// Where the index page lists every tag.
    static let tagsAnchor = "tag-list"

    /// The page of `tag` (without `#`): `tags/NAME.html`, a nested tag's parts as folders
    /// (`project/alpha` → `tags/project/alpha.html`). Letter case is ignored, as Obsidian
    /// ignores it, so `#Idea` and `#idea` share a page. A tag from front matter can hold any
    /// text: every character but letters, digits, marks, `_` and `-` is written `%XX`, so no
    /// part is empty, `.` or `..`, and no page lands outside the folder.
    static func tagPage(for tag: String) -> String {
        var parts = tag.lowercased().split(separator: "/").map(tagFileName)
        if parts.isEmpty { parts = [tagFileName(Substring(tag))] }
        return tagFolder + "/" + parts.joined(separator: "/") + ".html"
    }

    private static let hexDigits = Array("0123456789ABCDEF")

    private static func tagFileName(_ part: Substring) -> String {
        var name = ""
        for character in part {
            if character.isLetter || character.isNumber || character == "_" || character == "-" {
                name.append(character)
            } else {
                // Every byte, `.` and `~` included (which `percentEncode` keeps): no part can be `..`.
                for byte in String(character).utf8 {
                    name += "%"
                    name.append(hexDigits[Int(byte >> 4)])
                    name.append(hexDigits[Int(byte & 0x0F)])
                }
            }
        }
        return name
    }
}
