"""The TUI's widgets: transcript and its blocks, editor, completion, footer, status rows."""
