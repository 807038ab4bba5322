import Foundation

/// How often and how patiently a request is retried after a network error, a 5xx or a 429.
///
/// Bounded (a few attempts, each wait capped) so a dead server is reported within seconds;
/// jittered so many clients that failed together do not come back together.
struct RetryPolicy: Sendable {
    /// Attempts in all, the first included.
    var maxAttempts = 4
    /// The wait before the first retry; it doubles each time.
    var baseDelay = 0.25
    /// No computed wait exceeds this.
    var maxDelay = 4.0
    /// A server's `Retry-After` is honoured up to this many seconds; beyond it we would rather
    /// fail and tell the user than hang a command for minutes.
    var maxRetryAfter = 30.0

    static let standard = RetryPolicy()

    /// The wait before retry number `retry` (1 for the first retry): "equal jitter", half fixed
    /// and half random, so the wait is never near zero but spreads clients out.
    func delay(beforeRetry retry: Int, retryAfter: Double?) -> Double {
        if let retryAfter { return min(max(retryAfter, 0), maxRetryAfter) }
        let exponential = min(maxDelay, baseDelay * pow(2, Double(retry - 1)))
        return exponential / 2 + Double.random(in: 0...(exponential / 2))
    }

    /// Whether an HTTP status is worth retrying (for idempotent requests only).
    static func isRetryable(status: Int) -> Bool {
        status == 429 || status == 502 || status == 503 || status == 504 || status == 500
    }

    /// Parses `Retry-After`: delta-seconds, or an HTTP date (RFC 9110 §10.2.3).
    static func retryAfterSeconds(_ value: String?, now: Date = Date()) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds.isFinite { return max(seconds, 0) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(date.timeIntervalSince(now), 0)
    }
}
