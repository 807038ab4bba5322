// Placeholder entry point; the lead replaces it on merge.
print("notes-server")
