import Foundation
import NotesCore
import Testing

/// `SQLiteMemoryStatistics.turnOff()` is the server's first statement; anywhere later it must be
/// refused without harm, since SQLite only takes the setting before its first use.
@Suite("SQLite memory statistics")
struct SQLiteMemoryStatisticsTests {
    @Test("turning the statistics off after a database was opened is refused, and the open database still reads and writes")
    func turnOffAfterFirstUseIsRefusedAndHarmless() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-memstatus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database(path: folder.appendingPathComponent("a.sqlite").path)
        try database.execute("CREATE TABLE t (x TEXT)")
        #expect(SQLiteMemoryStatistics.turnOff() == false, "SQLite is initialised: the setting is refused")
        try database.transaction { try database.run("INSERT INTO t (x) VALUES (?)", String(repeating: "x", count: 5000)) }
        #expect(try database.scalarInt("SELECT length(x) FROM t") == 5000)
        try database.close()
    }
}
