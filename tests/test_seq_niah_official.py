"""Official Sequential-NIAH files: own fixtures written from the spec import and export back equal."""

import json

import pytest

from niah.benchmarks.seq_niah.build import build_seq_niah, prompt_text, raw_text_of
from niah.benchmarks.seq_niah.official import (
    export_builder,
    read_official,
    read_results,
    sample_to_builder_record,
    sample_to_test_record,
    write_results,
)
from niah.sample import Dataset, Sample
from niah.util.errors import DataError
from support.seq_niah import official_record


def _roundtrip(sample):
    return Sample.from_json(json.loads(json.dumps(sample.to_json())))


def test_builder_records_round_trip(tmp_path):
    recs = [official_record(1), official_record(2, "zh"), official_record(3, noise_type="little_moving")]
    path = tmp_path / "NIAH_mix.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    samples = [_roundtrip(s) for s in read_official([path])]
    for rec, s in zip(recs, samples, strict=True):
        assert prompt_text(s) == rec["input"]
        back = sample_to_builder_record(s)
        assert back == rec and list(back) == list(rec)
        assert "raw_text" not in s.meta  # reconstructible from the needle positions
        assert s.task == "synthetic-temporal" and s.meta["num_needles"] == 4
    assert samples[2].meta["noise_type"] == "little_moving"
    out = tmp_path / "back.jsonl"
    export_builder(samples, out)
    assert [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()] == recs


def test_raw_text_kept_when_not_reconstructible(tmp_path):
    rec = official_record(4)
    rec["meta_text"]["raw_text"] = rec["meta_text"]["raw_text"] + " (edited)"
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    (s,) = read_official([path])
    assert s.meta["raw_text"].endswith("(edited)") and sample_to_builder_record(s) == rec


def test_test_format_round_trip(tmp_path):
    rec = official_record(5)
    test_rec = {"md5": rec["md5"] + "_2", "length": rec["length"], "question": rec["input"],
                "ref_answer": rec["output"], "raw_question": rec["meta_QA"]["question"]}
    zh = official_record(6, "zh")
    zh_rec = {"md5": zh["md5"], "length": 7, "question": zh["input"], "gt_answer": zh["output"],
              "raw_question": zh["meta_QA"]["question"]}
    path = tmp_path / "test.jsonl"
    path.write_text(json.dumps(test_rec) + "\n" + json.dumps(zh_rec, ensure_ascii=False) + "\n", encoding="utf-8")
    a, b = (_roundtrip(s) for s in read_official([path]))
    assert sample_to_test_record(a) == test_rec and sample_to_test_record(b) == zh_rec
    assert a.meta["variant_of"] == rec["md5"] and b.meta["lang"] == "zh"
    assert prompt_text(a) == rec["input"]


@pytest.mark.parametrize("mutate,field", [
    (lambda r: r.pop("input"), "input"),
    (lambda r: r.__setitem__("length", "12"), "length"),
    (lambda r: r["meta_QA"]["needles"].__setitem__(0, "not inserted"), "meta_QA.needles[0]"),
    (lambda r: r.__setitem__("input", "Preamble " + r["input"]), "input"),
    (lambda r: r["meta_text"].pop("raw_text"), "meta_text.raw_text"),
])
def test_hostile_builder_records(tmp_path, mutate, field):
    good, bad = official_record(7), official_record(8)
    mutate(bad)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        list(read_official([path]))
    assert info.value.line == 2 and info.value.field == field and str(path) in str(info.value)


def test_duplicate_md5_refused(tmp_path):
    rec = official_record(9)
    path = tmp_path / "dup.jsonl"
    path.write_text((json.dumps(rec) + "\n") * 2, encoding="utf-8")
    with pytest.raises(DataError, match="duplicate"):
        list(read_official([path]))


def test_built_samples_export_and_import_back(tmp_path):
    out = tmp_path / "ds"
    build_seq_niah(out, langs=("zh",), lengths=("8k-16k",), needles="3-5", per_cell=1, seed=2, progress=False)
    built = list(Dataset(out))
    path = tmp_path / "NIAH_zh.jsonl"
    export_builder(built, path, raw_text_tokens=len)
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["length"] == built[0].meta["length"] and rec["input"] == prompt_text(built[0])
    assert rec["meta_text"]["length"] == len(rec["meta_text"]["raw_text"])
    (again,) = read_official([path])
    assert prompt_text(again) == prompt_text(built[0]) and again.answer == built[0].answer
    assert [n["text"] for n in again.meta["needles"]] == [n["text"] for n in built[0].meta["needles"]]
    assert [n["gold_index"] for n in again.meta["needles"]] == [n["gold_index"] for n in built[0].meta["needles"]]
    # needles placed like the text's sentences (some continuing a line) are found, and their frames recovered
    # from the raw text, so noise re-places them as the builder would and the raw text is not stored twice
    assert any("\n" not in n["before"] for n in built[0].meta["needles"])
    frame = [(n["before"], n["after"], n["replaced"]) for n in built[0].meta["needles"]]
    assert [(n["before"], n["after"], n["replaced"]) for n in again.meta["needles"]] == frame
    assert "raw_text" not in again.meta and raw_text_of(again) == raw_text_of(built[0])


def test_result_files(tmp_path):
    out = tmp_path / "infer_result.jsonl"
    write_results([("a", "x"), ("b", None)], out)
    assert out.read_text(encoding="utf-8") == '{"md5": "a", "answer": "x"}\n{"md5": "b", "answer": null}\n'
    assert read_results(out) == {"a": "x", "b": None}
    noise = tmp_path / "infer_noise_result.jsonl"
    write_results([("a_1", "y")], noise, key="Qwen2.5")
    assert json.loads(noise.read_text(encoding="utf-8")) == {"md5": "a_1", "Qwen2.5": "y"}
    noise.write_text('{"md5": "a", "x": 1}\n', encoding="utf-8")
    with pytest.raises(DataError) as info:
        read_results(noise)
    assert info.value.line == 1 and info.value.field == "x"
