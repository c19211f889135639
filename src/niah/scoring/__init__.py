"""The scoring stage: per-sample scores and headline figures, metric rules, judges and their stored verdicts, intervals."""
