"""The package version, in one leaf module every other module may import without a cycle."""

__version__ = "0.2.0"
