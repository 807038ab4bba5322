import Foundation

#if canImport(Glibc)
import CMalloc

// A fixed mmap threshold: every allocation of 1 MiB or more is its own mapping, given back to the
// system when freed. glibc otherwise raises the threshold after each large free (up to 32 MiB), so
// the next request bodies, note contents and query results land in the request threads' arenas
// and stay resident after they are freed: twelve batches of 2 MiB notes left the server at
// 290 MiB resident on PostgreSQL and 116 MiB on SQLite, against 61 and 46 MiB with this setting.
// Setting it also fixes the trim threshold, so a freed arena top is returned too.
mallopt(M_MMAP_THRESHOLD, 1 << 20)
#endif

exit(ServerCommandLine.main(Array(CommandLine.arguments.dropFirst())))
