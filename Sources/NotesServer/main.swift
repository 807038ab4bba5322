import Foundation
import NotesCore

#if canImport(Glibc)
import CMalloc

// A fixed mmap threshold: every allocation of 1 MiB or more is its own mapping, given back to the
// system when freed. glibc otherwise raises the threshold after each large free (up to 32 MiB), so
// the next request bodies, note contents and query results land in the request threads' arenas
// and stay resident after they are freed: twelve batches of 2 MiB notes left the server at
// 290 MiB resident on PostgreSQL and 116 MiB on SQLite, against 61 and 46 MiB with this setting.
// Setting it also fixes the trim threshold, so a freed arena top is returned too.
mallopt(M_MMAP_THRESHOLD, 1 << 20)
// The trim threshold that fixed one is 128 KiB: a request thread's arena gave back (madvise) the
// few hundred KiB its request freed, and the next request faulted them in again, zeroed, page by
// page. An upload of 10,000 notes (435 batches) took 15,700 page faults in the server; with up
// to 1 MiB of free arena top kept (below the mmap threshold, so at most that per arena) 5,700.
mallopt(M_TRIM_THRESHOLD, 1 << 20)
#endif

// Before any database is opened: SQLite takes the setting only then (see the function).
SQLiteMemoryStatistics.turnOff()

exit(ServerCommandLine.main(Array(CommandLine.arguments.dropFirst())))
