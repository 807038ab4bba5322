import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The next changes page asked for before the current one is decoded (`ChangesLookahead`):
/// where its cursor is read from, that only the exact request is ever answered from it, and
/// that a pull of many pages through it applies every note once.
@Suite("Sync changes look-ahead")
struct SyncChangesLookaheadTests {
    private static func body(_ text: String) -> Data { Data(text.utf8) }

    @Test("the next cursor is read from the envelope after the notes, only when the page has more")
    func nextCursorFromEnvelope() {
        let more = #"{"changes":[{"id":"x","content":"a \"cursor\":\"fake\" b"}],"cursor":"c-42","has_more":true,"user_id":7}"#
        #expect(ChangesLookahead.nextCursor(in: Self.body(more)) == "c-42")
        let last = #"{"changes":[],"cursor":"c-43","has_more":false,"user_id":7}"#
        #expect(ChangesLookahead.nextCursor(in: Self.body(last)) == nil)
        // A note's text cannot fake the envelope: its quotes are escaped.
        let faked = #"{"changes":[{"content":"\"cursor\":\"evil\",\"has_more\":true"}],"cursor":"c-44","has_more":false}"#
        #expect(ChangesLookahead.nextCursor(in: Self.body(faked)) == nil)
        #expect(ChangesLookahead.nextCursor(in: Self.body("")) == nil)
        #expect(ChangesLookahead.nextCursor(in: Self.body(#"{"cursor":"a b","has_more":true}"#)) == nil, "not a cursor")
        #expect(ChangesLookahead.nextCursor(in: Self.body(#"{"cursor":"","has_more":true}"#)) == nil)
    }

    @Test("an answer held ahead is handed out once, and only for the same cursor, limit and content flag")
    func heldAnswerOnlyForSameRequest() async throws {
        let lookahead = ChangesLookahead()
        let key = ChangesLookahead.Key(since: "c-1", limit: 500, includeContent: true)
        lookahead.hold(key, Task { HTTPResponse(status: 200, headers: [:], body: Data("one".utf8)) })
        #expect(lookahead.take(ChangesLookahead.Key(since: "c-2", limit: 500, includeContent: true)) == nil)
        #expect(lookahead.take(ChangesLookahead.Key(since: "c-1", limit: 10, includeContent: true)) == nil)
        #expect(lookahead.take(ChangesLookahead.Key(since: "c-1", limit: 500, includeContent: false)) == nil)
        let answer = try #require(lookahead.take(key))
        #expect(try await answer.value.body == Data("one".utf8))
        #expect(lookahead.take(key) == nil, "handed out once")
    }

    @Test("a clone of many pages through the look-ahead gets every note once and asks for each page exactly once")
    func manyPagesAppliedOnce() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            for index in 0..<23 { try h.write("a", "n\(index).md", "note \(index)\n") }
            try await h.sync("a")
            try await h.initFolder("b")
            var options = SyncOptions()
            options.pageSize = 2
            let before = h.logCount("GET /v1/changes ")
            let report = try await h.syncInProcess("b", options: options)
            // 23 notes, two a page: 12 pages, each asked for once (a page asked for ahead and not
            // used, or asked for again, would show as a thirteenth request).
            #expect(try await waitUntil { h.logCount("GET /v1/changes ") - before >= 12 })
            #expect(h.logCount("GET /v1/changes ") - before == 12)
            #expect(report.downloaded == 23, "\(report)")
            #expect(try h.tree("b").filter { $0.key.hasSuffix(".md") }.count == 23)
            for index in 0..<23 { #expect(h.read("b", "n\(index).md") == "note \(index)\n") }
            let again = try await h.syncInProcess("b", options: options)
            #expect(again.downloaded == 0 && again.uploaded == 0, "\(again)")
        }
    }
}
