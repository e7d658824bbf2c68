"""Test-only helpers shared by the whole suite (fake provider server, fixtures)."""
