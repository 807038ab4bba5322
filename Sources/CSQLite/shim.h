#ifndef NOTES_CSQLITE_SHIM_H
#define NOTES_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a destructor pointer, which Swift cannot import:
/// SQLite must copy bound text and blobs whose Swift buffers are only valid during the call.
static inline sqlite3_destructor_type notes_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/// `sqlite3_config` is C-variadic, which Swift cannot call. Memory statistics off: SQLite then
/// allocates without taking its global memory mutex, about a hundred times a note written. Only
/// before SQLite's first use (any open); later it answers `SQLITE_MISUSE` and changes nothing.
static inline int notes_sqlite_memory_statistics_off(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
