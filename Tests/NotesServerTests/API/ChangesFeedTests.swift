import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The changes feed sync is built on: order, paging, content and resync after purging.
@Suite("Notes API: changes feed")
struct ChangesFeedTests {
    @Test func feedListsEachNoteOnceAtItsLatestStateInRevisionOrder() async throws {
        try await LiveServer.with { _, api in
            let a = try await api.create("a.md", "a1")
            let b = try await api.create("b.md", "b1")
            let c = try await api.create("c.md", "c1")
            let a2 = try await api.update(a, content: "a2")
            let bGone = try await api.delete(b)
            let response = try await api.send("GET", "/v1/changes")
            #expect(response.status == 200)
            let page = try response.decode(ChangesPage.self)
            #expect(page.changes.map(\.id) == [c.id, a.id, b.id])
            #expect(page.changes.map(\.rev) == [c.rev, a2.rev, bGone.rev])
            #expect(page.changes.map(\.deleted) == [false, false, true])
            #expect(page.changes.allSatisfy { $0.content == nil })
            #expect(!page.hasMore)
            #expect(page.cursor == String(bGone.rev))
            let fromZero = try await api.send("GET", "/v1/changes", query: [("since", "0")]).decode(ChangesPage.self)
            #expect(fromZero == page)

            let quiet = try await api.send("GET", "/v1/changes", query: [("since", page.cursor)]).decode(ChangesPage.self)
            #expect(quiet.changes.isEmpty && !quiet.hasMore && quiet.cursor == page.cursor)
            let a3 = try await api.update(a2, content: "a3")
            let next = try await api.send("GET", "/v1/changes", query: [("since", page.cursor)]).decode(ChangesPage.self)
            #expect(next.changes.map(\.rev) == [a3.rev])
        }
    }

    @Test func limitPagesTheFeedWithHasMoreAndCursor() async throws {
        try await LiveServer.with { _, api in
            var created: [NoteID] = []
            for index in 0..<5 { created.append(try await api.create("n\(index).md", "\(index)").id) }
            var since = "0", seen: [NoteID] = [], flags: [Bool] = []
            for _ in 0..<5 {
                let page = try await api.send("GET", "/v1/changes", query: [("since", since), ("limit", "2")]).decode(ChangesPage.self)
                seen += page.changes.map(\.id)
                flags.append(page.hasMore)
                since = page.cursor
                if !page.hasMore { break }
            }
            #expect(seen == created)
            #expect(flags == [true, true, false])
        }
    }

    @Test func includeContentAddsEachNotesContent() async throws {
        try await LiveServer.with { _, api in
            try await api.create("a.md", "alpha\r\n")
            let gone = try await api.create("b.md", "beta")
            try await api.delete(gone)
            let page = try await api.send("GET", "/v1/changes", query: [("include", "content")]).decode(ChangesPage.self)
            #expect(page.changes.map(\.content) == ["alpha\r\n", ""])
            let bad = try await api.send("GET", "/v1/changes", query: [("include", "everything")])
            #expect(bad.status == 400)
            for cursor in ["abc", "-1", "1.5"] {
                let response = try await api.send("GET", "/v1/changes", query: [("since", cursor)])
                #expect(response.status == 400, "since=\(cursor)")
                #expect(response.errorCode == "invalid_cursor")
            }
            let future = try await api.send("GET", "/v1/changes", query: [("since", "999")])
            #expect(future.status == 410, "a cursor ahead of the account (a restored backup) must resync")
            #expect(future.errorCode == "resync_required")
        }
    }

    @Test func cursorOlderThanPurgedTombstonesNeedsResyncAndAFullWalkStillWorks() async throws {
        try await LiveServer.with(["--tombstone-ttl", "1"]) { _, api in
            let kept = try await api.create("kept.md", "stays")
            let alsoKept = try await api.create("also-kept.md", "stays too")
            let doomed = try await api.create("doomed.md", "goes")
            let oldCursor = String(kept.rev)
            try await api.delete(doomed)
            // The server purges tombstones older than 1 s every second: wait until then.
            let refused = try await waitUntil(every: .milliseconds(200)) {
                try await api.send("GET", "/v1/changes", query: [("since", oldCursor)]).status == 410
            }
            #expect(refused)
            let gone = try await api.send("GET", "/v1/changes", query: [("since", oldCursor)])
            #expect(gone.errorCode == "resync_required")

            let walk = try await api.send("GET", "/v1/changes", query: [("since", "0")])
            #expect(walk.status == 200)
            let page = try walk.decode(ChangesPage.self)
            #expect(page.changes.map(\.id) == [kept.id, alsoKept.id])
            // The cursor the full walk hands out must itself be usable, not another 410.
            let after = try await api.send("GET", "/v1/changes", query: [("since", page.cursor)])
            #expect(after.status == 200)
            #expect(try after.decode(ChangesPage.self).changes.isEmpty)
            // A paged walk from the beginning must also get through the purge horizon.
            let small = try await api.send("GET", "/v1/changes", query: [("since", "0"), ("limit", "1")]).decode(ChangesPage.self)
            #expect(small.changes.map(\.id) == [kept.id])
            #expect(small.hasMore)
            let rest = try await api.send("GET", "/v1/changes", query: [("since", small.cursor), ("limit", "1")])
            #expect(rest.status == 200)
            #expect(try rest.decode(ChangesPage.self).changes.map(\.id) == [alsoKept.id])
            let late = try await api.create("late.md", "new")
            let delta = try await api.send("GET", "/v1/changes", query: [("since", page.cursor)]).decode(ChangesPage.self)
            #expect(delta.changes.map(\.id) == [late.id])
        }
    }
}
