"""A Pi user's files, read as Pi reads them: skills, prompt templates, context files, SYSTEM.md.

`places` says where they live (Pi's folders and pi-tui's), each other module reads one kind, and
`loader.load_resources` reads them all for a working folder.
"""

from pi_tui.resources.loader import Resources, load_resources

__all__ = ["Resources", "load_resources"]
