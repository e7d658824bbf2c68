"""The conversation as pi-tui shows it, without a UI toolkit: the model the transcript is a bounded view of
(`model`), a tool call's one-line subject (`call_subject`) and the plain-text form `show` and branch
summaries print (`text`). Widgets render it; nothing here imports textual."""
