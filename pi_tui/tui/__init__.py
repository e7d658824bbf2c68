"""The Textual app: the shell that owns the screen (`app`), the first frame before the runtime is built
(`first_screen`), and the adapter that turns a running host's events into transcript, status and footer
updates (`live`). The widgets and screens it composes are `pi_tui.widgets` and `pi_tui.screens`."""
