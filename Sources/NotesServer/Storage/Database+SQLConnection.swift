import NotesCore

/// SQLite's statement is the row the stores read while it points at one.
extension Statement: SQLRow {}

/// SQLite's connection as the stores' `SQLConnection`: its own methods already have the shapes,
/// so this adds nothing and changes nothing.
extension Database: SQLConnection {}
