import NotesCore

/// The answer to one poll of a device code (RFC 8628 §3.5).
enum DevicePoll: Sendable, Equatable {
    /// Approved by this user, and spent by this poll: hand out the session now.
    case approved(userID: Int64, device: String)
    case pending
    /// Polled before the interval passed; the interval is now this many seconds.
    case slowDown(interval: Int)
    case denied
    case expired
    /// Unknown, or already exchanged for a session.
    case invalid
}

/// A device code waiting for a person, as the approval page shows it.
struct PendingDevice: Sendable, Equatable {
    let id: Int64
    let deviceName: String
    let clientAddress: String
    let createdAt: Int64
    let expiresAt: Int64
}

/// Why no device code was issued.
enum DeviceCodeError: Error, Sendable, Equatable {
    /// The address already holds `DeviceCodeStore.maxLivePerAddress` live codes.
    case tooManyWaiting
    /// Every user code drawn clashed with a live one (a one-in-billions event, several times).
    case noFreeCode
}

/// What a person decided about a device code on the approval page.
enum DeviceDecision: Sendable {
    case approve(userID: Int64)
    case deny
}

/// Notes' own device authorization grant (RFC 8628): the owner of `device_codes`.
///
/// A device asks for a pair of codes: a long random device code it keeps and polls with, and a
/// short user code of eight letters a person types into the web app. Only SHA-256 digests of
/// either are stored. The user-code alphabet has no vowels (no words), no digits and none of
/// the letters that read alike, so 20^8 ≈ 2.6·10^10 codes; the web app throttles wrong guesses
/// per account and per address, which leaves guessing one of the few live codes in their ten
/// minutes impractical. A user code is found by the digest of its normalised form: the lookup
/// compares digests, never the code, so its timing says nothing about how close a guess was.
struct DeviceCodeStore: Sendable {
    let database: ServerDatabase
    let clock: ServerClock
    /// How long a person has to approve (RFC 8628 `expires_in`).
    var lifetimeSeconds = 600
    /// The polling interval a device starts with (RFC 8628 `interval`).
    var intervalSeconds = 5
    /// Live codes one address may hold at once: asking for codes is open to anyone.
    var maxLivePerAddress = 20

    /// The letters of user codes (RFC 8628 §6.1's example set: consonants only).
    static let userCodeAlphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
    static let userCodeLength = 8
    static let deviceCodePrefix = "ndc_"

    struct Issued: Sendable {
        let deviceCode: String
        /// Normalised: eight letters, no separator.
        let userCode: String
        let expiresIn: Int
        let interval: Int
    }

    /// Makes a new code pair for `deviceName`, asked for from `address`.
    /// - Throws: `DeviceCodeError.tooManyWaiting` when the address already holds `maxLivePerAddress`
    ///   live codes; `.noFreeCode` when every drawn user code was taken.
    func issue(deviceName: String, address: String) throws -> Issued {
        let now = clock.now()
        return try database.write { db in
            try db.run("DELETE FROM device_codes WHERE expires_at <= ?", now)
            let live = try db.scalarInt("SELECT count(*) FROM device_codes WHERE client_address = ? AND spent = 0", [address]) ?? 0
            guard live < Int64(maxLivePerAddress) else {
                throw DeviceCodeError.tooManyWaiting
            }
            // A clash of two live user codes is a one-in-billions event; draw again if it happens.
            for _ in 0..<4 {
                let deviceCode = SecureRandom.token(prefix: Self.deviceCodePrefix)
                let userCode = Self.makeUserCode()
                let taken = try db.scalarInt("SELECT count(*) FROM device_codes WHERE user_code_hash = ?", [Self.digest(userCode)]) ?? 0
                guard taken == 0 else { continue }
                try db.run("""
                    INSERT INTO device_codes (device_code_hash, user_code_hash, device_name, client_address, created_at, expires_at,
                        interval_seconds)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, Self.digest(deviceCode), Self.digest(userCode), deviceName, address, now,
                    now + Int64(lifetimeSeconds) * 1000, Int64(intervalSeconds))
                return Issued(deviceCode: deviceCode, userCode: userCode, expiresIn: lifetimeSeconds, interval: intervalSeconds)
            }
            throw DeviceCodeError.noFreeCode
        }
    }

    /// The live, undecided device code a person typed, or `nil` when there is none (mistyped,
    /// expired, already decided).
    func pending(userCode typed: String) throws -> PendingDevice? {
        guard let userCode = Self.normalize(typed) else { return nil }
        let now = clock.now()
        return try database.read { db in
            try db.first("""
                SELECT id, device_name, client_address, created_at, expires_at FROM device_codes
                WHERE user_code_hash = ? AND expires_at > ? AND approved_user_id IS NULL AND denied = 0 AND spent = 0
                """, [Self.digest(userCode), now]) {
                PendingDevice(id: $0.int64(0), deviceName: $0.string(1), clientAddress: $0.string(2), createdAt: $0.int64(3),
                              expiresAt: $0.int64(4))
            }
        }
    }

    /// Records `decision` on the code a person typed; `false` when it is no longer waiting.
    func decide(userCode typed: String, _ decision: DeviceDecision) throws -> Bool {
        guard let userCode = Self.normalize(typed) else { return false }
        let now = clock.now()
        let condition = "user_code_hash = ? AND expires_at > ? AND approved_user_id IS NULL AND denied = 0 AND spent = 0"
        return try database.write { db in
            switch decision {
            case .approve(let userID):
                try db.run("UPDATE device_codes SET approved_user_id = ? WHERE \(condition)", userID, Self.digest(userCode), now) == 1
            case .deny:
                try db.run("UPDATE device_codes SET denied = 1 WHERE \(condition)", Self.digest(userCode), now) == 1
            }
        }
    }

    /// One poll by the device holding `deviceCode`: records the poll and answers its state. An
    /// approved code is spent by the poll that learns it, in the same transaction, so two
    /// polls can never both get a session.
    func poll(deviceCode: String) throws -> DevicePoll {
        guard deviceCode.hasPrefix(Self.deviceCodePrefix), deviceCode.utf8.count <= 128 else { return .invalid }
        let digest = Self.digest(deviceCode)
        let now = clock.now()
        return try database.write { db in
            guard let row = try db.first("""
                SELECT id, device_name, expires_at, interval_seconds, last_polled_at, approved_user_id, denied, spent
                FROM device_codes WHERE device_code_hash = ?
                """, [digest], row: { row in
                    (id: row.int64(0), device: row.string(1), expiresAt: row.int64(2), interval: row.int64(3),
                     lastPolled: row.isNull(4) ? nil : row.int64(4), approvedBy: row.isNull(5) ? nil : row.int64(5),
                     denied: row.int64(6) != 0, spent: row.int64(7) != 0)
                }) else { return .invalid }
            if row.spent { return .invalid }
            if now >= row.expiresAt { return .expired }
            // RFC 8628 §3.5: too early a poll adds 5 seconds to the interval, for good. A second's
            // slack keeps a client that waited the interval from losing to network jitter.
            if let last = row.lastPolled, now - last < row.interval * 1000 - 1000 {
                let slower = row.interval + 5
                try db.run("UPDATE device_codes SET last_polled_at = ?, interval_seconds = ? WHERE id = ?", now, slower, row.id)
                return .slowDown(interval: Int(slower))
            }
            if let userID = row.approvedBy {
                try db.run("UPDATE device_codes SET spent = 1, last_polled_at = ? WHERE id = ?", now, row.id)
                return .approved(userID: userID, device: row.device)
            }
            try db.run("UPDATE device_codes SET last_polled_at = ? WHERE id = ?", now, row.id)
            return row.denied ? .denied : .pending
        }
    }

    /// A user code as typed, made canonical: letters upper-cased, spaces and dashes dropped;
    /// `nil` when it cannot be one (wrong length or a letter outside the alphabet).
    static func normalize(_ typed: String) -> String? {
        guard typed.utf8.count <= 64 else { return nil }
        let letters = typed.uppercased().filter { $0 != "-" && $0 != " " }
        guard letters.count == userCodeLength, letters.allSatisfy({ userCodeAlphabet.contains($0) }) else { return nil }
        return letters
    }

    /// `BCDF-GHJK`: how a user code is shown and typed.
    static func display(_ userCode: String) -> String {
        guard userCode.count == userCodeLength else { return userCode }
        return String(userCode.prefix(4)) + "-" + String(userCode.suffix(4))
    }

    /// Eight letters drawn uniformly from the alphabet (rejection sampling: no modulo bias).
    private static func makeUserCode() -> String {
        var letters: [Character] = []
        let limit = UInt8(256 - 256 % userCodeAlphabet.count)
        while letters.count < userCodeLength {
            for byte in SecureRandom.bytes(count: 16) where byte < limit && letters.count < userCodeLength {
                letters.append(userCodeAlphabet[Int(byte) % userCodeAlphabet.count])
            }
        }
        return String(letters)
    }

    private static func digest(_ code: String) -> [UInt8] {
        SHA256.digest(of: Array(code.utf8))
    }
}
