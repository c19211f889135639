"""MMLongBench as a family: official file names, loaders, prompts, sampling, DocVQA rule, aggregation, judge,
and one end-to-end pass (import -> run baselines -> score -> judge -> report) over every category."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from niah.benchmarks.mmlongbench.aggregate import aggregate_scores, category_scores
from niah.benchmarks.mmlongbench.cli import judge_run
from niah.benchmarks.mmlongbench.datasets import DATASETS, official_file_name, parse_official_file
from niah.benchmarks.mmlongbench.docqa import docqa_score
from niah.benchmarks.mmlongbench.official import load_file
from niah.benchmarks.mmlongbench.score import score_sample
from niah.benchmarks.mmlongbench.summ_judge import official_json, parse_precision
from niah.prompts.render import render_prompt
from niah.run import RetryPolicy
from niah.scoring.judges import Judge, JudgeParseError
from niah.scoring.metrics.base import MetricInputError
from niah.util.errors import DataError
from support.mmlongbench_fixtures import write_data_root
from support.openai_server import OpenAIServer
from support.scores import official_scores
from support.tables import without_intervals

FAST_RETRY = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)

# Names exactly as the official configs list them (one per data set, lengths varied).
CONFIG_NAMES = {
    "vrag/infoseek_K8_dep3.jsonl": ("infoseek", 8, 3), "vrag/viquae_K128_dep6.jsonl": ("viquae", 128, 6),
    "NIAH/vh_single_test_1000_K16_dep6.jsonl": ("vh_single", 16, 6),
    "NIAH/vh_multi_test_1000_K32_dep3.jsonl": ("vh_multi", 32, 3),
    "NIAH/retrieval-text_test_K64_dep6.jsonl": ("mm_niah_retrieval-text", 64, 6),
    "NIAH/counting-text_test_K8_dep3.jsonl": ("mm_niah_counting-text", 8, 3),
    "NIAH/reasoning-text_test_K8_dep3.jsonl": ("mm_niah_reasoning-text", 8, 3),
    "NIAH/retrieval-image_test_K8_dep6.jsonl": ("mm_niah_retrieval-image", 8, 6),
    "NIAH/counting-image_test_K128_dep3.jsonl": ("mm_niah_counting-image", 128, 3),
    "NIAH/reasoning-image_test_K16_dep6.jsonl": ("mm_niah_reasoning-image", 16, 6),
    "ICL/cars196_K8.json": ("cars196", 8, None), "ICL/inat2021_K128.json": ("inat2021", 128, None),
    "summ/gov_K32.jsonl": ("gov-report", 32, None), "summ/lexsum_K8.jsonl": ("multi-lexsum", 8, None),
    "documentQA/slidevqa_K64.jsonl": ("slidevqa", 64, None),
}


@pytest.mark.parametrize(("name", "expected"), CONFIG_NAMES.items())
def test_official_file_names_parse_and_round_trip(name, expected):
    parsed = parse_official_file(name)
    assert (parsed.dataset.name, parsed.length_k, parsed.depths) == expected
    assert official_file_name(expected[0], expected[1]) == name


@pytest.mark.parametrize("name", ["NIAH/retrieval-image_test_K12_dep6.jsonl", "vrag/infoseek_K8.jsonl",
                                  "ICL/cars196_K8.jsonl", "NIAH/foo_K8.jsonl", "vrag/infoseek_K8_dep6.jsonl",
                                  "NIAH/vh_single_K8_dep6.jsonl"])
def test_names_the_configs_do_not_use_are_refused(name):
    with pytest.raises(DataError):
        parse_official_file(name)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return write_data_root(tmp_path_factory.mktemp("mmlb"), lengths=(8,))


def _load(root: Path, dataset: str, **kw):
    return load_file(root / "data" / official_file_name(dataset, 8), relative=official_file_name(dataset, 8),
                     image_root=root / "images", **kw)


def _preview(root: Path, sample) -> str:
    return render_prompt(sample, root / "images").preview()


def test_vrag_prompt_is_the_official_one(root):
    samples, report = _load(root, "infoseek")
    assert len(samples) == 6 and [s.meta["depth_index"] for s in samples[:3]] == [0, 1, 2]
    assert report.unknown_fields == {"entity_id"}
    assert _preview(root, samples[0]) == (
        "Use the given documents to write a concise and short answer to the question about the entity shown in the "
        "image. Write your answer in the following format:\nAnswer: [answer]\n\n"
        "Document (Title: Oak): The oak is a tree.\n\nDocument (Title: Elm): The elm is a tree.\n\n"
        "Question: <image: infoseek/K8/query0.png>Which tree grows here (0)?\nAnswer:")
    assert render_prompt(samples[0], root / "images").generation.max_tokens == 128


def test_image_multiple_choice_puts_option_images_after_the_context_images(root):
    samples, _ = _load(root, "mm_niah_retrieval-image")
    text = _preview(root, samples[0])
    assert text.startswith("You are given interleaved text and images. Please answer the question with the option's "
                           "letter (A, B, etc.) based on the given text and images.")
    assert ("Text. <image: mm_niah_retrieval-image/K8/m0.png>\n\nMore text.\n\nQuestion: Which image appeared in the "
            "document?\nA. <image: mm_niah_retrieval-image/K8/opt0_0.png>\nB. <image: mm_niah_retrieval-image/K8/"
            "opt0_1.png>\nC. <image: mm_niah_retrieval-image/K8/opt0_2.png>\nAnswer:") in text


def test_counting_image_appends_the_needle_images_and_icl_unescapes_its_label_braces(root):
    samples, _ = _load(root, "mm_niah_counting-image")
    assert [p.path for p in samples[0].question if hasattr(p, "path")] == ["mm_niah_counting-image/K8/needle0.png"]
    icl, _ = _load(root, "cars196")
    text = _preview(root, icl[0])
    assert 'Only output "label: {label}" and nothing else.\n\nTraining examples:\n<image: ' in text
    assert text.count("<image:") == 7 and text.endswith(".png>\nlabel:")  # 2 rounds x 3 + the test image


def test_summarization_and_docqa_prompts(root):
    gov, _ = _load(root, "gov-report")
    text = _preview(root, gov[0])
    assert "Government Report:\nDocument doc0 (page 1): <image: gov-report/K8/doc0/page1.png>\n\nDocument doc0 (page 2)" \
        in text and text.endswith("Now please summarize the report.\nSummary:")
    assert gov[0].answer == "Why GAO Did This Study:\nTo audit spending.\n\nWhat GAO Found:\nCosts rose.\nStaff fell."
    assert render_prompt(gov[0], root / "images").generation.max_tokens == 384
    doc, _ = _load(root, "longdocurl")
    text = _preview(root, doc[0])
    # the document id is cut to 15 characters, as the official {doc_id:.15}
    assert "Document annualreport202: <image:" in text
    assert "Question: Based on Document annualreport202, answer the following question. How many employees?" in text


def test_sampling_keeps_every_depth_row_of_each_chosen_id(tmp_path):
    path = tmp_path / "NIAH" / "vh_multi_test_1000_K8_dep3.jsonl"
    path.parent.mkdir()
    from PIL import Image

    Image.new("RGB", (4, 4)).save(tmp_path / "img.png")  # the importer checks that images decode
    rows = [{"id": i, "question": "q", "ctxs": ["img.png"], "answer": "yes"} for i in range(10) for _ in range(3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    samples, report = load_file(path, image_root=tmp_path, max_samples=4, seed=1)
    ids = [s.meta["record_id"] for s in samples]
    assert report.rows == 30 and len(samples) == 12 and len(set(ids)) == 4
    assert all(ids.count(i) == 3 for i in set(ids))
    assert [s.meta["position"] for s in samples] == list(range(12))
    again, _ = load_file(path, image_root=tmp_path, max_samples=4, seed=1)
    assert [s.id for s in again] == [s.id for s in samples]
    everything, _ = load_file(path, image_root=tmp_path, max_samples=None)
    assert len(everything) == 30


def test_bad_records_name_file_line_and_field(tmp_path):
    path = tmp_path / "NIAH" / "retrieval-text_test_K8_dep6.jsonl"
    path.parent.mkdir()
    good = {"id": 1, "ctxs": [{"text": "a <image>"}], "image_list": ["x.png"], "question": "q", "answer": "a"}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "ctxs": [{"type": "text"}]}) + "\n")
    with pytest.raises(DataError) as info:
        load_file(path, image_root=tmp_path)
    assert (info.value.line, info.value.field) == (2, "ctxs[0].text")
    path.write_text(json.dumps({**good, "image_list": []}) + "\n")
    with pytest.raises(DataError, match="more <image> marks than images"):
        load_file(path, image_root=tmp_path)
    path.write_text(json.dumps({**good, "image_list": ["../escape.png"]}) + "\n")
    with pytest.raises(DataError):
        load_file(path, image_root=tmp_path)


def test_vrag_drops_image_paths_with_double_quotes_as_the_official_loader(tmp_path):
    path = tmp_path / "vrag" / "viquae_K8_dep6.jsonl"
    path.parent.mkdir()
    row = {"id": "a", "question": "q", "image": 'a"b.png', "ctxs": [], "answer": "x"}
    from PIL import Image

    Image.new("RGB", (4, 4)).save(tmp_path / "ok.png")
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "id": "b", "image": "ok.png"}) + "\n")
    samples, report = load_file(path, image_root=tmp_path)
    assert len(samples) == 1 and sum(report.dropped.values()) == 1


@pytest.mark.parametrize(("gold", "prediction", "fmt", "expected"), [
    ("120", "There are 120 employees", "Integer", 1.0),
    ("1200", "about 1,200 people", "Integer", 1.0),
    (5, "5.5 or 6", "Integer", 0.0),  # 5.5 is not whole, 6 != 5
    ("0.25", "25%", "Float", 1.0),  # within 1% of gold x 100
    ("3.1", "3.12", "Float", 1.0),
    ("3.1", "3.2", "Float", 0.0),
    ("2020-01-05", "On 2020-01-05.", "String", 1.0),  # exact-match pattern: substring, case-sensitive
    ("https://a.org", "see HTTPS://A.ORG", "String", 0.0),
    ("red apple", "a red car", "String", 0.5),  # token F1: p = r = 1/2
    ('["red", "blue"]', "blue and red", "List", 0.8),  # merged "red blue": p = 2/3, r = 1
    ('["red", 5]', "red 5", "List", (2 / 3 + 1) / 2),
])
def test_docqa_rule_hand_checked(gold, prediction, fmt, expected):
    assert docqa_score(gold, prediction, fmt) == pytest.approx(expected)


@pytest.mark.parametrize(("gold", "fmt"), [("abc", "Integer"), ("2.5", "Integer"), ("x", "Float"),
                                           ("not json", "List"), ("[]", "List"), ("[[1]]", "List"),
                                           ('[null]', "List"), (3, "String"), ("a", "Date")])
def test_docqa_refuses_what_the_official_code_crashes_on(gold, fmt):
    with pytest.raises(MetricInputError):
        docqa_score(gold, "anything 1", fmt)


def _row(dataset: str, k: int, score: float):
    return ({"id": f"{dataset}-{score}", "task": dataset, "scores": {"official": score}},
            {"dataset": dataset, "length_k": k, "judged": True})


def test_aggregation_per_length_by_hand():
    rows = [_row(name, 8, 1.0) for name in DATASETS]
    rows += [_row("vh_single", 8, 0.0)] * 3  # 1 of 4 right: 25 -> flipped to 75
    rows += [_row("mm_niah_counting-image", 8, 0.0)]  # 1 of 2: 50
    rows += [_row("cars196", 8, 0.0)]  # 50
    result = aggregate_scores(rows, "official")
    assert result["datasets"]["vh_single"]["8K"] == 75.0
    # NIAH = mean(75, 100, mean(100, 100), mean(100, 50), mean(100, 100)) = (75 + 100 + 100 + 75 + 100) / 5
    assert result["categories"]["niah"]["8K"] == pytest.approx(90.0)
    assert result["categories"]["icl"]["8K"] == pytest.approx(87.5)
    assert result["overall"]["8K"] == pytest.approx((100 + 90 + 87.5 + 100 + 100) / 5)
    assert result["overall"]["16K"] is None and "16K" in result["missing"]
    without = aggregate_scores([r for r in rows if r[1]["dataset"] != "slidevqa"], "official")
    assert without["categories"]["docqa"]["8K"] is None and without["overall"]["8K"] is None
    assert without["missing"]["8K"] == ["slidevqa"]
    assert category_scores({})["overall"] is None


def test_binary_default_cycles_over_the_file_positions(root):
    samples, _ = _load(root, "vh_single")
    # gold "yes" for id 0 (positions 0-5), "no" for id 1 (6-11); defaults 0,1,1,0,0,1 | 1,0,0,1,1,0
    scores = [score_sample(s, "unsure").scores["official"] for s in samples]
    assert scores == [0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0]


def test_summarization_reply_parsing_follows_the_official_json_reader():
    assert official_json('Reasoning {"a": 1} then {"recall": 3}') == {"recall": 3}
    assert parse_precision('{"precision": 3, "sentence_count": 4}') == 0.75
    assert parse_precision('{"precision": 0, "sentence_count": 0}') == 0.0
    for bad in ("no json", '{"recall": 3', '{"precision": 1}'):
        with pytest.raises(JudgeParseError):
            parse_precision(bad)


def summ_responder(body: dict) -> str:
    user = body["messages"][-1]["content"]
    if "fluency" in user:
        return 'Fluent enough. {"fluency": 1}'
    if "Key points:" in user:
        return 'One of two is there. {"recall": 1}'
    return 'Half supported. {"precision": 1, "sentence_count": 2}'


def _niah(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "niah.cli", *args], capture_output=True, text=True, cwd=cwd,
                          check=False)


def test_end_to_end_every_category(tmp_path):
    write_data_root(tmp_path, lengths=(8, 16, 32, 64, 128))
    proc = _niah(tmp_path, "import", "mmlongbench", "data", "--image-root", "images", "--out", "ds")
    assert proc.returncode == 0, proc.stderr
    assert "pass --media-root" in proc.stderr and "unknown fields (kept out): ans_page_list" in proc.stderr
    for model in ("baseline:random", "baseline:oracle"):
        proc = _niah(tmp_path, "run", "ds", "--model", model, "--out", model.split(":")[1], "--media-root", "images",
                     "--no-progress")
        assert proc.returncode == 0, proc.stderr
        assert _niah(tmp_path, "score", model.split(":")[1]).returncode == 0
    scores = official_scores(tmp_path / "oracle" / "scores.json")
    assert scores["needs_judge"] == ["gov-report", "multi-lexsum"] and scores["overall"]["8K"] is None
    rows = [json.loads(line) for line in (tmp_path / "oracle" / "scored.jsonl").read_text().splitlines()]
    summ = [r for r in rows if r["id"].startswith(("gov-report", "multi-lexsum"))]
    assert summ and all(r["unscored"].startswith("summarization: not judged yet") for r in summ)
    assert not any("unscored" in r for r in rows if r not in summ)
    with OpenAIServer(responder=summ_responder) as srv:
        def make(kind: str) -> Judge:
            from niah.benchmarks.mmlongbench.summ_judge import PARSERS, TEMPLATES

            return Judge("openai:judge", template=TEMPLATES[kind], parser=PARSERS[kind], base_urls=[srv.base_url],
                         retry=FAST_RETRY, max_parse_attempts=1)

        result = judge_run(tmp_path / "oracle", make)
    assert result["judged"] == 20 and result["judge_failures"] == {}
    rows = [json.loads(line) for line in (tmp_path / "oracle" / "scored.jsonl").read_text().splitlines()]
    assert not any("unscored" in r for r in rows)  # judged: real scores now
    scores = official_scores(tmp_path / "oracle" / "scores.json")
    # recall 1/2, precision 1/2, fluency 1 -> 0.5 per summary
    assert scores["datasets"]["gov-report"]["8K"] == pytest.approx(50.0)
    # the oracle answers ICL's int gold as "label: N" (the family's BaselineAnswers); every rule gives it 100
    assert scores["categories"] == {c: dict.fromkeys(["8K", "16K", "32K", "64K", "128K"], pytest.approx(v))
                                    for c, v in {"vrag": 100, "niah": 100, "icl": 100, "summ": 50, "docqa": 100}.items()}
    assert scores["overall"]["128K"] == pytest.approx(90.0)
    doc = json.loads((tmp_path / "oracle" / "scores.json").read_text())
    # the headline: the official overall (90 at every length) averaged over the lengths built
    assert doc["overall"] == pytest.approx(90.0) and doc["run_status"]["complete"] is True
    proc = _niah(tmp_path, "report", "oracle/scores.json", "random", "--out", "rep", "--media-root", "images")
    assert proc.returncode == 0, proc.stderr
    tables = without_intervals((tmp_path / "rep" / "tables.md").read_text())
    assert "| oracle | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 | 100.0 |" in tables
    category = without_intervals((tmp_path / "rep" / "tables" / "mmlongbench_category_summ.md").read_text())
    assert "| oracle | 50.0 | 50.0 | 50.0 | 50.0 | 50.0 | 50.0 |" in category
    overall = without_intervals((tmp_path / "rep" / "tables" / "mmlongbench_overall.md").read_text())
    assert "| oracle | 90.0 | 90.0 | 90.0 | 90.0 | 90.0 | 90.0 |" in overall


def test_scores_file_of_a_run_at_some_lengths_keeps_its_rows(tmp_path: Path) -> None:
    """A scores.json with 8K and 16K only (the other lengths null) reports those data sets with empty bins as -,
    instead of an empty report."""
    from niah.report import load_input
    from niah.report.build import build_tables

    lengths = ("8K", "16K", "32K", "64K", "128K")
    doc = {"benchmark": "mmlongbench", "scoring": "official", "lengths": list(lengths),
           "datasets": {name: dict.fromkeys(lengths) for name in DATASETS},
           "categories": {c: dict.fromkeys(lengths) for c in ("vrag", "niah", "icl", "summ", "docqa")},
           "overall": dict.fromkeys(lengths)}
    doc["datasets"]["vh_single"].update({"8K": 75.0, "16K": 50.0})
    path = tmp_path / "m" / "scores.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    tables = build_tables([load_input(path)], None)
    assert [t.key for t in tables] == ["vh_single"]
    assert tables[0].rows[0].cells() == ["75.0", "50.0", "-", "-", "-", "25.0"]


@pytest.mark.parametrize("name", ["NIAH/vh_single_test_1000_K9_dep6.jsonl", "NIAH/vh_single_K8.jsonl",
                                  "vrag/infoseek_K8_dep6.jsonl", "ICL/cars196_K8.jsonl", "summ/notes.json"])
def test_import_refuses_a_file_of_the_data_folders_it_does_not_know(tmp_path, name):
    from niah.benchmarks.mmlongbench.official import write_mmlongbench_dataset

    write_data_root(tmp_path, datasets=("vh_single", "gov-report"))
    (tmp_path / "data" / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "data" / name).write_text('{"id": 0}\n', encoding="utf-8")
    with pytest.raises(DataError) as caught:
        write_mmlongbench_dataset(tmp_path / "data", tmp_path / "images", tmp_path / "ds")
    message = str(caught.value)
    # names the file and lists the official names, whatever --datasets picked
    assert message.startswith(str(tmp_path / "data" / name) + ": ")
    assert "NIAH/vh_single_test_1000_K<k>_dep6.jsonl" in message and "(<k>: 8, 16, 32, 64, 128)" in message
    assert not (tmp_path / "ds").exists()
    with pytest.raises(DataError):
        write_mmlongbench_dataset(tmp_path / "data", tmp_path / "images", tmp_path / "ds", datasets=["gov-report"])


def test_import_takes_the_official_files_and_key_points_beside_other_kinds_of_file(tmp_path):
    write_data_root(tmp_path, datasets=("vh_single", "gov-report"))
    (tmp_path / "data" / "NIAH" / "README.md").write_text("notes\n", encoding="utf-8")
    (tmp_path / "data" / "NIAH" / "vh_single_test_1000_K8_dep6.jsonl.bak").write_text("{}\n", encoding="utf-8")
    proc = _niah(tmp_path, "import", "mmlongbench", "data", "--media-root", "images", "--out", "ds")
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "data" / "NIAH" / "vh_single_K8.jsonl").write_text("{}\n", encoding="utf-8")
    proc = _niah(tmp_path, "import", "mmlongbench", "data", "--media-root", "images", "--out", "ds2")
    assert proc.returncode != 0 and "data/NIAH/vh_single_K8.jsonl: unknown MMLongBench data set" in proc.stderr
