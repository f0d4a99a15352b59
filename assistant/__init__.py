"""Docs Assistant: answers questions from product documentation, release by release, with sources."""

__version__ = "0.1.0"
