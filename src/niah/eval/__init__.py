"""`niah eval --config`: several models x several benchmarks from one file."""
