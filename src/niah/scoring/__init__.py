"""The scoring stage: per-sample scores and headline figures (:mod:`.score`, entry point ``score_run``), metric
rules (:mod:`.metrics`), judges and their stored verdicts (:mod:`.judges`, :mod:`.verdicts`), intervals
(:mod:`.stats`). This package imports nothing itself: the metric rules sit below the family protocol, which must
not pull the scoring stage in with them."""
