import Foundation
import NotesCore

/// LOCK and UNLOCK (RFC 4918 §9.10, §9.11): write locks with timeouts (`DAVLockTable`). A LOCK
/// on a path where nothing is yet makes an empty file there, as RFC 4918 §7.3 asks.
extension WebDAVResponder {
    func lock(_ call: Call) throws -> HTTPResponse {
        let space = try call.requireWrite()
        let location = call.location
        let timeout = Self.timeoutSeconds(call.request.headers["Timeout"])
        if call.request.body.isEmpty {
            return try refresh(call, space: space, timeout: timeout)
        }
        let root = try DAVXMLElement.parse(call.request.body)
        guard root.isNamed("DAV:", "lockinfo"), let scope = root.child("DAV:", "lockscope")?.children.first,
              root.child("DAV:", "locktype")?.child("DAV:", "write") != nil else {
            throw HTTPError.badRequest("A LOCK body is a DAV: lockinfo with a lockscope and a write locktype.", code: "invalid_lockinfo")
        }
        let depth = call.request.headers["Depth"]?.lowercased() ?? "infinity"
        guard depth == "0" || depth == "infinity" else {
            throw HTTPError.badRequest("LOCK takes Depth: 0 or infinity.", code: "invalid_depth")
        }
        guard !location.path.isEmpty else {
            throw HTTPError(403, code: "space_root", message: "A space's root cannot be locked; lock what is inside it.")
        }
        var resource = try self.resource(at: location, userID: space.userID)
        try checkConditions(call, location: location, resource: resource, deep: false, checkLocks: false)
        let owner = root.child("DAV:", "owner").map { "<D:owner>" + $0.innerXML + "</D:owner>" } ?? ""
        let lock: DAVLock
        do {
            lock = try locks.take(userID: space.userID, space: DAVSpace.storedKey, path: location.path, deep: depth == "infinity",
                                  exclusive: scope.isNamed("DAV:", "exclusive"), ownerXML: owner, timeoutSeconds: timeout)
        } catch .conflict {
            throw HTTPError(423, code: "no-conflicting-lock", message: "Another lock holds this resource.")
        } catch .tooMany {
            throw HTTPError(503, code: "too_many_locks", message: "This account holds \(DAVLockTable.maxLocksPerUser) locks; release some first.",
                            headers: ["Retry-After": "60"])
        }
        var status = 200
        if resource == nil {
            do {
                try requireParentFolder(location, userID: space.userID)
                let path = try Self.entryPath(location.path, isNew: true)
                let body = try DAVBody(HTTPRequest(method: "PUT", path: call.request.path), kind: EntryKind(path: path.value),
                                       maxNoteBytes: notes.limits.maxNoteBytes, temporaryFolder: temporaryFolder)
                let hash = try storeContent(body, userID: space.userID)
                resource = .file(try writeEntry(call, path: path, body: body, hash: hash, expected: nil, strict: true).note)
                status = 201
            } catch {
                locks.release(token: lock.token)
                throw error
            }
        }
        return lockAnswer(lock, in: space, status: status, folder: resource?.isFolder ?? false)
    }

    private func refresh(_ call: Call, space: DAVSpace, timeout: Int) throws -> HTTPResponse {
        let conditions = try DAVConditions(call.request)
        let held = locks.covering(userID: space.userID, space: DAVSpace.storedKey, path: call.location.path)
        guard let token = conditions.submittedTokens.first(where: { token in held.contains { $0.token == token } }),
              let lock = locks.refresh(token: token, timeoutSeconds: timeout) else {
            throw DAVConditions.failed("Refresh a lock by sending its token in an If header to a resource it covers.")
        }
        return lockAnswer(lock, in: space, status: 200, folder: try resource(at: call.location, userID: space.userID)?.isFolder ?? false)
    }

    private func lockAnswer(_ lock: DAVLock, in space: DAVSpace, status: Int, folder: Bool) -> HTTPResponse {
        let href = DAVLocation(space: space.name, path: lock.path).href(folder: folder)
        let body = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:prop xmlns:D="DAV:"><D:lockdiscovery>"#
            + lock.activeLockXML(root: href, now: notes.clock.now()) + "</D:lockdiscovery></D:prop>\n"
        return HTTPResponse(status: status, headers: ["Content-Type": DAVResponse.xmlContentType, "Lock-Token": "<\(lock.token)>"],
                            body: Array(body.utf8))
    }

    func unlock(_ call: Call) throws -> HTTPResponse {
        let space = try call.requireSpace()
        guard let header = call.request.headers["Lock-Token"] else {
            throw HTTPError.badRequest("UNLOCK needs a Lock-Token header.", code: "missing_lock_token")
        }
        let token = header.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "<>"))
        guard let lock = locks.lock(token: token), lock.userID == space.userID,
              lock.covers(space: DAVSpace.storedKey, path: call.location.path) else {
            throw HTTPError(409, code: "lock-token-matches-request-uri", message: "No lock with this token covers this resource.")
        }
        locks.release(token: token)
        return DAVResponse.empty(204)
    }

    /// The seconds a `Timeout` header asks for (`Second-600`, `Infinite`; the first it can read),
    /// within the table's bounds.
    static func timeoutSeconds(_ header: String?) -> Int {
        guard let header else { return DAVLockTable.defaultTimeoutSeconds }
        for part in header.split(separator: ",") {
            let value = part.trimmingCharacters(in: .whitespaces)
            if value.lowercased() == "infinite" { return DAVLockTable.maxTimeoutSeconds }
            if value.lowercased().hasPrefix("second-"), let seconds = Int(value.dropFirst(7)), seconds > 0 {
                return min(seconds, DAVLockTable.maxTimeoutSeconds)
            }
        }
        return DAVLockTable.defaultTimeoutSeconds
    }
}
