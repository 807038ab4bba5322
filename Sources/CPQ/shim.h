#ifndef NOTES_CPQ_SHIM_H
#define NOTES_CPQ_SHIM_H

// libpq, PostgreSQL's C client library (Debian `libpq-dev`; its headers sit in
// /usr/include/postgresql, which `pkg-config --cflags libpq` adds).
#include <libpq-fe.h>

/// The error fields of a result are character-literal macros, which Swift does not import.
static inline int notes_pq_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int notes_pq_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int notes_pq_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int notes_pq_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }

#endif
