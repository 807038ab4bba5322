import NotesCore

/// The routes of one space's notes: everything `/v1/notes…` and its siblings do for the caller's
/// personal space, also under `/v1/spaces/{space}/…` for any space the caller is a member of
/// (docs/architecture.md §6.5).
///
/// The copies run the same handlers. What differs is decided before a handler runs, in one
/// place: `Route.caller(of:parameters:authenticator:spaces:)` asks `SpaceAccess` for the
/// caller's grant (404 without one), refuses a viewer on a route that writes, and hands the
/// handler the caller acting in the space, whose `userID` is the space's: so notes, attachments,
/// uploads, the batch, the feed and its long poll, search, history, trash, restore, purge and
/// publications all work on the space's notes and never on anyone else's.
extension Router {
    /// Adds, for every route registered so far on one space's notes (`SpacePaths.isScoped`), the
    /// same route under `/v1/spaces/:space`. Call after those routes are registered.
    mutating func addSpaceRoutes(_ access: SpaceAccess) {
        spaces = access
        for route in routes.routes where !route.inSpace {
            let path = route.pattern.description
            guard SpacePaths.isScoped(path) else { continue }
            let pattern = SpacePaths.pattern(path)
            var copy = Route(method: route.method, pattern: RoutePattern(pattern), access: route.access,
                             handler: route.handler, bodySink: route.bodySink,
                             series: RouteSeries(method: route.method, template: pattern))
            copy.inSpace = true
            routes.append(copy)
        }
    }
}
