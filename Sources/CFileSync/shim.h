#ifndef NOTES_CFILESYNC_SHIM_H
#define NOTES_CFILESYNC_SHIM_H

// Linux's syncfs(2) (flush one file system), which Swift's Glibc module leaves out (glibc
// declares it only under _GNU_SOURCE). Part of libc: nothing to link. Absent elsewhere, where
// callers fsync each file instead.
#if defined(__linux__)
int syncfs(int fd);
#endif

#endif
