// Placeholder entry point; replaced by the server application.
print("notes-server")
