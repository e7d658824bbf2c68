"""The ways to run pi-tui besides the TUI, one module each: one headless prompt (`print_mode`, `-p`), the
offline commands over a session file (`sessions`, `show`, `context`, `query`, on the engine `offline`
builds), `replay` and `whatif`.

They sit on the core (agent, session, engine, model access) and nothing in the core or the TUI imports
them: `pi-tui` with no arguments never loads this package.
"""
