import Dispatch

/// A dispatch source held across threads. Dispatch sources are thread-safe (`cancel`,
/// `activate` and the handlers may be used from any queue), but the overlay does not mark
/// them `Sendable`; this box is the one place that vouches for it.
struct DispatchSourceBox<Source>: @unchecked Sendable {
    let source: Source
}
