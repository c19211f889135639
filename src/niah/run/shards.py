"""Shards of a run: ``niah run --shard I/N`` answers every N-th selected sample, starting at the I-th (0-based),
so that N jobs (a Slurm array, any scheduler) split one grid and ``niah merge`` joins their run directories.

The partition is by position in the selection (the dataset's samples in file order, after ``--tasks`` and
``--limit``): sample k belongs to shard ``k mod N``. It depends only on the dataset and the selection, which a
sharded run records in ``run.json`` (``config.shard``), so a rerun of a shard resumes exactly its samples,
shards differ in size by at most one sample, and neighbouring grid cells (a length bin's samples stand together)
spread over every shard.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from niah.util.errors import ConfigError

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` of ``count`` (0 <= index < count)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ConfigError(f"a shard count must be at least 1, not {self.count}")
        if not 0 <= self.index < self.count:
            raise ConfigError(f"shard index {self.index} is not in 0..{self.count - 1} (I/N counts from 0: "
                              f"0/{self.count} .. {self.count - 1}/{self.count})")

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"I/N"`` (e.g. ``"0/4"``; with Slurm: ``$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`` for
        ``--array=0-3``)."""
        match = _SHARD.fullmatch(text)
        if match is None:
            raise ConfigError(f"--shard {text!r} must look like I/N, e.g. 0/4 (shard I of N, I from 0 to N-1)")
        return cls(int(match.group(1)), int(match.group(2)))

    def holds(self, position: int) -> bool:
        """Whether the sample at 0-based ``position`` of the selection belongs to this shard."""
        return shard_of(position, self.count) == self.index

    def size(self, selected: int) -> int:
        """How many of ``selected`` samples this shard holds."""
        return len(range(self.index, selected, self.count))

    def label(self) -> str:
        return f"{self.index}/{self.count}"

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "count": self.count}


def shard_of(position: int, count: int) -> int:
    """The shard (of ``count``) that holds the sample at 0-based ``position`` of the selection."""
    return position % count
