import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import NotesServer

/// `GET /v1/changes?wait=S`, the long poll a watching client keeps open: it answers at once when
/// there is something, otherwise when a write for the same user commits or the wait ends, and a
/// server holds only so many. Run in-process (deferred answers are awaited by `TestApp`); the
/// real binary's framing and shutdown are in `LongPollServerTests`.
@Suite("Long poll: held changes requests")
struct LongPollTests {
    /// The kinds of write that move a user's feed; each must wake that user's long polls.
    enum Write: String, CaseIterable, Sendable {
        case create, update, delete, batch, purge
    }

    @Test("a long poll answers at once, without being held, when changes exist after its cursor")
    func answersAtOnceWhenChangesExist() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let token = try await app.signIn().accessToken
            let note = try await app.create("here.md", "# Here", token: token)
            let response = await app.send("GET", "/v1/changes", query: ["since": "0", "wait": "60"], token: token)
            let page = try response.decode(ChangesPage.self)
            #expect(response.status == 200)
            #expect(page.changes.map(\.id) == [note.id])
            #expect(app.application.waitingRequests.held == 0, "nothing to wait for, so nothing was held")
        }
    }

    @Test("a held long poll is woken by the user's write once it commits, and answers with it", arguments: Write.allCases)
    func wakesWhenAChangeCommits(_ write: Write) async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let token = try await app.signIn().accessToken
            let user = try #require(try app.userID(TestAccount.username))
            // Something to update, delete or purge, already seen by the waiting client.
            let existing = try await app.create("old.md", "old", token: token)
            let cursor = try await app.cursor(token: token)

            async let held = app.send("GET", "/v1/changes", query: ["since": cursor, "wait": "30"], token: token)
            #expect(try await waitUntil { app.application.changeNotifier.waiting(user: user) == 1 }, "the request is held")
            let changed = try await app.perform(write, on: existing, token: token)
            let response = await held

            let page = try response.decode(ChangesPage.self)
            #expect(response.status == 200)
            #expect(page.changes.map(\.id) == [changed.id])
            #expect(page.changes.map(\.rev) == [changed.rev])
            #expect(page.cursor != cursor)
            #expect(app.application.waitingRequests.held == 0)
        }
    }

    @Test("a long poll with nothing new ends its wait with an empty page and the same cursor")
    func timesOutWithAnEmptyPage() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let token = try await app.signIn().accessToken
            _ = try await app.create("seen.md", "seen", token: token)
            let cursor = try await app.cursor(token: token)
            let response = await app.send("GET", "/v1/changes", query: ["since": cursor, "wait": "1"], token: token)
            let page = try response.decode(ChangesPage.self)
            #expect(response.status == 200)
            #expect(page.changes.isEmpty && !page.hasMore)
            #expect(page.cursor == cursor)
            #expect(page.userId == (try app.userID(TestAccount.username)))
            #expect(response.headers["retry-after"] == nil, "an ordinary end of the wait, not a refusal")
        }
    }

    @Test("bob's write never wakes alice's long poll: hers ends with its wait, empty")
    func anotherUsersChangeDoesNotWake() async throws {
        try await TestApp.with { (app: TestApp) async throws in
            try app.addUser("bob", password: TestAccount.password)
            let alice = try await app.signIn().accessToken
            let bob = try await app.accessToken(for: "bob")
            let aliceID = try #require(try app.userID(TestAccount.username))
            let cursor = try await app.cursor(token: alice)
            let notifier = app.application.changeNotifier
            let aliceMark = notifier.mark(for: aliceID)

            async let held = app.send("GET", "/v1/changes", query: ["since": cursor, "wait": "2"], token: alice)
            #expect(try await waitUntil { notifier.waiting(user: aliceID) == 1 })
            _ = try await app.create("bobs.md", "bob's", token: bob)
            #expect(notifier.mark(for: aliceID) == aliceMark, "bob's write signalled nothing for alice")
            let response = await held

            let page = try response.decode(ChangesPage.self)
            #expect(response.status == 200)
            #expect(page.changes.isEmpty)
            #expect(page.cursor == cursor)
        }
    }

    @Test("the in-process notifier resumes only the changed user's waiters")
    func notifierWakesOnlyThatUser() async throws {
        let notifier = InProcessChangeNotifier()
        let far = ContinuousClock.now + .seconds(60)
        async let alice = notifier.wait(user: 1, after: notifier.mark(for: 1), until: far)
        async let bob = notifier.wait(user: 2, after: notifier.mark(for: 2), until: far)
        #expect(try await waitUntil { notifier.waiting() == 2 })
        notifier.changed(user: 2)
        #expect(await bob == .changed(notifier.mark(for: 2)))
        #expect(notifier.waiting(user: 1) == 1, "alice still waits")
        notifier.close()
        #expect(await alice == .closed)
        #expect(await notifier.wait(user: 1, after: notifier.mark(for: 1), until: far) == .closed, "no wait after close")
    }

    @Test("a wait with an earlier deadline than those already held ends by its own deadline, and only it")
    func earlierDeadlineEndsFirst() async throws {
        let notifier = InProcessChangeNotifier()
        let long = Task { await notifier.wait(user: 1, after: notifier.mark(for: 1), until: .now + .seconds(60)) }
        #expect(try await waitUntil { notifier.waiting() == 1 })
        let short = Task { await notifier.wait(user: 2, after: notifier.mark(for: 2), until: .now + .seconds(2)) }
        #expect(try await waitUntil { notifier.waiting(user: 2) == 1 })
        // Ended by its 2 s deadline, well before the 60 s one the sweeper first slept for.
        #expect(try await waitUntil(timeout: 30) { notifier.waiting(user: 2) == 0 })
        #expect(await short.value == .timedOut)
        #expect(notifier.waiting(user: 1) == 1)
        notifier.close()
        #expect(await long.value == .closed)
    }

    @Test("a change between reading the feed and waiting is not missed: the wait returns at once")
    func changeBeforeTheWaitIsNotMissed() async {
        let notifier = InProcessChangeNotifier()
        let mark = notifier.mark(for: 7)
        notifier.changed(user: 7)
        #expect(await notifier.wait(user: 7, after: mark, until: .now + .seconds(60)) == .changed(notifier.mark(for: 7)))
        #expect(notifier.waiting() == 0)
    }

    @Test("past a waiter cap (per user, per address, in total) a long poll is answered at once: empty page, Retry-After")
    func capsAnswerAtOnceWithRetryAfter() async throws {
        try await TestApp.with({ configuration in
            configuration.limits.maxWaitersPerUser = 1
            configuration.limits.maxWaiters = 2
            configuration.connectionsPerAddress = 2 // one held long poll per address
        }) { (app: TestApp) async throws in
            for name in ["bob", "carol"] { try app.addUser(name, password: TestAccount.password) }
            let alice = try await app.signIn().accessToken
            let bob = try await app.accessToken(for: "bob")
            let carol = try await app.accessToken(for: "carol")
            let cursor = try await app.cursor(token: alice)
            let poll = ["since": cursor, "wait": "30"]

            async let aliceHeld = app.send("GET", "/v1/changes", query: poll, token: alice, from: "10.0.0.1")
            #expect(try await waitUntil { app.application.waitingRequests.held == 1 })
            let perUser = await app.send("GET", "/v1/changes", query: poll, token: alice, from: "10.0.0.9")
            let perAddress = await app.send("GET", "/v1/changes", query: poll, token: bob, from: "10.0.0.1")
            async let bobHeld = app.send("GET", "/v1/changes", query: poll, token: bob, from: "10.0.0.2")
            #expect(try await waitUntil { app.application.waitingRequests.held == 2 })
            let total = await app.send("GET", "/v1/changes", query: poll, token: carol, from: "10.0.0.3")

            for refused in [perUser, perAddress, total] {
                let page = try refused.decode(ChangesPage.self)
                #expect(refused.status == 200)
                #expect(refused.headers["retry-after"] == String(SyncController.retryAfterPastCapSeconds))
                #expect(page.changes.isEmpty && page.cursor == cursor)
            }
            // Shutdown's release answers the held ones the same way, without Retry-After.
            app.application.changeNotifier.close()
            for held in await [aliceHeld, bobHeld] {
                #expect(held.status == 200 && held.headers["retry-after"] == nil)
                #expect(try held.decode(ChangesPage.self).changes.isEmpty)
            }
            #expect(app.application.waitingRequests.held == 0)
        }
    }

    @Test("wait must be a whole number of seconds from 0 to 60", arguments: ["61", "-1", "1.5", "soon", ""])
    func waitOutOfRangeIsRefused(_ wait: String) async throws {
        try await TestApp.with { (app: TestApp) async throws in
            let token = try await app.signIn().accessToken
            let response = await app.send("GET", "/v1/changes", query: ["wait": wait], token: token)
            #expect(response.status == 400)
            #expect(response.errorCode == "invalid_parameter")
        }
    }

    @Test("a wait longer than --max-wait is shortened to it")
    func maxWaitClampsTheWait() async throws {
        try await TestApp.with({ $0.limits.maxWaitSeconds = 1 }) { (app: TestApp) async throws in
            let token = try await app.signIn().accessToken
            let cursor = try await app.cursor(token: token)
            let answered = Task { await app.send("GET", "/v1/changes", query: ["since": cursor, "wait": "60"], token: token) }
            #expect(try await waitUntil { app.application.waitingRequests.held == 1 }, "the request is held")
            // Clamped to 1 s it ends well within this margin; held for the 60 s it asked, it would not.
            #expect(try await waitUntil(timeout: 30) { app.application.waitingRequests.held == 0 })
            let response = await answered.value
            #expect(try response.decode(ChangesPage.self).cursor == cursor)
        }
    }

    @Test("/v1/limits publishes the long poll's caps, the total held below the connection limit")
    func limitsPublishTheCaps() async throws {
        try await TestApp.with({ $0.connectionLimit = 100 }) { (app: TestApp) async throws in
            let limits = try await app.send("GET", "/v1/limits").decode(ServerLimits.self)
            #expect(limits.maxWaitSeconds == 60)
            #expect(limits.maxWaitersPerUser == 8)
            #expect(limits.maxWaiters == 75, "three quarters of 100 connections, not the default 4096")
        }
        var configuration = ServerConfiguration()
        #expect(configuration.effectiveMaxWaiters == 768)
        #expect(configuration.effectiveMaxWaitersPerAddress == 32)
        configuration.connectionsPerAddress = 0
        #expect(configuration.effectiveMaxWaitersPerAddress == 0, "no per-address connection cap, no per-address waiter cap")
        configuration.connectionLimit = 8192
        #expect(configuration.effectiveMaxWaiters == 4096)
    }
}

private extension TestApp {
    /// Creates a note at `path` through the API and returns it.
    func create(_ path: String, _ content: String, token: String) async throws -> NoteResource {
        let response = try await send("PUT", "/v1/notes/\(NoteID())", json: PutNoteRequest(path: path, content: content),
                                      token: token, headers: ["If-None-Match": "*"])
        try #require(response.status == 201, "create answered \(response.status): \(response.text)")
        return try response.decode(NoteResource.self)
    }

    /// The cursor after everything the user has now.
    func cursor(token: String) async throws -> String {
        var cursor = "0"
        while true {
            let page = try await send("GET", "/v1/changes", query: ["since": cursor], token: token).decode(ChangesPage.self)
            cursor = page.cursor
            if !page.hasMore { return cursor }
        }
    }

    func userID(_ username: String) throws -> Int64? {
        try application.database.read { db in try db.scalarInt("SELECT id FROM users WHERE username = ?", [username]) }
    }

    /// Signs `username` in (`TestAccount`'s password) and returns the access token.
    func accessToken(for username: String) async throws -> String {
        let response = try await login(username, TestAccount.password)
        try #require(response.status == 200, "login answered \(response.status)")
        return try response.decode(TokenResponse.self).accessToken
    }

    /// Changes the feed with `write` (on `note` where it needs one) and returns the note as the feed now shows it.
    func perform(_ write: LongPollTests.Write, on note: NoteResource, token: String) async throws -> NoteResource {
        let response: TestAPIResponse
        switch write {
        case .create:
            return try await create("new.md", "new", token: token)
        case .update:
            response = try await send("PUT", "/v1/notes/\(note.id)", json: PutNoteRequest(path: note.path, content: "changed"),
                                      token: token, headers: ["If-Match": "\"\(note.rev)\""])
        case .delete:
            response = await send("DELETE", "/v1/notes/\(note.id)", token: token, headers: ["If-Match": "\"\(note.rev)\""])
        case .batch:
            let operation = BatchOperation(op: .put, id: note.id, path: note.path, content: "batched", ifMatch: note.rev)
            let batch = try await send("POST", "/v1/batch", json: BatchRequest(operations: [operation]), token: token)
            return try #require(try batch.decode(BatchResponse.self).results.first?.note)
        case .purge:
            let purged = await send("POST", "/v1/notes/\(note.id)/purge", token: token, headers: ["If-Match": "\"\(note.rev)\""])
            try #require(purged.status == 200, "purge answered \(purged.status): \(purged.text)")
            return try #require(try await self.note(note.id, token: token))
        }
        try #require(response.status == 200, "\(write) answered \(response.status): \(response.text)")
        return try response.decode(NoteResource.self)
    }

    /// The note's state in the feed (tombstones included).
    func note(_ id: NoteID, token: String) async throws -> NoteResource? {
        let page = try await send("GET", "/v1/changes", token: token).decode(ChangesPage.self)
        return page.changes.first { $0.id == id }
    }
}
