extension SchemaVersion {
    /// Version 12: device authorization codes (RFC 8628) for sign-in without a browser.
    static let v12 = SchemaVersion(version: 12, name: "device authorization codes (RFC 8628) for sign-in without a browser", statements: deviceCodes)

    /// Notes' own device authorization grant (RFC 8628, `notes login --device`): a machine
    /// without a browser asks for a code pair, a person approves the short user code in the web
    /// app, and the machine polls with the long device code until it is approved, denied or
    /// expired. Both codes are stored as SHA-256 digests only (the user code of its normalised
    /// form, eight letters), so a copy of the database approves nothing. Rows live until they
    /// expire (ten minutes) and are deleted whenever a new one is written.
    private static func deviceCodes(_ sql: SQLDialect) -> String {
        """
        CREATE TABLE device_codes (
            id \(sql.rowID),
            device_code_hash \(sql.bytes) NOT NULL UNIQUE,
            user_code_hash \(sql.bytes) NOT NULL UNIQUE,
            -- The name the device asked for (the session's device name), shown on approval.
            device_name TEXT NOT NULL,
            -- The address that asked, shown on approval so a person can tell a stranger's request.
            client_address TEXT NOT NULL,
            created_at \(sql.int64) NOT NULL,
            expires_at \(sql.int64) NOT NULL,
            -- Seconds the device must wait between polls; grows by 5 at each slow_down.
            interval_seconds INTEGER NOT NULL,
            last_polled_at \(sql.int64),
            -- Set by the person who approved it in the browser.
            approved_user_id \(sql.int64) REFERENCES users(id) ON DELETE CASCADE,
            denied INTEGER NOT NULL DEFAULT 0,
            -- The session was handed out: a second exchange is refused.
            spent INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX device_codes_expiry ON device_codes(expires_at);
        CREATE INDEX device_codes_address ON device_codes(client_address);

        """
    }
}
