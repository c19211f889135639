"""niah: build, run, score and report long-context needle-in-a-haystack benchmarks."""

__version__ = "0.1.0"
