"""Official Sequential-NIAH noise and result files (own fixtures in the official shapes): they import, score
and export back unchanged; imported variants are linked to their bases and scored as noise, not as ordinary
samples."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from niah.benchmarks.seq_niah.official import read_results, write_results
from niah.cli import app
from niah.sample import Dataset
from niah.scoring.stats import wilson_interval
from support.scores import official_scores
from support.seq_niah import official_record

RUNNER = CliRunner()


def _cli(*args: str) -> str:
    result = RUNNER.invoke(app, list(args))
    assert result.exit_code == 0, result.output + repr(result.exception)
    return result.output


def _lines(recs: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)


def _semantic(base: dict, number: int, noise_type: str, sentences: list[str]) -> dict:
    """A semantic-noise record as the official script writes one: look-alike sentences on their own lines
    after sentence ends of the text, ``meta_QA.insert_needles``, md5 ``{md5}_{i}``."""
    rec = json.loads(json.dumps(base))
    twn = rec["text_with_needles"]
    for k, sentence in enumerate(sentences):
        at = twn.index("story. ", 200 * (k + 1)) + len("story.")
        twn = twn[:at] + "\n" + sentence + "\n" + twn[at + 1:]
    rec["input"] = rec["input"].replace(rec["text_with_needles"], twn)
    rec["text_with_needles"] = twn
    rec["meta_QA"]["insert_needles"] = sentences
    rec["md5"] = f"{base['md5']}_{number}"
    rec["noise_type"] = noise_type
    return rec


def _noise_files(root: Path) -> tuple[Path, Path, dict]:
    base = official_record(11)
    moved = official_record(11, noise_type="little_moving")  # the same base text, md5 {md5}_1
    moved["md5"] = base["md5"] + "_1"
    variants = [moved, _semantic(base, 2, "syn_1", ["Diary of Ben Lee\n2010-11-07:I sold a car."]),
                _semantic(base, 3, "syn_2", ["Ann Lee likes long walks with friends."])]
    root.mkdir(parents=True, exist_ok=True)
    (root / "NIAH_en.jsonl").write_text(_lines([base]), encoding="utf-8")
    (root / "NIAH_en_noise.jsonl").write_text(_lines(variants), encoding="utf-8")
    return root / "NIAH_en.jsonl", root / "NIAH_en_noise.jsonl", base


def test_noise_files_import_link_and_export_unchanged(tmp_path: Path) -> None:
    data, noise, base = _noise_files(tmp_path / "official")
    _cli("import", "seq-niah", str(data), str(noise), "--out", str(tmp_path / "ds"))
    samples = {s.id: s for s in Dataset(tmp_path / "ds")}
    assert samples[base["md5"]].meta["noise_kind"] == "base"
    kinds = {sid: (s.meta.get("noise_kind"), s.meta.get("variant_of")) for sid, s in samples.items()}
    assert kinds[base["md5"] + "_1"] == ("tiny-move", base["md5"])
    assert kinds[base["md5"] + "_2"] == ("semantic", base["md5"])
    assert samples[base["md5"] + "_3"].meta["noise_sentences"] == ["Ann Lee likes long walks with friends."]
    _cli("export", "seq-niah", str(tmp_path / "ds"), "--out", str(tmp_path / "back"))
    for path in (data, noise):
        assert (tmp_path / "back" / path.name).read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_result_files_score_and_round_trip(tmp_path: Path) -> None:
    data, noise, base = _noise_files(tmp_path / "official")
    gold = base["output"]
    results = tmp_path / "infer_result.jsonl"
    results.write_text(_lines([{"md5": base["md5"], "answer": gold}]), encoding="utf-8")
    noise_results = tmp_path / "infer_noise_result.jsonl"  # the official noise results name the model
    noise_results.write_text(_lines([{"md5": base["md5"] + "_1", "ModelX": gold},
                                     {"md5": base["md5"] + "_2", "ModelX": "I could not find it."},
                                     {"md5": base["md5"] + "_3", "ModelX": gold}]), encoding="utf-8")
    out = _cli("score", str(data), str(noise), str(results), str(noise_results), "--format", "seq-niah-results",
               "--out", str(tmp_path / "scores.json"))
    assert "accuracy 100.00 over 1 samples, 3 noise variants scored as noise" in out
    scores = json.loads((tmp_path / "scores.json").read_text(encoding="utf-8"))
    assert scores["accuracy"] == 100.0 and scores["n"] == 1  # the variants are not pooled into accuracy
    kinds = scores["noise"]["kinds"]
    assert kinds["tiny-move"]["consistency"] == 100.0 and kinds["semantic"]["accuracy"] == 50.0
    assert kinds["semantic"]["consistency"] == 0.0 and kinds["all"]["bases"] == 1
    # the result files read and write back byte for byte
    for path, key in ((results, "answer"), (noise_results, "ModelX")):
        write_results(read_results(path).items(), tmp_path / "again.jsonl", key=key)
        assert (tmp_path / "again.jsonl").read_bytes() == path.read_bytes()


def test_consistency_on_an_imported_noise_run(tmp_path: Path) -> None:
    data, noise, _base = _noise_files(tmp_path / "official")
    _cli("import", "seq-niah", str(data), str(noise), "--out", str(tmp_path / "ds"))
    _cli("run", str(tmp_path / "ds"), "--model", "baseline:oracle", "--out", str(tmp_path / "run"), "--no-progress")
    _cli("score", str(tmp_path / "run"))
    scores = official_scores(tmp_path / "run" / "scores.json")
    assert scores["n"] == 1 and scores["noise_variants"] == 3
    out = _cli("noise", "consistency", str(tmp_path / "run"))
    assert "semantic   accuracy 100.00" in out and "tiny-move  accuracy 100.00" in out
    assert scores["noise"]["by_needle_group"]["3-5"]["consistency"] == 100.0  # Figure 7's groups
    _cli("report", str(tmp_path / "run"), "--out", str(tmp_path / "rep"))
    md = (tmp_path / "rep" / "tables.md").read_text(encoding="utf-8")
    assert "Figure 7 layout" in md and "| baseline:oracle | needles 3-5 | 100.0 | 100.0 | 0.0 | 1 |" in md
    _cli("export", "seq-niah", str(tmp_path / "run"), "--out", str(tmp_path / "back"), "--result-key", "ModelX")
    back = [json.loads(x) for x in (tmp_path / "back" / "infer_noise_result.jsonl").read_text().splitlines()]
    assert [r["md5"] for r in back] == [json.loads(x)["md5"] for x in noise.read_text().splitlines()]


def test_test_format_noise_file_kinds_from_the_official_numbering(tmp_path: Path) -> None:
    rec = official_record(12)
    lines = [{"md5": f"{rec['md5']}_{k}", "length": rec["length"], "question": rec["input"],
              "ref_answer": rec["output"], "raw_question": rec["meta_QA"]["question"]} for k in range(1, 13)]
    path = tmp_path / "noise_test_data_for_infer.jsonl"
    path.write_text(_lines(lines), encoding="utf-8")
    results = tmp_path / "infer_noise_result.jsonl"
    results.write_text(_lines([{"md5": r["md5"], "M": rec["output"]} for r in lines]), encoding="utf-8")
    out = _cli("score", str(path), str(results), "--format", "seq-niah-results", "--out", str(tmp_path / "s.json"))
    scores = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert scores["accuracy"] is None and scores["noise_variants"] == 12  # no base: no plain accuracy, not 0
    kinds = scores["noise"]["kinds"]
    assert {k: v["without_base"] for k, v in kinds.items()} == {"tiny-move": 1, "big-move": 1, "reorder": 1,
                                                                 "semantic": 1, "all": 1}
    assert "accuracy -" in out
    _cli("score", str(path), str(results), "--format", "seq-niah-results", "--out", str(tmp_path / "s.json"))
    _cli("import", "seq-niah", str(path), "--out", str(tmp_path / "ds"))
    _cli("export", "seq-niah", str(tmp_path / "ds"), "--out", str(tmp_path / "back"))
    assert (tmp_path / "back" / "test_data_for_infer.jsonl").read_text(encoding="utf-8") == path.read_text(
        encoding="utf-8")
    kinds_read = [s.meta["noise_kind"] for s in Dataset(tmp_path / "ds")]
    assert kinds_read == ["tiny-move"] * 3 + ["big-move"] * 3 + ["reorder"] * 3 + ["semantic"] * 3


def test_built_noise_export_has_official_md5s_and_kinds(tmp_path: Path) -> None:
    _cli("build", "seq-niah", "--out", str(tmp_path / "ds"), "--lengths", "8k-16k", "--needles", "3-5",
         "--per-cell", "1", "--lang", "en", "--no-progress")
    _cli("noise", "seq-niah", str(tmp_path / "ds"), "--out", str(tmp_path / "nz"), "--no-progress")
    _cli("export", "seq-niah", str(tmp_path / "nz"), "--out", str(tmp_path / "off"))
    base = json.loads((tmp_path / "off" / "NIAH_en.jsonl").read_text(encoding="utf-8").splitlines()[0])
    noisy = [json.loads(x) for x in (tmp_path / "off" / "NIAH_en_noise.jsonl").read_text().splitlines()]
    assert [r["md5"] for r in noisy] == [f"{base['md5']}_{i}" for i in range(1, 13)]  # none shares an md5
    assert [r["noise_type"] for r in noisy] == ["little_moving"] * 3 + ["large_moving"] * 3 + ["order"] * 3 + [
        "syn_1", "syn_2", "syn_1+2"]
    semantic = noisy[9:]
    assert [len(r["meta_QA"]["insert_needles"]) for r in semantic] == [1, 1, 2]
    assert all(r["meta_text"]["raw_text"] == base["meta_text"]["raw_text"] for r in noisy)
    # and back: the exported files import and export unchanged
    _cli("import", "seq-niah", str(tmp_path / "off" / "NIAH_en.jsonl"), str(tmp_path / "off" / "NIAH_en_noise.jsonl"),
         "--out", str(tmp_path / "ds2"))
    _cli("export", "seq-niah", str(tmp_path / "ds2"), "--out", str(tmp_path / "off2"))
    for name in ("NIAH_en.jsonl", "NIAH_en_noise.jsonl"):
        assert (tmp_path / "off2" / name).read_bytes() == (tmp_path / "off" / name).read_bytes(), name


def test_semantic_kinds_follow_the_pipeline_of_imported_records(tmp_path: Path) -> None:
    from niah.benchmarks.seq_niah.noise import make_variants
    from niah.benchmarks.seq_niah.official import read_official

    recs = []
    for seed, ppl in ((21, "tkg"), (22, "open")):
        rec = official_record(seed)
        rec["meta_QA"]["ppl"] = ppl
        recs.append(rec)
    path = tmp_path / "NIAH_en.jsonl"
    path.write_text(_lines(recs), encoding="utf-8")
    tkg, logical = read_official([path])
    relation = make_variants(tkg, "semantic", variants=3)
    assert [v.meta["noise_type"] for v in relation] == ["tkg_1", "tkg_2", "tkg_1+2"]
    assert all(s.startswith("On ") and "Ann Lee" in s for v in relation for s in v.meta["noise_sentences"])
    steps = make_variants(logical, "semantic", variants=3)
    assert [v.meta["noise_type"] for v in steps] == ["open_1", "open_2", "open_3"]
    sentences = [v.meta["noise_sentences"] for v in steps]
    assert all(len(s) == 1 for s in sentences) and len({s[0] for s in sentences}) == 3  # three distinct remarks
    assert len({v.meta["md5"] for v in relation + steps}) == 6


def test_the_headline_n_counts_only_the_samples_behind_it(tmp_path: Path) -> None:
    data, noise, _base = _noise_files(tmp_path / "official")
    _cli("import", "seq-niah", str(data), str(noise), "--out", str(tmp_path / "ds"))
    _cli("run", str(tmp_path / "ds"), "--model", "baseline:oracle", "--out", str(tmp_path / "run"), "--no-progress")
    out = _cli("score", str(tmp_path / "run"))
    doc = json.loads((tmp_path / "run" / "scores.json").read_text(encoding="utf-8"))
    # 4 samples in the run (a base and 3 variants), 1 behind the accuracy and its interval
    assert doc["n"] == 1 and "n=1;" in out
    assert doc["ci95"] == [pytest.approx(100 * wilson_interval(1.0, 1)[0], abs=0.01), 100.0]
