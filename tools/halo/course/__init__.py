"""The instructor's side: assignments, releases, class grading and what goes back to students."""
