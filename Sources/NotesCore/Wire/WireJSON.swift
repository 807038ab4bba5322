import Foundation

/// The JSON conventions of the v1 API, shared by server and client so both speak identically:
/// snake_case keys, sorted keys (stable output), unescaped slashes (paths stay readable).
public enum WireJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

/// Wire timestamps: RFC 3339 in UTC with milliseconds, such as `2026-11-29T17:30:00.123Z`.
/// They are for people; sync never compares clocks (docs/architecture.md, Sync invariants 5).
public enum WireTime {
    /// Formats milliseconds since the Unix epoch.
    public static func string(fromMilliseconds ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        // Digits by hand: `String(format:)` went through CFString and cost a twentieth of the
        // server's time on an upload (three stamps per note in every feed and batch answer).
        guard (0...9999).contains(year) else {
            return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                          year, month, day, secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60, millis)
        }
        // Written straight into the string's storage: one allocation for the 24 bytes (this runs
        // for every stamp of every answer and every request's log line).
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var count = 0
            func put(_ value: Int, width: Int, then separator: UInt8) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                while divisor > 0 {
                    buffer[count] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                    count += 1
                    divisor /= 10
                }
                buffer[count] = separator
                count += 1
            }
            put(year, width: 4, then: UInt8(ascii: "-"))
            put(month, width: 2, then: UInt8(ascii: "-"))
            put(day, width: 2, then: UInt8(ascii: "T"))
            put(secondOfDay / 3600, width: 2, then: UInt8(ascii: ":"))
            put(secondOfDay / 60 % 60, width: 2, then: UInt8(ascii: ":"))
            put(secondOfDay % 60, width: 2, then: UInt8(ascii: "."))
            put(millis, width: 3, then: UInt8(ascii: "Z"))
            return count
        }
    }

    /// Milliseconds since the Unix epoch, now.
    public static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Howard Hinnant's days-to-civil algorithm: exact for the proleptic Gregorian calendar.
    private static func civilDate(daysSinceEpoch: Int) -> (Int, Int, Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
