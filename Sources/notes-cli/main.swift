#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Glibc)
import CMalloc

// One malloc arena. The commands run on Swift's concurrent executor, off the main thread, where
// glibc gives each thread its own arena that grows a page at a time through mprotect: rendering
// 20 MB took 25,000 mprotect calls and a third more system time than cmark's CLI. The client
// does little work on several threads at once, so one arena costs no contention worth seeing.
mallopt(M_ARENA_MAX, 1)
// A fixed mmap threshold, as the server sets (see its main.swift): an attachment's chunks and
// ranges (megabytes each, two in flight) are mappings of their own, given back when freed,
// instead of landing in the arena once glibc has raised its threshold after the first large free.
mallopt(M_MMAP_THRESHOLD, 1 << 20)
// Fixing that threshold also fixes the trim threshold, at 128 KiB: the arena then gave back the
// buffer each attachment was hashed through (up to 1 MiB, freed per file) and the next file
// faulted it in again, zeroed, page by page. Up to 1 MiB of free arena top is kept instead.
mallopt(M_TRIM_THRESHOLD, 1 << 20)
#endif

let code = await CLI.main(Array(CommandLine.arguments.dropFirst()))
exit(code.rawValue)
