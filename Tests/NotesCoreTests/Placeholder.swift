// Placeholder so the test target builds in the http worktree; dropped on merge.
