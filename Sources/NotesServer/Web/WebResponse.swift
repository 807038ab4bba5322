/// The answers pages give: an HTML page, a redirect after a successful form, an error page.
enum WebResponse {
    /// A page with `status`, never cached (it shows the user's notes or forms with tokens).
    static func page(_ layout: WebLayout, _ content: HTML, status: Int = 200) -> HTTPResponse {
        var response = HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"],
                                    body: Array(layout.render(content).description.utf8))
        WebSecurity.secure(&response)
        return response
    }

    /// 303 See Other to `path`: the browser follows with a GET, so a reload never re-posts.
    static func redirect(_ path: WebPath) -> HTTPResponse {
        var response = HTTPResponse(status: 303, headers: ["Location": path.value])
        WebSecurity.secure(&response)
        return response
    }

    /// An error as a page a person can read, with a way back.
    static func error(_ error: HTTPError, viewer: WebLayout.Viewer?) -> HTTPResponse {
        let heading: String = switch error.status {
        case 404: "Not found"
        case 403: "Not allowed"
        case 413: "Too large"
        case 429: "Too many requests"
        case 400..<500: "Something is wrong with that request"
        default: "Something went wrong"
        }
        let layout = WebLayout(title: heading, viewer: viewer)
        var response = page(layout, """
            <div class="narrow card">
            <h1>\(heading)</h1>
            <p>\(error.message)</p>
            <p><a href="/">Back to your notes</a></p>
            </div>
            """, status: error.status)
        for (name, value) in error.headers where name.lowercased() != "www-authenticate" {
            response.headers[name] = value
        }
        return response
    }
}
