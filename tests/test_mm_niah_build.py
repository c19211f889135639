"""MM-NIAH generator end to end: exact lengths, image counts, depth cells, determinism, official export, errors."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.mm_niah.bins import context_bin, depth_cell
from niah.benchmarks.mm_niah.build import DEFAULT_LENGTHS, SAMPLE_DRAWS, TASKS, BuildConfig, parse_length
from niah.benchmarks.mm_niah.cli import build_mm_niah
from niah.cli import app
from niah.sample import Dataset, ImagePart, TextPart, parts_text
from niah.tokens import get_image_rule, get_tokenizer
from niah.tokens.image import image_size

GRID = ["1k-2k", "2k-4k", "4k-8k", "8k-12k", "12k-16k", "16k-24k", "24k-32k", "32k-40k", "40k-48k", "48k-64k"]


@pytest.fixture(scope="module")
def grid(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("mmniah") / "ds"
    cfg = BuildConfig(lengths=GRID, per_cell=1, seed=3)
    counts = build_mm_niah(cfg, out, progress=False)
    assert counts == {t: len(GRID) * 5 for t in TASKS}
    return out


def test_every_sample_measures_exactly_its_context_length(grid: Path) -> None:
    ds = Dataset(grid)
    tok = get_tokenizer(ds.manifest["tokenizer"])
    rule = get_image_rule("internvl")
    assert ds.manifest["image_tokens_rule"] == rule.name
    n = 0
    for s in ds.iter_samples(check_media=True):
        meta = s.meta
        text_tokens = tok.count(parts_text(s.context))  # the whole context text in one call
        assert get_image_rule(meta["image_tokens_rule"]).name == rule.name  # the recorded name parses back
        images = [p for p in s.context if isinstance(p, ImagePart)]
        image_tokens = sum(rule.tokens(*image_size(ds.resolve_media(p.path))) for p in images)
        assert text_tokens == meta["text_tokens"], s.id
        assert image_tokens == meta["image_tokens"], s.id
        assert text_tokens + image_tokens == meta["context_length"] == meta["target_length"], s.id
        assert len(images) == meta["num_images"], s.id
        lo, hi = parse_length(meta["length_bin"])
        assert lo <= meta["context_length"] < max(hi, lo + 1)
        assert context_bin(meta["context_length"]) == GRID.index(meta["length_bin"])
        assert depth_cell(meta["depth"]) == meta["depth_cell"], s.id
        if s.task.endswith("-image"):
            assert images, s.id
        n += 1
    assert n == 6 * len(GRID) * 5


def test_depth_cells_are_covered_uniformly(grid: Path) -> None:
    cells: dict[tuple[str, int, int], int] = {}
    for s in Dataset(grid):
        key = (s.task, context_bin(s.meta["context_length"]), depth_cell(s.meta["depth"]))
        cells[key] = cells.get(key, 0) + 1
    assert len(cells) == 6 * len(GRID) * 5 and set(cells.values()) == {1}


def test_task_shapes(grid: Path) -> None:
    seen = set()
    for s in Dataset(grid):
        text = parts_text(s.context)
        if s.task == "retrieval-text":
            assert isinstance(s.answer, str) and s.choices is None
            assert text.count(s.meta["needles"][0]) == 1
        elif s.task == "counting-text":
            assert isinstance(s.answer, list) and 1 <= len(s.answer) <= 3
            start = 0
            for n in s.meta["needles"]:  # the needles occur in answer order (equal statements may repeat)
                start = text.index(n, start) + len(n)
            assert [int("".join(c for c in n if c.isdigit())) for n in s.meta["needles"]] == s.answer
        elif s.task == "reasoning-text":
            assert len(s.meta["needles"]) == 3 and all(n in text for n in s.meta["needles"])
        elif s.task == "retrieval-image":
            assert isinstance(s.answer, int) and len(s.choices) == 4
            assert all(isinstance(c[0], ImagePart) for c in s.choices)
            assert s.meta["needles"][0] in [p.path for p in s.context if isinstance(p, ImagePart)]
        elif s.task == "counting-image":
            assert len(s.answer) == s.meta["num_images"]
            assert 1 <= sum(1 for a in s.answer if a > 0) <= 5
        elif s.task == "reasoning-image":
            assert isinstance(s.answer, int) and 0 <= s.answer < len(s.choices)
        rest = text
        for n in s.meta["needles"]:
            rest = rest.replace(n, "")
        assert "penguin" not in rest.lower()  # the haystack itself never looks like a counting needle
        seen.add(s.task)
    assert seen == set(TASKS)


def test_official_export_invariant(grid: Path, tmp_path: Path) -> None:
    from niah.benchmarks.mm_niah.export import export_official

    counts = export_official(grid, tmp_path / "official")
    assert set(counts) == set(TASKS)
    for task in TASKS:
        lines = (tmp_path / "official" / "annotations" / f"{task}.jsonl").read_text().splitlines()
        for i, line in enumerate(lines):
            rec = json.loads(line)
            assert rec["id"] == i
            n = rec["context"].count("<image>") + rec["question"].count("<image>")
            assert n == len(rec["images_list"])
            assert all((tmp_path / "official" / "images" / p).is_file() for p in rec["images_list"])
            meta = rec["meta"]
            assert meta["context_length"] == meta["context_length_text"] + meta["context_length_image"]
            assert not (meta["choices"] and meta["choices_image_path"])
            if task in ("retrieval-image",):
                assert len(meta["choices_image_path"]) == 4
                assert all((tmp_path / "official" / "images" / p).is_file() for p in meta["choices_image_path"])


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


def test_same_seed_gives_byte_identical_datasets(tmp_path: Path) -> None:
    cfg = dict(lengths=["1k-2k", "16k-24k"], depths=[0.0, 0.8], per_cell=1)
    build_mm_niah(BuildConfig(seed=11, **cfg), tmp_path / "a", progress=False)
    build_mm_niah(BuildConfig(seed=11, **cfg), tmp_path / "b", progress=False)
    build_mm_niah(BuildConfig(seed=12, **cfg), tmp_path / "c", progress=False)
    assert _tree_digest(tmp_path / "a") == _tree_digest(tmp_path / "b")
    assert (tmp_path / "a" / "samples.jsonl").read_bytes() != (tmp_path / "c" / "samples.jsonl").read_bytes()


def test_other_tokenizers_and_image_rules_are_exact(tmp_path: Path) -> None:
    for tokenizer, rule in (("llama2-sp", "qwen2vl-28px"), ("o200k_base", "internvl-1tile")):
        out = tmp_path / tokenizer
        cfg = BuildConfig(tasks=["retrieval-text", "counting-image"], lengths=["8k"], depths=[0.4],
                          tokenizer=tokenizer, image_tokens=rule)
        build_mm_niah(cfg, out, progress=False)
        ds = Dataset(out)
        tok, img_rule = get_tokenizer(tokenizer), get_image_rule(rule)
        for s in ds:
            imgs = [p for p in s.context if isinstance(p, ImagePart)]
            total = tok.count(parts_text(s.context)) + sum(
                img_rule.tokens(*image_size(ds.resolve_media(p.path))) for p in imgs)
            assert total == 8000 == s.meta["context_length"]


def test_default_lengths_match_the_paper_bins() -> None:
    assert [context_bin(parse_length(x)[0]) for x in DEFAULT_LENGTHS] == list(range(11))


# ----------------------------------------------------------------------------------------- bad input
runner = CliRunner()


def _build_cli(out: Path, *extra: str):
    return runner.invoke(app, ["build", "mm-niah", "--out", str(out), "--no-progress", "--quiet",
                               "--tasks", "retrieval-text", "--lengths", "2k", "--depth-cells", "0.2,0.4", *extra])


def test_cli_builds_and_prints_a_summary(tmp_path: Path) -> None:
    res = runner.invoke(app, ["build", "mm-niah", "--out", str(tmp_path / "ds"), "--no-progress",
                              "--tasks", "retrieval-text,counting-text", "--lengths", "2k,4k"])
    assert res.exit_code == 0, res.output
    assert "retrieval-text" in res.output and "counting-text" in res.output
    assert len(list(Dataset(tmp_path / "ds"))) == 2 * 2 * 5


def test_corpus_line_missing_a_field(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"text": "A sentence. " * 50}) + "\n" + json.dumps({"title": "no text"}) + "\n")
    res = _build_cli(tmp_path / "out", "--corpus", f"jsonl:{corpus}")
    assert res.exit_code != 0
    assert f"{corpus}:2" in res.output and "text" in res.output
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["corpus.jsonl"]  # no half-written leftovers


def test_corpus_too_small_for_the_target(tmp_path: Path) -> None:
    corpus = tmp_path / "small.jsonl"
    corpus.write_text(json.dumps({"text": "Only a few words live here. And a few more."}) + "\n")
    res = _build_cli(tmp_path / "out", "--corpus", f"jsonl:{corpus}")
    assert res.exit_code != 0 and "not enough" in res.output
    assert not (tmp_path / "out").exists()


def test_unreadable_image_in_an_interleaved_corpus(tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "broken.jpg").write_bytes(b"not an image at all")
    text = " ".join(f"Sentence number {i} talks about rivers and hills." for i in range(400))
    row = {"texts": [text, None], "images": [None, "img/broken.jpg"]}
    corpus = tmp_path / "obelics.jsonl"
    corpus.write_text(json.dumps(row) + "\n")
    res = runner.invoke(app, ["build", "mm-niah", "--out", str(tmp_path / "out"), "--no-progress", "--quiet",
                              "--tasks", "retrieval-image", "--lengths", "4k", "--depth-cells", "0.2,0.4",
                              "--corpus", f"obelics:{corpus}"])
    assert res.exit_code != 0
    assert "broken.jpg" in res.output
    assert not (tmp_path / "out").exists()


def test_bad_options_are_clear(tmp_path: Path) -> None:
    res = _build_cli(tmp_path / "o1", "--tokenizer", "nope")
    assert res.exit_code != 0 and "unknown tokenizer" in res.output
    res = runner.invoke(app, ["build", "mm-niah", "--out", str(tmp_path / "o2"), "--tasks", "finding-nemo"])
    assert res.exit_code != 0 and "unknown task" in res.output
    res = runner.invoke(app, ["build", "mm-niah", "--out", str(tmp_path / "o3"), "--distractors", "21"])
    assert res.exit_code != 0 and "--distractors must be a whole number in 0..20" in res.output
    assert not any((tmp_path / name).exists() for name in ("o1", "o2", "o3"))


def test_text_parts_never_contain_the_image_placeholder(grid: Path) -> None:
    for s in Dataset(grid):
        assert all("<image>" not in p.text for p in s.context if isinstance(p, TextPart))


def test_chinese_haystack_is_exact_through_verify_and_repair(tmp_path: Path) -> None:
    cfg = BuildConfig(tasks=["retrieval-text", "counting-text"], lengths=["3k", "12k"], depths=[0.2, 0.8],
                      lang="zh")
    build_mm_niah(cfg, tmp_path / "zh", progress=False)
    tok = get_tokenizer("cl100k_base")
    samples = list(Dataset(tmp_path / "zh"))
    assert len(samples) == 8
    for s in samples:
        assert s.meta["lang"] == "zh"
        assert tok.count(parts_text(s.context)) == s.meta["text_tokens"]
        assert depth_cell(s.meta["depth"]) == s.meta["depth_cell"]


def test_niah_list_names_what_is_available() -> None:
    res = runner.invoke(app, ["list"])
    assert res.exit_code == 0
    for name in ("retrieval-image", "llama2-sp", "qwen2vl-28px", "openai:", "milebench/rouge-l"):
        assert name in res.output


def test_local_hf_tokenizer_json_is_exact(tmp_path: Path) -> None:
    """A local tokenizer.json (a byte-level BPE trained here) goes through the verify-and-repair path."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    from niah.corpus import load_corpus

    docs = [" ".join(d.paragraphs) for _, d in zip(range(40), load_corpus("default").documents(), strict=False)]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.train_from_iterator(docs, trainers.BpeTrainer(vocab_size=600, show_progress=False,
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok.save(str(tmp_path / "tokenizer.json"))
    cfg = BuildConfig(tasks=["retrieval-text", "reasoning-text"], lengths=["4k"], depths=[0.4],
                      tokenizer=f"hf:{tmp_path / 'tokenizer.json'}")
    build_mm_niah(cfg, tmp_path / "ds", progress=False)
    hf = get_tokenizer(f"hf:{tmp_path / 'tokenizer.json'}")
    for s in Dataset(tmp_path / "ds"):
        assert hf.count(parts_text(s.context)) == s.meta["text_tokens"]
        assert s.meta["context_length"] == 4000


def test_exact_short_length_completes_and_records_an_unreachable_depth_cell(tmp_path: Path) -> None:
    """At exactly 1000 tokens an image (>= 256 tokens) cannot start at depth >= 0.8: the build completes,
    the sample goes to a cell that exists (dealt evenly over them), and both the sample and the manifest say so."""
    cfg = BuildConfig(tasks=["retrieval-image", "counting-image"], lengths=["1k"], depths=[0.6, 0.8])
    build_mm_niah(cfg, tmp_path / "ds", progress=False)
    ds = Dataset(tmp_path / "ds")
    samples = list(ds)
    assert len(samples) == 4
    moved = [s for s in samples if "requested_depth_cell" in s.meta]
    assert len(moved) == 2 and all(s.meta["requested_depth_cell"] == 4 and s.meta["depth_cell"] < 4 for s in moved)
    for s in samples:
        assert s.meta["context_length"] == 1000
        assert depth_cell(s.meta["depth"]) == s.meta["depth_cell"]
    assert len(ds.manifest["warnings"]) == 2 and "cannot exist" in ds.manifest["warnings"][0]


def test_an_unreachable_depth_cell_is_dealt_over_the_cells_that_exist() -> None:
    """A 1K build's cell-4 requests go to cells 0-3 evenly (all to the deepest one, cell 3 held two samples in
    five, each with its one needle image last: the audit's image-position and constant-count cues)."""
    from collections import Counter

    from niah.benchmarks.mm_niah.build import MMNIAHBuilder, plan_grid

    cfg = BuildConfig(tasks=["counting-image"], lengths=["1k"], depths=[0.8], per_cell=40)
    builder = MMNIAHBuilder(cfg, lambda rel, data: rel)
    plans = plan_grid(cfg, builder.key)
    for plan in plans:
        builder._fit_target(plan)
    assert Counter(p.cell for p in plans) == {0: 10, 1: 10, 2: 10, 3: 10}
    assert all(p.requested_cell == 4 for p in plans)


def test_vectorized_depth_cells_match_the_official_rule() -> None:
    import numpy as np

    from niah.benchmarks.mm_niah.bins import depth_cells

    d = np.array([0.0, 0.19999, 0.2, 0.4, 0.6, 0.6000001, 0.8, 0.99, 1.0])
    assert depth_cells(d).tolist() == [depth_cell(float(x)) for x in d] == [0, 0, 1, 2, 2, 3, 4, 4, 4]


# ------------------------------------------------------------- samples a model cannot game (issue 9)
def test_needles_are_never_pinned_to_the_start(grid: Path) -> None:
    """Depths are random given the cell: a needle at depth < 0.001 is as rare as random placement makes it
    (the old spread put the first of three needles at exactly 0 whenever the mean was below 0.3)."""
    multi = [s for s in Dataset(grid) if len(s.meta["depth"]) > 1]
    long = [s for s in multi if s.meta["context_length"] >= 8000]
    assert len(long) >= 60
    assert sum(min(s.meta["depth"]) < 0.001 for s in long) / len(long) <= 0.02
    # a text needle never opens the context; an image may (haystack images stand first as often as needle images)
    first = [s for s in multi if s.meta["depth_cell"] == 0 and s.task.endswith("-text")]
    assert first and all(min(s.meta["depth"]) > 0 for s in first)


def test_depth_draws_are_uniform_given_the_mean_cell() -> None:
    """draw_depths matches an independent sampler of k uniform depths conditioned on the mean's cell."""
    import random

    import numpy as np

    from niah.benchmarks.mm_niah.build import DEPTH_MARGIN, draw_depths

    rng = random.Random(0)
    ref = np.sort(np.random.default_rng(0).random((400_000, 3)), axis=1)
    means = ref.mean(axis=1)
    for cell in range(5):
        lo, hi = cell * 0.2 + DEPTH_MARGIN, cell * 0.2 + 0.2 - DEPTH_MARGIN
        kept = ref[(means >= lo) & (means <= hi)]
        draws = np.array([draw_depths(rng, 3, cell) for _ in range(600)])
        assert all(depth_cell(list(d)) == cell for d in draws)
        assert (np.diff(draws, axis=1) >= 0).all()
        # the smallest and largest depth and the spacing vary as in the reference, not a fixed pattern
        for col in (draws[:, 0], draws[:, 2], draws[:, 1] - draws[:, 0]):
            assert col.std() > 0.02
        assert abs(draws[:, 0].mean() - kept[:, 0].mean()) < 0.02
        assert abs(draws[:, 2].mean() - kept[:, 2].mean()) < 0.02
        assert abs((draws[:, 0] < 0.01).mean() - (kept[:, 0] < 0.01).mean()) < 0.03


def test_contexts_end_on_sentences_with_paragraphs_and_separators(grid: Path) -> None:
    from niah.build.haystack import DEFAULT_DOC_SEPARATOR, ends_sentence

    ds = Dataset(grid)
    samples = list(ds)
    texts = {s.id: parts_text(s.context) for s in samples}
    ends = [ends_sentence(texts[s.id]) for s in samples]
    assert sum(ends) / len(samples) >= 0.98
    assert [s.meta["sentence_end"] for s in samples] == ends
    assert ds.manifest["context_endings"] == {"sentence": sum(ends), "word_cut": len(ends) - sum(ends)}
    assert ds.manifest["build"]["doc_separator"] == DEFAULT_DOC_SEPARATOR
    for s in samples:
        if s.meta["context_length"] >= 8000:  # several documents, each with several paragraphs
            assert DEFAULT_DOC_SEPARATOR in texts[s.id] and texts[s.id].count("\n\n") >= 4, s.id
        assert not texts[s.id].endswith(DEFAULT_DOC_SEPARATOR.rstrip()), s.id


def test_official_format_separates_documents_with_eos_and_stays_exact(tmp_path: Path) -> None:
    cfg = BuildConfig(tasks=["retrieval-text", "counting-image"], lengths=["6k"], depths=[0.4])
    build_mm_niah(cfg, tmp_path / "off", fmt="official", progress=False)
    tok = get_tokenizer("cl100k_base")
    for task in cfg.tasks:
        rec = json.loads((tmp_path / "off" / "annotations" / f"{task}.jsonl").read_text().splitlines()[0])
        assert "</s>" in rec["context"] and "---" not in rec["context"]
        assert tok.count(rec["context"].replace("<image>", "")) == rec["meta"]["context_length_text"]
        assert rec["meta"]["context_length"] == 6000


def test_reasoning_text_is_open_ended_by_default(grid: Path, tmp_path: Path) -> None:
    from niah.benchmarks.mm_niah.needles import _contains_words

    rs = [s for s in Dataset(grid) if s.task == "reasoning-text"]
    assert rs and all(isinstance(s.answer, str) and s.choices is None for s in rs)
    assert not any(_contains_words(parts_text(s.question), s.answer) for s in rs)  # an echo never scores
    cfg = BuildConfig(tasks=["reasoning-text"], lengths=["2k"], per_cell=4, reasoning_choices=True)
    build_mm_niah(cfg, tmp_path / "mc", progress=False)
    mc = [s for s in Dataset(tmp_path / "mc") if s.choices is not None]
    assert mc and all(isinstance(s.answer, int) and 0 <= s.answer < len(s.choices) for s in mc)


def test_counting_image_follows_the_papers_distribution(grid: Path) -> None:
    """Several images even in short documents, at most 5 of them with cartoons (the paper), and no count more
    frequent than another, so that a constant reply scores what a blind guess does."""
    from niah.benchmarks.mm_niah.build import COUNTING_MAX_IMAGES, max_needle_images

    samples = [s for s in Dataset(grid) if s.task == "counting-image"]
    values: list[int] = []
    for s in samples:
        n, pasted = len(s.answer), sum(1 for a in s.answer if a > 0)
        assert n == s.meta["num_images"] >= 2, s.id
        assert 1 <= pasted <= min(n, COUNTING_MAX_IMAGES) <= 5 and set(s.answer) <= {0, 1, 2, 3}, s.id
        values.extend(s.answer)
    assert max(values.count(v) for v in range(4)) / len(values) < 0.34
    # a short context cannot put many needle images in its last cell (the images themselves cost tokens)
    assert max_needle_images([256] * 3, 1600, 4) == 1 and max_needle_images([256] * 3, 30000, 4) == 3


def test_no_images_builds_text_only_grids(tmp_path: Path) -> None:
    res = runner.invoke(app, ["build", "mm-niah", "--out", str(tmp_path / "ds"), "--no-progress", "--quiet",
                              "--lengths", "4k", "--depth-cells", "0.4,0.6", "--no-images"])
    assert res.exit_code == 0, res.output
    samples = list(Dataset(tmp_path / "ds"))
    assert {s.task for s in samples} == {"retrieval-text", "counting-text", "reasoning-text"}
    assert all(s.meta["num_images"] == 0 and s.meta["image_tokens"] == 0 for s in samples)
    assert not any(isinstance(p, ImagePart) for s in samples for p in s.context)


def test_zero_text_tokens_per_image_is_refused_with_the_way_out(tmp_path: Path) -> None:
    res = _build_cli(tmp_path / "o1", "--text-tokens-per-image", "0")
    assert res.exit_code != 0 and "--no-images" in res.output
    res = _build_cli(tmp_path / "o2", "--no-images", "--tasks", "retrieval-image")
    assert res.exit_code != 0 and "need images" in res.output
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_categorical_golds_are_dealt_evenly_per_task(grid: Path) -> None:
    """retrieval-image's correct option and counting-text's counts and statement numbers come from balanced
    decks over the task's grid (drawn per sample, 55 samples put 17 correct options on one of four places)."""
    from collections import Counter

    samples = list(Dataset(grid))

    def spread(counts: Counter[int], values: range) -> int:
        return max(counts[v] for v in values) - min(counts[v] for v in values)

    positions = Counter(s.answer for s in samples if s.task == "retrieval-image")
    assert spread(positions, range(4)) <= 1, positions
    counting = [s.answer for s in samples if s.task == "counting-text"]
    assert spread(Counter(len(a) for a in counting), range(1, 4)) <= 1
    assert spread(Counter(c for a in counting for c in a), range(1, 11)) <= 1
    for depth in range(5):  # no depth row one-sided either
        in_row = Counter(s.answer for s in samples if s.task == "retrieval-image"
                         and s.meta.get("requested_depth_cell", s.meta["depth_cell"]) == depth)
        assert spread(in_row, range(4)) <= 1, (depth, in_row)


def test_reasoning_image_answers_are_dealt_per_puzzle_kind(tmp_path: Path) -> None:
    """Each puzzle kind asks its own question text, so its answers are balanced on their own (one deck over
    the task left 25 two-option jigsaws at 15/10: the most frequent answer per question scored 54.5 against
    46.5), and the kinds themselves are dealt over the grid."""
    from collections import Counter

    out = tmp_path / "ds"
    build_mm_niah(BuildConfig(per_cell=1, seed=0, tasks=("reasoning-image",)), out, progress=False)
    samples = list(Dataset(out))
    kinds = Counter(s.meta["puzzle_kind"] for s in samples)
    # kinds are dealt, but short contexts fit only plain jigsaws, so fallbacks make jigsaws the most common
    assert len(samples) == 55 and set(kinds) == {"jigsaw", "jigsaw-panel", "camera-motion"}, kinds
    for kind in ("jigsaw", "camera-motion"):  # two options each; a position that fell back draws at random
        answers = Counter(s.answer for s in samples if s.meta["puzzle_kind"] == kind)
        assert abs(answers[0] - answers[1]) <= 2, (kind, answers)


def test_a_depth_that_is_no_cell_edge_is_refused_naming_the_cells() -> None:
    from niah.util.errors import ConfigError

    with pytest.raises(ConfigError, match=r"--depths 0.3 is not an official depth cell: .*0, 0.2, 0.4, 0.6, 0.8.*"
                                          r"lies in the cell from 0.2"):
        BuildConfig(tasks=["retrieval-text"], lengths=["1k"], depths=[0.3]).validate()
    BuildConfig(tasks=["retrieval-text"], lengths=["1k"], depths=[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]).validate()


def test_every_media_file_is_named_by_a_sample(grid: Path) -> None:
    """A redrawn sample stores none of its images: the media folder holds exactly what the samples show (an
    export to a harness, which copies named files only, then loses nothing)."""
    named = {p.path for s in Dataset(grid) for parts in (s.context, s.question, *(s.choices or []))
             for p in parts if isinstance(p, ImagePart)}
    stored = {str(f.relative_to(grid)) for f in (grid / "media").rglob("*") if f.is_file()}
    assert stored == named


def test_a_sample_that_cannot_be_drawn_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Corpus pictures too plain for every reasoning puzzle: the error names that, not only the depth cell."""
    from niah.benchmarks.mm_niah import needle_images
    from niah.util.errors import ConfigError

    def plain(*_args: object, **_kwargs: object) -> None:
        raise ConfigError("the source is too uniform for a camera-motion pair")

    monkeypatch.setattr(needle_images, "make_reasoning_image", plain)
    cfg = BuildConfig(tasks=["reasoning-image"], lengths=["2k"], depths=[0.4], per_cell=1)
    with pytest.raises(ConfigError, match=rf"reasoning-image: no sample .* in {SAMPLE_DRAWS} draws: no puzzle from the "
                                          rf"corpus image drawn \(the source is too uniform.*needs pictures with texture\) "
                                          rf"\({SAMPLE_DRAWS} of {SAMPLE_DRAWS}\)"):
        build_mm_niah(cfg, tmp_path / "ds", progress=False)
