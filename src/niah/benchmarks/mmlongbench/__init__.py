"""MMLongBench: its official metric rules (``niah.benchmarks.mmlongbench.metrics``)."""
