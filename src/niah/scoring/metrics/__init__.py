"""Scoring rules that reproduce the official benchmark scorers exactly (quirks included), plus named improved
variants. ``niah.scoring.metrics.registry`` lists every rule by name; rules come from the benchmark families."""
