"""The one exception family the CLI turns into a single line on stderr instead of a traceback."""


class UserError(Exception):
    """Something the user can fix; the message is the whole explanation."""


def printable(text: str) -> str:
    """`text` safe to show in a one-line message: control characters (a line break, a terminal escape
    from a hostile file) are written as their Python escapes instead of reaching the terminal."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
