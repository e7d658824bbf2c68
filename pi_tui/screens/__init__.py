"""The TUI's screens: the main screen and the overlays (pickers, settings forms, /pruner tree)."""
