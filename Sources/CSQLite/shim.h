#ifndef NOTES_CSQLITE_SHIM_H
#define NOTES_CSQLITE_SHIM_H

#include <sqlite3.h>

/// `SQLITE_TRANSIENT` is a macro casting -1 to a destructor pointer, which Swift cannot import:
/// SQLite must copy bound text and blobs whose Swift buffers are only valid during the call.
static inline sqlite3_destructor_type notes_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
