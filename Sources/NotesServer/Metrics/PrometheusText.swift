/// Writes the Prometheus text exposition format (version 0.0.4): each metric's `# HELP` and
/// `# TYPE` lines, then its samples.
///
/// Metric names and label names are the program's own constants; label values are escaped
/// (backslash, double quote, line feed) as the format asks.
struct PrometheusText {
    /// The media type a scrape is answered with.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private(set) var text = ""

    /// Starts a metric: its help line and its type (`counter`, `gauge`, `histogram`).
    mutating func metric(_ name: String, _ type: String, help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample: `name{labels} value`, `labels` already escaped (empty: none).
    mutating func sample(_ name: String, labels: String = "", _ value: Int) {
        text += labels.isEmpty ? "\(name) \(value)\n" : "\(name){\(labels)} \(value)\n"
    }

    /// One sample with a fractional value.
    mutating func sample(_ name: String, labels: String = "", _ value: Double) {
        let shown = value.isFinite ? "\(value)" : (value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf"))
        text += labels.isEmpty ? "\(name) \(shown)\n" : "\(name){\(labels)} \(shown)\n"
    }

    /// A metric with a single sample and no labels.
    mutating func single(_ name: String, _ type: String, help: String, _ value: Int) {
        metric(name, type, help: help)
        sample(name, value)
    }

    /// `value` escaped for a label value.
    static func escaped(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
