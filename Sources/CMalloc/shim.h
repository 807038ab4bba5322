#ifndef NOTES_CMALLOC_SHIM_H
#define NOTES_CMALLOC_SHIM_H

// glibc's malloc tuning (mallopt), which Swift's Glibc module does not expose. Part of libc:
// nothing to link. Absent elsewhere (macOS has no <malloc.h>), where callers skip the tuning.
#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

#endif
