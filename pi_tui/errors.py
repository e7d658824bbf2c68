"""The one exception family the CLI turns into a single line on stderr instead of a traceback."""


class UserError(Exception):
    """Something the user can fix; the message is the whole explanation."""
