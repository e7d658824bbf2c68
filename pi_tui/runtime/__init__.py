"""The headless agent as the command line asked for it: which model, session and folder (`launch`), and
the host, engine, tools and settings assembled from them (`build`). The TUI, print mode and the reliability
suite all run on what `build_runtime` returns; nothing here imports the UI toolkit."""
