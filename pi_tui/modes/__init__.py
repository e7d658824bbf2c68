"""The ways to run pi-tui besides the TUI: one headless prompt (`-p`), `replay` and `whatif`.

They sit on the core (agent, session, engine, model access) and nothing in the core or the TUI imports
them: `pi-tui` with no arguments never loads this package.
"""
