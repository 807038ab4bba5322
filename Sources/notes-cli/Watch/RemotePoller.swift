import Foundation
import NotesCore

/// Waits for changes on the server so that the watcher applies them at once: a long poll
/// (`GET /v1/changes?since=CURSOR&wait=SECONDS`) where the server publishes
/// `max_wait_seconds` in `/v1/limits`, else a short poll every `pollInterval`. Either way it
/// asks for one change at most and no content: the sync that follows fetches the rest.
///
/// A server that ignores `wait` answers at once; the pause between polls keeps that from
/// turning into a busy loop. Network failures back off (jittered, up to `maxBackoff`) and the
/// first answer after an outage has the loop sync what changed meanwhile.
struct RemotePoller: Sendable {
    let shared: WatchShared
    let settings: WatchSettings

    func run() async {
        var backoff = Backoff(cap: settings.maxBackoff)
        var hold: Int?
        var knowsHold = false
        while !Task.isCancelled {
            let point = shared.pollPoint
            if point.generation == 0 || point.sessionEnded {
                await shared.waitForSync(after: point.generation)
                continue
            }
            if !knowsHold {
                hold = await Self.longPollSeconds(point.bound.client)
                knowsHold = true
            }
            let started = ContinuousClock.now
            do {
                let answer = try await Self.poll(point.bound.client, since: point.cursor, wait: hold)
                backoff.reset()
                shared.reached(bySync: false)
                // A sync ran meanwhile: this answer is about a cursor that is no longer ours.
                guard shared.generation == point.generation else { continue }
                if answer.changed {
                    shared.markRemoteChanged()
                    await shared.waitForSync(after: point.generation)
                    continue
                }
                let elapsed = ContinuousClock.now - started
                var pause = Duration.zero
                // No long poll, or a server that answered long before the wait it was asked for.
                if hold.map({ elapsed < .seconds($0) / 2 }) ?? true { pause = settings.pollInterval - elapsed }
                if let retryAfter = answer.retryAfter { pause = max(pause, retryAfter) }
                if pause > .zero { try await Task.sleep(for: pause, clock: .continuous) }
            } catch is CancellationError {
                return
            } catch let error as ClientError where error.endsSession {
                shared.sessionEnded(error)
                await shared.waitForSync(after: point.generation)
            } catch let error as ClientError where error.losesSpace {
                shared.markRemoteChanged()  // the sync that follows meets the refusal and ends the watch
                await shared.waitForSync(after: point.generation)
            } catch let error as ClientError where error.apiStatus?.status == 410 {
                shared.markRemoteChanged()  // the cursor is too old: the sync starts over
                await shared.waitForSync(after: point.generation)
            } catch {
                if let error = error as? ClientError, error.isUnreachable {
                    shared.unreachable(error)
                    knowsHold = false  // the server may come back as another version
                }
                try? await Task.sleep(for: backoff.next(), clock: .continuous)
            }
        }
    }

    /// What one poll found.
    struct Answer: Sendable {
        var changed: Bool
        /// The server asked for a pause (too many waiting requests).
        var retryAfter: Duration?
    }

    /// One poll of the changes feed after `cursor`, held by the server up to `wait` seconds.
    static func poll(_ client: APIClient, since cursor: String?, wait: Int?) async throws -> Answer {
        var query = [("limit", "1"), ("kinds", "note,attachment")]  // attachments wake it too
        if let cursor { query.append(("since", cursor)) }
        var request = APIRequest("GET", "/v1/changes", query: query)
        if let wait {
            request.query.append(("wait", String(wait)))
            request.serverHold = .seconds(wait)
        }
        let response = try await client.send(request)
        let page = try client.decode(ChangesPage.self, from: response, what: "GET /v1/changes")
        let retryAfter = RetryPolicy.retryAfterSeconds(response.header("Retry-After"))
            .map { Duration.milliseconds(Int(min($0, Double(WatchSettings.maxLongPoll)) * 1000)) }
        return Answer(changed: !page.changes.isEmpty || page.hasMore, retryAfter: retryAfter)
    }

    /// How long the server holds a changes request (`max_wait_seconds` in `/v1/limits`, at
    /// most a minute), or nil when it does not say: it then gets short polls. Asked afresh each
    /// time (not `APIClient.fetchLimits`, fetched once per process): a watcher outlives server
    /// restarts and upgrades.
    static func longPollSeconds(_ client: APIClient) async -> Int? {
        var request = APIRequest("GET", "/v1/limits", authenticated: false)
        request.maxResponseBytes = ResponseBudget.smallMaxBytes
        guard let response = try? await client.send(request),
              let seconds = (try? WireJSON.decoder().decode(ServerLimits.self, from: response.body))?.maxWaitSeconds,
              seconds > 0 else { return nil }
        return min(seconds, WatchSettings.maxLongPoll)
    }
}
