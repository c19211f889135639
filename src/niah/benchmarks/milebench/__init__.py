"""MileBench: official data loading and official-format scoring (``niah.benchmarks.milebench.official``)."""
