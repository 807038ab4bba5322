/// How long one exchange with an object store may take: `idle` with nothing sent or received,
/// `deadline` in all (one upload chunk, or one object).
struct ObjectStorageTimeouts: Sendable, Equatable {
    var idle: Duration = .seconds(15)
    var deadline: Duration = .seconds(120)
}
