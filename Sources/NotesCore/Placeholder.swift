// Placeholder so NotesCore builds in the http worktree; dropped on merge.
