import NotesCore

/// `/s/<space id>/members`: a shared space's members. Every member sees the list; the owner adds
/// members by username with a role, changes roles and removes members; any other member can
/// leave. `SpaceStore` decides each change through `SpaceAccess` inside its own transaction, so
/// the owner's actions are refused server-side too: 403 for a member who is not the owner, the
/// one 404 page for anyone else (docs/architecture.md §6.5).
struct SpacePages: Sendable {
    let services: WebServices

    func register(in app: inout WebApp) {
        app.add("GET", "/s/:space/members") { context in .now(try members(context)) }
        app.add("POST", "/s/:space/members/add") { context in
            .now(try change(context, done: "added") { account, space in
                _ = try services.spaces.add(account: account, space: space, username: try Self.username(context), role: try Self.role(context))
            })
        }
        app.add("POST", "/s/:space/members/role") { context in
            .now(try change(context, done: "changed") { account, space in
                _ = try services.spaces.setRole(account: account, space: space, username: try Self.username(context), role: try Self.role(context))
            })
        }
        app.add("POST", "/s/:space/members/remove") { context in
            .now(try change(context, done: "removed") { account, space in
                try services.spaces.remove(account: account, space: space, username: try Self.username(context))
            })
        }
        app.add("POST", "/s/:space/leave") { context in
            let session = try context.signedIn()
            try services.spaces.leave(account: session.userID, space: try Self.spaceID(context))
            return .now(WebResponse.redirect(WebPath("/").query([("done", "left")])))
        }
    }

    private static func spaceID(_ context: WebContext) throws(HTTPError) -> Int64 {
        guard let raw = context.parameters["space"], let id = Int64(raw), id > 0 else { throw WebSpace.notFound }
        return id
    }

    private static func username(_ context: WebContext) throws(HTTPError) -> String {
        let name = (context.form["username"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.utf8.count <= 256 else { throw HTTPError.badRequest("Type the username of the account to add.") }
        return name
    }

    private static func role(_ context: WebContext) throws(HTTPError) -> SpaceRole {
        guard let raw = context.form["role"], let role = SpaceRole(rawValue: raw), role != .owner else {
            throw HTTPError.badRequest("Choose editor or viewer.")
        }
        return role
    }

    /// Runs the owner's change `body`; a refusal the owner can act on (no such account, already a
    /// member) comes back on the members page, anything else (403, the 404) as its error page.
    private func change(_ context: WebContext, done: String, _ body: (Int64, Int64) throws -> Void) throws -> HTTPResponse {
        let session = try context.signedIn()
        let space = try Self.spaceID(context)
        do {
            try body(session.userID, space)
        } catch let refusal as SpaceError {
            switch refusal {
            case .noSuchUser, .alreadyMember, .notMember, .ownerMustTransfer: return try members(context, error: refusal.httpError)
            default: throw refusal
            }
        }
        return WebResponse.redirect(WebSpace.base(of: space).appending("members").query([("done", done)]))
    }

    private func members(_ context: WebContext, error: HTTPError? = nil) throws -> HTTPResponse {
        let session = try context.signedIn()
        let spaceID = try Self.spaceID(context)
        let resource = try services.spaces.space(spaceID, account: session.userID)
        let members = try services.spaces.members(account: session.userID, space: spaceID)
        var context = context
        let space = WebSpace(resource)
        context.space = space
        let token = context.csrfToken
        let owns = space.role == .owner
        let notice = error.map { WebFormat.notice($0.message, error: true) } ?? Self.notice(done: context.request.query["done"])
        let items = members.map { member -> HTML in
            let you: HTML = member.username == session.username ? " <span class=\"muted small\">(you)</span>" : .empty
            guard owns, member.role != .owner else {
                return "<li><span><span class=\"title\">\(name: member.username)</span>\(you)</span><span class=\"muted small member-role\">\(member.role.rawValue)</span></li>"
            }
            return """
                <li><span><span class="title">\(name: member.username)</span></span><span class="actions">\
                <form action="\(space.membersPage.appending("role"))" method="post">\(WebFormat.csrfField(token))\
                <input type="hidden" name="username" value="\(member.username)">\
                <label class="visually-hidden" for="role-\(member.username)">Role of \(member.username)</label>\
                \(Self.roleSelect(id: "role-" + member.username, selected: member.role))\
                <button type="submit" class="secondary">Change role</button></form>\
                <form action="\(space.membersPage.appending("remove"))" method="post">\(WebFormat.csrfField(token))\
                <input type="hidden" name="username" value="\(member.username)">\
                <button type="submit" class="danger" aria-label="Remove \(member.username)">Remove</button></form></span></li>
                """
        }
        let manage: HTML = owns ? """
            <section class="card" aria-labelledby="add-heading">
            <h2 id="add-heading">Add a member</h2>
            <form action="\(space.membersPage.appending("add"))" method="post">\(WebFormat.csrfField(token))
            <label for="member-username">Username</label>
            <input type="text" id="member-username" name="username" required autocomplete="off" autocapitalize="none" spellcheck="false">
            <label for="member-role">Role</label>
            \(Self.roleSelect(id: "member-role", selected: .editor))
            <p class="hint">An editor reads, writes, deletes, restores and publishes; a viewer only reads.</p>
            <div class="form-actions"><button type="submit">Add member</button></div>
            </form>
            </section>
            """ : """
            <section class="card" aria-labelledby="leave-heading">
            <h2 id="leave-heading">Leave this space</h2>
            <p class="muted small">Only the owner manages members. Leaving ends your access; the owner can add you again.</p>
            <form action="\(space.base.appending("leave"))" method="post">\(WebFormat.csrfField(token))\
            <div class="form-actions"><button type="submit" class="danger">Leave \(space.name)</button></div></form>
            </section>
            """
        return WebResponse.page(context.layout("Members of " + space.name), """
            \(notice)
            <div class="page-head"><h1>Members of \(space.name)</h1></div>
            <div class="grid halves">
            <section class="card" aria-labelledby="members-heading">
            <h2 id="members-heading">Members</h2>
            <ul class="list members">\(items)</ul>
            </section>
            \(manage)
            </div>
            """, status: error?.status ?? 200)
    }

    private static func notice(done: String?) -> HTML {
        switch done {
        case "added": WebFormat.notice("Added.")
        case "changed": WebFormat.notice("The role was changed.")
        case "removed": WebFormat.notice("Removed.")
        default: .empty
        }
    }

    private static func roleSelect(id: String, selected: SpaceRole) -> HTML {
        let options = [SpaceRole.editor, .viewer].map { role -> HTML in
            "<option value=\"\(role.rawValue)\"\(role == selected ? " selected" as HTML : .empty)>\(role.rawValue)</option>"
        }
        return "<select id=\"\(id)\" name=\"role\">\(options)</select>"
    }
}
