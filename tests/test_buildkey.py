"""Build keys: every builder's draws follow everything that makes the build, the corpus content included, so a
table learned from one build does not answer a build from another corpus (or another needle kind) with the same
seed; the same inputs still give the same bytes, and the manifest records the key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from niah.build.buildkey import build_key, path_digest, pool_digest, text_digest
from niah.corpus import load_corpus
from niah.sample import Dataset, parts_text


@pytest.fixture(scope="module")
def other_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of text files niah does not ship: embedded English documents, paragraphs in reverse order."""
    folder = tmp_path_factory.mktemp("corpus") / "texts"
    folder.mkdir()
    for index, doc in enumerate(load_corpus("default", lang="en").documents()):
        if index == 60:
            break
        (folder / f"doc{index:03d}.txt").write_text("\n\n".join(reversed(doc.paragraphs)) + "\n", encoding="utf-8")
    return folder


def _bytes(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def test_the_key_follows_every_input_and_only_them() -> None:
    base = build_key("b", 0, {"lengths": (1, 2), "corpus_text": "abc", "opt": None})
    assert build_key("b", 0, {"corpus_text": "abc", "lengths": [1, 2], "opt": None}) == base  # order, tuple/list
    others = [build_key("b", 1, {"lengths": (1, 2), "corpus_text": "abc", "opt": None}),
              build_key("c", 0, {"lengths": (1, 2), "corpus_text": "abc", "opt": None}),
              build_key("b", 0, {"lengths": (2, 1), "corpus_text": "abc", "opt": None}),
              build_key("b", 0, {"lengths": (1, 2), "corpus_text": "abd", "opt": None}),
              build_key("b", 0, {"lengths": (1, 2), "corpus_text": "abc", "opt": False})]
    assert len({k.digest for k in [base, *others]}) == 6
    assert base.seed_of("t", 1) == base.seed_of("t", 1) != base.seed_of("t", 2)
    assert base.random("x").random() == base.random("x").random() != base.random("y").random()
    assert base.label("task", "golds").startswith(base.digest)
    with pytest.raises(TypeError, match="canonical"):
        build_key("b", 0, {"thing": object()})


def test_content_digests_see_boundaries_and_content_not_paths(tmp_path: Path) -> None:
    assert text_digest(["ab", "c"]) != text_digest(["a", "bc"])
    assert pool_digest(["a", "b"], [0, 1, 2]) != pool_digest(["a", "b"], [0, 2])
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
        (folder / "a.txt").write_text("same text", encoding="utf-8")
    assert path_digest(one) == path_digest(two) and path_digest(one / "a.txt") == path_digest(two / "a.txt")
    (two / "a.txt").write_text("other text", encoding="utf-8")
    assert path_digest(one) != path_digest(two)


def test_milebench_passkeys_follow_the_corpus(tmp_path: Path, other_corpus: Path) -> None:
    from niah.benchmarks.milebench.build import build_milebench_niah

    options = {"lengths": (2048,), "per_length": 8, "tasks": ("TextNeedleInAHaystack",), "images_per_sample": 1,
               "seed": 0}
    build_milebench_niah(tmp_path / "a", **options)  # type: ignore[arg-type]
    build_milebench_niah(tmp_path / "again", **options)  # type: ignore[arg-type]
    build_milebench_niah(tmp_path / "other", corpus=str(other_corpus), **options)  # type: ignore[arg-type]
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "again")
    keys = {name: {s.answer for s in Dataset(tmp_path / name)} for name in ("a", "other")}
    # keyed on the seed alone, the two builds shared every passkey
    assert len(keys["a"]) == 8 and not keys["a"] & keys["other"]
    manifests = [Dataset(tmp_path / name).manifest["build_key"] for name in ("a", "again", "other")]
    assert manifests[0] == manifests[1] != manifests[2] and len(manifests[0]) == 64


def test_mm_niah_questions_and_answers_follow_the_corpus(tmp_path: Path, other_corpus: Path) -> None:
    from niah.benchmarks.mm_niah.build import BuildConfig
    from niah.benchmarks.mm_niah.cli import build_mm_niah

    def pairs(corpus: str, out: Path) -> set[tuple[str, str]]:
        cfg = BuildConfig(tasks=("retrieval-text", "reasoning-text"), lengths=("1k-2k",), per_cell=2, seed=0,
                          corpus=corpus, images=False)
        build_mm_niah(cfg, out, progress=False)
        return {(parts_text(s.question), json.dumps(s.answer)) for s in Dataset(out)}

    default, other = pairs("default", tmp_path / "a"), pairs(str(other_corpus), tmp_path / "b")
    # keyed on the seed alone, 16 of these 20 question -> answer pairs were the same
    assert len(default) == 20 and len(default & other) <= 2
    keys = {Dataset(tmp_path / name).manifest["build"].get("build_key") for name in ("a", "b")}
    assert len(keys) == 2 and all(isinstance(k, str) and len(k) == 64 for k in keys)


def test_video_niah_draws_follow_the_needle_kind(tmp_path: Path) -> None:
    from niah.benchmarks.video_niah.build import build

    options = {"durations": "30s", "width": 160, "height": 96, "seed": 0, "frames": "all", "tasks": "ordering",
               "per_cell": 2}
    build(tmp_path / "overlay", options, False)
    build(tmp_path / "subtitle", {**options, "needle": "subtitle"}, False)

    def options_of(name: str) -> list[frozenset[str]]:
        return [frozenset(s.meta["options"]) for s in Dataset(tmp_path / name)]

    overlay, subtitle = options_of("overlay"), options_of("subtitle")
    # keyed on the seed, task and row alone, every sample showed the same two words (at the same frames)
    assert len(overlay) == 10 and sum(a == b for a, b in zip(overlay, subtitle, strict=True)) <= 1


def test_seq_niah_questions_follow_the_corpus(tmp_path: Path, other_corpus: Path) -> None:
    from niah.benchmarks.seq_niah.build import build_seq_niah

    def answers(corpus: str, out: Path) -> list[str]:
        build_seq_niah(out, langs=("en",), lengths=("8k-16k",), needles="3-5", per_cell=3, seed=0, corpus=corpus,
                       progress=False)
        return [str(s.answer) for s in Dataset(out)]

    default, other = answers("default", tmp_path / "a"), answers(str(other_corpus), tmp_path / "b")
    # keyed on the seed alone, the synthetic questions and answers were the same
    assert len(default) == 3 and not set(default) & set(other)
    keys = {Dataset(tmp_path / name).manifest.get("build_key") for name in ("a", "b")}
    assert len(keys) == 2 and all(isinstance(k, str) and len(k) == 64 for k in keys)
