import Dispatch

extension ServerRunner {
    /// How often a running server reads where the database says its contents are
    /// (`ContentStoreRecord`): `migrate-content` waits longer than this before it counts on every
    /// server writing to the new store.
    static let contentStoreRefreshSeconds = 2

    /// Reads the recorded content store every `contentStoreRefreshSeconds` and switches to it,
    /// saying so in the log.
    func watchContentStore(_ app: Application) -> any DispatchSourceTimer {
        Self.repeating(every: Self.contentStoreRefreshSeconds) {
            guard let switching = app.blobs as? SwitchingBlobStore else { return }
            do {
                if try switching.refresh(from: app.database) {
                    app.log("content store: now \(switching.record.map { "\($0.current)" } ?? "as --content-store says")"
                            + (switching.record?.previous.map { ", reading \($0) too" } ?? ""))
                }
            } catch {
                app.log("reading the recorded content store failed: \(error)")
            }
        }
    }
}
