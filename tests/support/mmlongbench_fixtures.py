"""Small MMLongBench data roots written from the record shapes the official loader reads (niah's own records).

``write_data_root(root, lengths=(8,))`` writes every official data set at each length, two ids per set (each
``dep<n>`` id n times), tiny PNG images under ``root/images``, and the summarization key-point files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from niah.benchmarks.mmlongbench.datasets import DATASETS, official_file_name


def _png(path: Path, shade: int) -> str:
    from PIL import Image

    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), (shade % 256, 40, 90)).save(path)
    return path.as_posix()


def _image(images: Path, rel: str, shade: int = 0) -> str:
    _png(images / rel, shade)
    return rel


def records(name: str, images: Path, k: int) -> Any:
    """The records of one data set at length ``k`` (before the dep repetition)."""
    def img(rel: str) -> str:
        return _image(images, f"{name}/K{k}/{rel}", len(rel))

    info = DATASETS[name]
    if info.loader == "vrag":
        return [{"id": f"q{i}", "question": f"Which tree grows here ({i})?", "image": img(f"query{i}.png"),
                 "ctxs": [{"title": "Oak", "text": "The oak is a tree.", "doc_id": "d1"},
                          {"title": "Elm", "text": "The elm is a tree."}],
                 "positive_ctxs": [{"doc_id": "d1", "title": "Oak", "text": "The oak is a tree."}],
                 "answer": ["oak", "quercus"], "entity_id": "Q1"} for i in range(2)]
    if info.loader == "vh":
        return [{"id": i, "question": "For the image with a dog, is there a ball?",
                 "ctxs": [img(f"h{i}_{j}.png") for j in range(3)], "answer": "yes" if i == 0 else "no"}
                for i in range(2)]
    if info.loader == "mm_niah_text":
        answer: Any = [1, 2] if "counting" in name else "oak"
        return [{"id": i, "ctxs": [{"type": "text", "text": "First paragraph. <image>"},
                                   {"type": "text", "text": "The needle: the oak is old."}],
                 "image_list": [img(f"ctx{i}.png")], "question": "Which tree is old?", "answer": answer}
                for i in range(2)]
    if info.loader == "mm_niah_image_count":
        return [{"id": i, "ctxs": [{"text": "A paragraph. <image>"}, {"text": "Another. <image>"}],
                 "image_list": [img(f"c{i}a.png"), img(f"c{i}b.png")], "needle_image_list": [img(f"needle{i}.png")],
                 "question": "How many times does this image appear in each paragraph? <image>", "answer": [1, 0]}
                for i in range(2)]
    if info.loader == "mm_niah_image_mc":
        return [{"id": i, "ctxs": [{"text": "Text. <image>"}, {"text": "More text."}], "image_list": [img(f"m{i}.png")],
                 "choices_image": [img(f"opt{i}_{j}.png") for j in range(3)],
                 "question": "Which image appeared in the document?", "answer": 1} for i in range(2)]
    if info.loader == "icl":
        return {"birds": {"exemplar_list": [[[{"image": img(f"ex{s}_{j}.png"), "id": j} for j in range(3)]
                                              for _ in range(2)] for s in range(2)],
                          "test_example": [{"image": img(f"test{i}.png"), "answer": i + 1} for i in range(2)]}}
    if info.loader == "gov_report":
        return [{"id": f"gov{i}", "image_list": [img(f"doc{i}/page{p}.png") for p in (1, 2)],
                 "summary": [{"section_title": "Why GAO Did This Study", "paragraphs": ["To audit spending."]},
                             {"section_title": "What GAO Found", "paragraphs": ["Costs rose.", "Staff fell."]}]}
                for i in range(2)]
    if info.loader == "multi_lexsum":
        return [{"id": f"lex{i}", "image_list": [img(f"case{i}/page{p}.png") for p in (1, 2)],
                 "summary": "Plaintiffs sued the city. The case settled."} for i in range(2)]
    if info.loader == "docqa":
        return [{"id": f"{name}_{i}", "doc_name": "annualreport2020abc", "question": "How many employees?",
                 "answer": "120" if i == 0 else '["red", "blue"]', "answer_format": "Integer" if i == 0 else "List",
                 "page_list": [img(f"annualreport2020abc/{p}.png") for p in (1, 2)], "ans_page_list": [0]}
                for i in range(2)]
    raise AssertionError(name)


CLAIMS = {"gov-report": ("gov_claims.jsonl", "gov"), "multi-lexsum": ("lexsum_claims.jsonl", "lex")}


def write_data_root(root: Path, lengths: tuple[int, ...] = (8,), datasets: tuple[str, ...] | None = None) -> Path:
    """Write ``root/data`` (official files) and ``root/images``; returns ``root``."""
    data, images = root / "data", root / "images"
    for name in datasets or tuple(DATASETS):
        info = DATASETS[name]
        for k in lengths:
            path = data / official_file_name(name, k)
            path.parent.mkdir(parents=True, exist_ok=True)
            recs = records(name, images, k)
            if info.ext == "json":
                path.write_text(json.dumps(recs), encoding="utf-8")
                continue
            rows = [dict(r) for r in recs for _ in range(info.depths or 1)]
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        if name in CLAIMS:
            file, prefix = CLAIMS[name]
            (data / "summ" / file).write_text("".join(
                json.dumps({"id": f"{prefix}{i}", "claims": ["Costs rose.", "Staff fell."]}) + "\n" for i in range(2)),
                encoding="utf-8")
    return root
