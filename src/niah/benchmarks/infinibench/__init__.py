"""InfiniBench (very long video QA): official QA files to niah samples, the rule-based option matcher, the
v1 and v2 judge protocols and the official aggregation. See docs/infinibench.md."""
