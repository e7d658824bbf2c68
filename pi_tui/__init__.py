"""pi-tui: a terminal coding agent whose context is managed by the condense pruning engine.

Nothing heavy is imported here: `pi-tui --help` and the first frame must not wait for litellm.
"""

__version__ = "0.1.0"
