"""Template engine, vocabularies and genre banks behind tools/make_corpus.py (build-time only, not shipped)."""
