"""The offline demo: a scripted model that works on a copy of a bundled sample project.

It is what a new user sees when no API key is configured, and what tests and benchmarks drive end to
end: real tools, real files, a realistic session shape, and no network.
"""
