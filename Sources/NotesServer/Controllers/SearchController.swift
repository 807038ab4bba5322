import Foundation

/// `/v1/search`: full-text search over the caller's live notes.
struct SearchController: Sendable {
    let store: NoteStore

    func register(in router: inout Router) {
        router.add("GET", "/v1/search", access: .read) { context in
            let user = try context.caller().userID
            guard let query = context.request.query["q"], !query.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw HTTPError.badRequest("Give the words to search for as q.", code: "invalid_parameter")
            }
            guard query.utf8.count <= 1000 else { throw HTTPError.badRequest("The query is too long.", code: "invalid_parameter") }
            let limit = try context.intQuery("limit", default: 20, range: 1...100)
            return .now(.wire(try store.searchWithTagFilters(userID: user, query: query, limit: limit)))
        }
    }
}
