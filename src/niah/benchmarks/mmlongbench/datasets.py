"""MMLongBench's data sets: official file names, categories, metrics, sample counts and decoding lengths.

The official configs (``configs/*_all.yaml``) list every test file as ``<folder>/<name>_K<k>[_dep<n>].<ext>``
with ``k`` in 8, 16, 32, 64, 128 (thousand tokens, ``input_max_length`` = k x 1024) and, for the needle and
retrieval files, ``dep<n>``: each id appears n times, one row per needle depth. This module is light (no I/O).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass

from niah.util.errors import ConfigError, DataError

#: The five standardized lengths, in thousands of tokens (``K8`` .. ``K128``).
LENGTHS_K: tuple[int, ...] = (8, 16, 32, 64, 128)
LENGTH_LABELS: tuple[str, ...] = tuple(f"{k}K" for k in LENGTHS_K)
#: Tokens in one K of an official length: the configs set ``input_max_length`` to k x 1024 (8K = 8,192).
K_TOKENS = 1024
#: What ``--lengths`` accepts here, for the help and the error line.
LENGTHS_ALLOWED = (f"{', '.join(f'{k}k' for k in LENGTHS_K)} (K = {K_TOKENS} tokens: 8k names the "
                   f"{8 * K_TOKENS}-token length, and so does {8 * K_TOKENS})")


def length_bins(values: Iterable[str | int]) -> list[int]:
    """``--lengths`` in the one syntax of :mod:`niah.build.lengths`, mapped to MMLongBench's official lengths (K
    values): ``8k`` and ``8192`` both name 8K, whose samples hold 8 x 1024 tokens. (``8k`` reads as 8,000
    tokens in the shared syntax; no official length is 8,000, so it can only mean the 8K length.) A bare ``8``,
    the old K spelling, still works with a deprecation note on stderr. A range or any other length is refused
    in one line listing the official ones; a length given twice is built once."""
    from niah.build.lengths import VALID, length_items, parse_length

    ks: list[int] = []
    old_spellings: list[tuple[str, int]] = []
    for item in length_items(values):
        try:
            lo, hi = parse_length(item)
        except ConfigError:
            raise ConfigError(f"--lengths {item!r}: {VALID}; MMLongBench's lengths are {LENGTHS_ALLOWED}") from None
        if lo != hi:
            raise ConfigError(f"--lengths {item!r}: MMLongBench builds its official lengths, not ranges: "
                              f"{LENGTHS_ALLOWED}")
        if lo in LENGTHS_K:
            k = lo
            old_spellings.append((item, k))
        elif lo % K_TOKENS == 0 and lo // K_TOKENS in LENGTHS_K:
            k = lo // K_TOKENS
        elif lo % 1000 == 0 and lo // 1000 in LENGTHS_K:
            k = lo // 1000
        else:
            raise ConfigError(f"--lengths {item!r} is not an official MMLongBench length; choose from "
                              f"{LENGTHS_ALLOWED}")
        if k not in ks:
            ks.append(k)
    if old_spellings:
        print(f"note: --lengths {','.join(item for item, _ in old_spellings)} (K values) is deprecated; use "
              f"--lengths {','.join(f'{k}k' for _, k in old_spellings)}", file=sys.stderr)
    return ks

CATEGORIES: tuple[str, ...] = ("vrag", "niah", "icl", "summ", "docqa")
CATEGORY_TITLES: dict[str, str] = {
    "vrag": "Visual RAG", "niah": "NIAH", "icl": "Many-shot ICL", "summ": "Summarization", "docqa": "DocVQA",
}


@dataclass(frozen=True)
class DatasetInfo:
    """One official data set: where its files live and how it is prompted and scored.

    ``stem`` is the file name before ``_K<k>``; ``loader`` picks the record reader and ``prompt`` the official
    template (:mod:`niah.benchmarks.mmlongbench.prompt`); ``metric`` the per-sample rule; ``max_samples`` the
    config's ``max_test_samples`` (ids for files with an ``id``, else rows); ``depths`` the ``dep<n>`` the
    configs use (None: the files have no depth suffix).
    """

    name: str
    category: str
    folder: str
    stem: str
    loader: str
    prompt: str
    metric: str
    ext: str = "jsonl"
    depths: int | None = None
    max_samples: int = 100
    max_new_tokens: int = 128


def _mm_niah(task: str, modality: str, depths: int) -> DatasetInfo:
    if modality == "text":
        metric = "soft_acc" if task == "counting" else "sub_em"
        loader, prompt = "mm_niah_text", "mm_niah"
    elif task == "counting":
        metric, loader, prompt = "soft_acc", "mm_niah_image_count", "mm_niah"
    else:
        metric, loader, prompt = "mc_acc", "mm_niah_image_mc", "mm_niah_mc"
    return DatasetInfo(f"mm_niah_{task}-{modality}", "niah", "NIAH", f"{task}-{modality}_test", loader, prompt,
                       metric, depths=depths, max_samples=50)


DATASETS: dict[str, DatasetInfo] = {d.name: d for d in (
    DatasetInfo("infoseek", "vrag", "vrag", "infoseek", "vrag", "vrag", "sub_em", depths=3),
    DatasetInfo("viquae", "vrag", "vrag", "viquae", "vrag", "vrag", "sub_em", depths=6),
    DatasetInfo("vh_single", "niah", "NIAH", "vh_single_test_1000", "vh", "vh", "binary_acc", depths=6),
    DatasetInfo("vh_multi", "niah", "NIAH", "vh_multi_test_1000", "vh", "vh", "binary_acc", depths=3),
    _mm_niah("retrieval", "text", 6), _mm_niah("counting", "text", 3), _mm_niah("reasoning", "text", 3),
    _mm_niah("retrieval", "image", 6), _mm_niah("counting", "image", 3), _mm_niah("reasoning", "image", 6),
    *(DatasetInfo(name, "icl", "ICL", name, "icl", "icl", "cls_acc", ext="json")
      for name in ("cars196", "food101", "inat2021", "sun397")),
    DatasetInfo("gov-report", "summ", "summ", "gov", "gov_report", "gov_report", "summ_judge", max_new_tokens=384),
    DatasetInfo("multi-lexsum", "summ", "summ", "lexsum", "multi_lexsum", "multi_lexsum", "summ_judge",
                max_new_tokens=384),
    *(DatasetInfo(name, "docqa", "documentQA", name, "docqa", "docqa", "doc_qa")
      for name in ("longdocurl", "mmlongdoc", "slidevqa")),
)}

#: Datasets of each category, in the paper's order.
CATEGORY_DATASETS: dict[str, tuple[str, ...]] = {
    category: tuple(name for name, info in DATASETS.items() if info.category == category) for category in CATEGORIES
}
TASKS: tuple[str, ...] = tuple(DATASETS)

_BY_FILE_STEM: dict[tuple[str, str], DatasetInfo] = {(d.folder, d.stem): d for d in DATASETS.values()}
_FILE_NAME = re.compile(r"^(?P<stem>.+)_K(?P<k>\d+)(?:_dep(?P<dep>\d+))?\.(?P<ext>jsonl|json)$")


@dataclass(frozen=True)
class OfficialFile:
    """A parsed official test-file name."""

    dataset: DatasetInfo
    length_k: int
    depths: int | None

    @property
    def relative_path(self) -> str:
        dep = f"_dep{self.depths}" if self.depths is not None else ""
        return f"{self.dataset.folder}/{self.dataset.stem}_K{self.length_k}{dep}.{self.dataset.ext}"


def official_file_name(dataset: str, length_k: int) -> str:
    """The relative path the official configs use for ``dataset`` at ``length_k`` (e.g. ``NIAH/vh_single_test_1000_K8_dep6.jsonl``)."""
    info = DATASETS[dataset]
    return OfficialFile(info, length_k, info.depths).relative_path


def official_file_patterns() -> list[str]:
    """Every data set's official file name with ``<k>`` for its length (``NIAH/vh_single_test_1000_K<k>_dep6.jsonl``),
    in data-set order: the names a data folder may hold."""
    return [f"{d.folder}/{d.stem}_K<k>{f'_dep{d.depths}' if d.depths is not None else ''}.{d.ext}"
            for d in DATASETS.values()]


def parse_official_file(relative: str) -> OfficialFile:
    """``NIAH/retrieval-text_test_K8_dep6.jsonl`` -> its data set, length and depth count; a name the configs do
    not use is a :class:`DataError` that says why and lists the names that exist."""
    def refuse(reason: str) -> DataError:
        return DataError(f"{reason}; the official files are {', '.join(official_file_patterns())} (<k>: "
                         f"{', '.join(map(str, LENGTHS_K))})", file=relative)

    folder, _, base = relative.replace("\\", "/").rpartition("/")
    folder = folder.rsplit("/", 1)[-1]
    match = _FILE_NAME.match(base)
    if match is None:
        raise refuse("not an MMLongBench file name (<name>_K<8|16|32|64|128>[_dep<n>].jsonl|json)")
    info = _BY_FILE_STEM.get((folder, match["stem"]))
    if info is None:
        raise refuse(f"unknown MMLongBench data set {folder}/{match['stem']}")
    length_k = int(match["k"])
    if length_k not in LENGTHS_K:
        raise refuse(f"length K{length_k} is not one of {', '.join(f'K{k}' for k in LENGTHS_K)}")
    depths = int(match["dep"]) if match["dep"] is not None else None
    if match["ext"] != info.ext:
        raise refuse(f"{info.name} files are .{info.ext}")
    if depths != info.depths:
        expected = f"_dep{info.depths}" if info.depths is not None else "no _dep suffix"
        raise refuse(f"{info.name} files have {expected} in the official configs")
    return OfficialFile(info, length_k, depths)
