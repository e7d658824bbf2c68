"""The per-request transform: what the model sees of the conversation, rendered from the index.

Phases, in order: stub replacement, error purge, chain range prune, orphan sweep. Each returns the
very list it was given when it changes nothing, so an unchanged render costs no copies and no
serialisation, and the request stays byte-identical for the provider's prompt cache.
"""
