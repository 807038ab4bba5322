/// Where a program's command line run writes: help and completion scripts to stdout, the
/// reports of usage errors and failures to stderr.
public protocol CommandLineOutput {
    /// Writes `text` (which ends in a newline) to stdout.
    func write(_ text: String)
    /// Writes `line` and a newline to stderr.
    func printError(_ line: String)
}
