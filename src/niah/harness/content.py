"""Whether a harness log answers the dataset it is imported against: each sample's target, and where the log
holds them its inputs (the sample a niah export put in the doc or the task metadata), checked against the
dataset's sample before a reply is kept.

A log of another dataset with the same ids (another build, another seed) would otherwise import cleanly and be
scored against golds it never saw. The check reads only what the log itself says; a field the log leaves out (or
an empty target) is not checked (foreign tasks log no niah sample key), a field it holds must agree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from niah.errors import DataError
from niah.harness.logs import HarnessLog, HarnessReply
from niah.sample import Dataset, Sample

#: The inspect task's metadata key holding the sample's content key (:meth:`niah.sample.Sample.content_key`).
SAMPLE_KEY_FIELD = "niah_sample_key"


def _gold_text(sample: Sample) -> str:
    from niah.models.baselines import format_gold

    return "" if sample.answer is None else format_gold(sample.answer)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return repr(text[:80] + ("..." if len(text) > 80 else ""))


def _target_mismatch(target: Any, sample: Sample, field: str) -> tuple[str, str] | None:
    expected = _gold_text(sample)
    targets = target if isinstance(target, list) else [target]
    if not all(isinstance(t, str) for t in targets):
        return field, f"must be a string or a list of strings, not {type(target).__name__}"
    if not any(targets):  # an empty target states no gold (a task without targets): nothing to compare
        return None
    if expected not in targets:
        return field, (f"the log's target {_short(target)} is not the gold of sample {sample.id!r} in the dataset "
                       f"({_short(expected)}): the log answers another dataset's sample")
    return None


def _same_names(found: Mapping[str, Any], sample: Sample, prefix: str) -> tuple[str, str] | None:
    for name in ("task", "benchmark"):
        value = found.get(name)
        if value is not None and value != getattr(sample, name):
            return f"{prefix}{name}", (f"the log's {name} {_short(value)} is not sample {sample.id!r}'s "
                                       f"({getattr(sample, name)!r} in the dataset)")
    return None


def reply_mismatch(reply: HarnessReply, sample: Sample, harness: str) -> tuple[str, str] | None:
    """(field, why) when what ``reply``'s log records about its sample disagrees with ``sample``; None when it
    agrees or records nothing to compare."""
    evidence = reply.evidence or {}
    key = sample.content_key()
    if harness == "lmms-eval":
        doc = evidence.get("doc")
        if isinstance(doc, dict):
            found = _same_names(doc, sample, "doc.")
            if found is not None:
                return found
            embedded = doc.get("sample")
            if isinstance(embedded, str):  # a niah export's doc holds the whole sample (input and gold)
                try:
                    theirs = Sample.from_json(json.loads(embedded)).content_key()
                except (ValueError, DataError, RecursionError):
                    return "doc.sample", "is not the sample JSON a niah export writes"
                if theirs != key:
                    return "doc.sample", (f"the log's sample {sample.id!r} differs from the dataset's (its input "
                                          "or gold): the log answers another dataset's sample")
            if "target" in doc:
                found = _target_mismatch(doc["target"], sample, "doc.target")
                if found is not None:
                    return found
        if "target" in evidence:
            return _target_mismatch(evidence["target"], sample, "target")
        return None
    metadata = evidence.get("metadata")
    if isinstance(metadata, dict):
        recorded = metadata.get(SAMPLE_KEY_FIELD)
        if isinstance(recorded, str) and recorded != key:
            return f"metadata.{SAMPLE_KEY_FIELD}", (f"the log's sample {sample.id!r} differs from the dataset's (its "
                                                    "input or gold): the log answers another dataset's sample")
        found = _same_names(metadata, sample, "metadata.")
        if found is not None:
            return found
    if "target" in evidence:
        return _target_mismatch(evidence["target"], sample, "target")
    return None


def check_log_content(log: HarnessLog, replies: Mapping[str, HarnessReply], dataset: Dataset) -> None:
    """Raise a DataError naming the log file, line (or member) and field of the first reply, in dataset order,
    whose log records a sample other than the dataset's (:func:`reply_mismatch`)."""
    for sample in dataset:
        reply = replies.get(sample.id)
        if reply is None:
            continue
        found = reply_mismatch(reply, sample, log.harness)
        if found is not None:
            field, why = found
            raise reply.located(why, field)
