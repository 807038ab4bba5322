import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// The router looks a request's route up among those of its path length and second segment
/// (`RouteTable.candidateIndices`); these tests hold that to the rule it replaces: the first
/// registered route whose pattern fits, 405 with every method that fits, else 404.
@Suite("Routing: looking a route up by path length and second segment")
struct RouteLookupTests {
    @Test("every path made from the route table reaches the route, 405 or 404 that trying every route in order reaches")
    func lookupAgreesWithTryingEveryRoute() async throws {
        try await TestApp.with { app in
            let router = app.application.router
            let table = router.routeTable
            var paths: Set<String> = ["/", "/v1", "/v1/", "/nothing", "/v1/notes/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r",
                                      "/v1/nope/x", "/v2/notes/x", "/v1//x", "/v1/notes/"]
            for route in table {
                // Each parameter filled in, and a rest parameter with one and with three segments.
                let filled = route.pattern.split(separator: "/").map { segment -> String in
                    segment.hasPrefix(":") ? "p1" : segment.hasPrefix("*") ? "r1" : String(segment)
                }
                paths.insert("/" + filled.joined(separator: "/"))
                if route.pattern.contains("*") { paths.insert("/" + filled.joined(separator: "/") + "/r2/r3") }
                paths.insert("/" + filled.joined(separator: "/") + "/extra")
                paths.insert("/" + filled.dropLast().joined(separator: "/"))
            }
            let methods = Set(table.map(\.method)).union(["HEAD", "PATCH"])
            #expect(paths.count > 50)
            for path in paths {
                for method in methods {
                    let expected = Self.everyRoute(table, method: method, path: path)
                    let found: String
                    do throws(HTTPError) {
                        let (route, _) = try router.route(method: method, path: path)
                        found = route.pattern.description
                    } catch {
                        found = "\(error.status) \(error.headers["Allow"] ?? "")"
                    }
                    #expect(found == expected, "\(method) \(path)")
                }
            }
        }
    }

    /// The answer trying every route in registration order gives, as `route(method:path:)` writes it.
    private static func everyRoute(_ table: [(method: String, pattern: String, access: Router.Access)], method: String, path: String) -> String {
        let wanted = method == "HEAD" ? "GET" : method
        let segments = path == "/" ? [] : Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst())
        var allowed: [String] = []
        for route in table where fits(route.pattern.split(separator: "/"), segments) {
            if route.method == wanted { return route.pattern }
            allowed.append(route.method)
        }
        if allowed.isEmpty { return "404 " }
        if allowed.contains("GET") { allowed.append("HEAD") }
        return "405 \(HTTPError.methodNotAllowed(allowed: allowed).headers["Allow"] ?? "")"
    }

    private static func fits(_ pattern: [Substring], _ segments: [Substring]) -> Bool {
        let takesRest = pattern.last?.hasPrefix("*") == true
        guard takesRest ? segments.count >= pattern.count : segments.count == pattern.count else { return false }
        for (index, expected) in pattern.enumerated() {
            if expected.hasPrefix("*") { return !segments[index...].contains(where: \.isEmpty) }
            if segments[index].isEmpty { return false }
            if !expected.hasPrefix(":") && !expected.utf8.elementsEqual(segments[index].utf8) { return false }
        }
        return true
    }
}
