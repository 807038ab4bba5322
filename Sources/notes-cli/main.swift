print("notes")
