"""condense: the context pruning engine.

Depends on the standard library and pydantic only; it never imports textual or litellm and reaches
its agent through the small Protocol in `condense.host`.
"""
