/// Why a space or membership change was refused. A space the caller may not see is always
/// `notFound`, whether or not it exists (docs/architecture.md §6.5).
enum SpaceError: Error, Sendable, Equatable {
    /// No such space for the caller: not a member, deleted, or none at all.
    case notFound
    /// The caller is a viewer: the space is read-only for them.
    case readOnly
    /// Only the space's owner may do this.
    case ownerOnly
    /// The personal space cannot be renamed, deleted, shared, left or given away.
    case personal
    /// The owner has a space with this name already.
    case nameTaken(String)
    /// The name breaks the rules of a space name.
    case invalidName
    /// No account with this username (asked by the owner, who names the account).
    case noSuchUser(String)
    /// The account is a member already.
    case alreadyMember(String)
    /// The account is not a member of the space.
    case notMember(String)
    /// The owner cannot leave, be removed or be given a lesser role; ownership is transferred first.
    case ownerMustTransfer
    /// The space is not in the trash (restore).
    case notDeleted
}
