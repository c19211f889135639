"""The HTML report opened in headless Chromium (file:// URLs): heatmaps load, the sample browser renders and
filters, and model or dataset text that looks like HTML stays text and runs nothing.

Needs Debian's chromium at /usr/bin/chromium (CI: ``apt-get install -y chromium``); the tests are skipped,
with that reason, where it is absent. They never install anything themselves.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from niah.report import ReportOptions, build_report, load_inputs
from test_report import RUN_ROWS, XSS_RESPONSE, make_run

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="headless browser tests need Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
)

EVIL_MODEL = "evil<script>document.title='pwned-model'</script>"
INDEX_TITLE = "niah report"


def chromium(tmp_path: Path, url: str, *extra: str, timeout: float = 90) -> str:
    """Run headless Chromium on ``url`` with a throwaway profile and no network services; return stdout."""
    profile = tmp_path / "chromium-profile"
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", "--virtual-time-budget=10000", *extra, url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("report-html")
    run = make_run(root, model=EVIL_MODEL)
    out = root / "out"
    build_report(load_inputs([run]), out, ReportOptions(title=INDEX_TITLE))
    return out


def body_attrs(dom: str) -> dict[str, str]:
    match = re.search(r"<body([^>]*)>", dom)
    assert match, dom[:500]
    return dict(re.findall(r'([\w-]+)="([^"]*)"', match.group(1)))


def test_index_heatmaps_are_present_and_loaded(report_dir: Path, tmp_path: Path) -> None:
    dom = chromium(tmp_path, (report_dir / "index.html").as_uri(), "--dump-dom")
    attrs = body_attrs(dom)
    heatmaps = re.findall(r'<img src="(assets/heatmaps/[^"]+\.png)"', dom)
    assert len(heatmaps) == 3 and all((report_dir / src).is_file() for src in heatmaps)
    assert attrs.get("data-images") == "loaded", attrs  # set by report.js once every image has decoded
    distributions = re.findall(r'<img src="(assets/distributions/[^"]+\.png)"', dom)
    assert len(distributions) == 1 and (report_dir / distributions[0]).is_file()  # the run's data distributions
    assert attrs.get("data-image-count") == "4"
    assert f"<title>{INDEX_TITLE}</title>" in dom
    # the model name is shown as text, never as a script element
    assert "evil&lt;script&gt;document.title='pwned-model'&lt;/script&gt;" in dom
    assert "<script>document.title" not in dom


def test_sample_browser_shows_hostile_response_as_text(report_dir: Path, tmp_path: Path) -> None:
    page = next(report_dir.glob("samples-*.html"))
    dom = chromium(tmp_path, page.as_uri(), "--dump-dom")
    attrs = body_attrs(dom)
    assert attrs.get("data-ready") == "1" and attrs.get("data-rendered") == str(len(RUN_ROWS))
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    # unchanged: no injected script ran (each would have replaced document.title with 'pwned...')
    assert title and title.group(1) == "Samples: evil&lt;script&gt;document.title='pwned-model'&lt;/script&gt;"
    escaped = XSS_RESPONSE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert f'<pre class="response">{escaped}</pre>' in dom  # visible, as text
    assert "<script>document.title" not in dom and '<img src="x"' not in dom and "<img src=x" not in dom
    assert "What is the secret ingredient? &lt;i&gt;one word&lt;/i&gt;" in dom  # dataset text is text too
    # needle highlighted, thumbnails from the report's own folder only
    assert '<mark class="needle">The secret ingredient of the cake is cardamom.</mark>' in dom
    thumbs = set(re.findall(r'<img src="([^"]+)"', dom))
    assert thumbs and all(t.startswith("assets/thumbs/") and (report_dir / t).is_file() for t in thumbs)


@pytest.mark.parametrize(("fragment", "expected"), [
    ("task=retrieval-text&status=correct", ["rt-1", "rt-3", "rt-4", "rt-5", "rt-6"]),
    ("bin=none", ["rt-6"]),
    ("depth=2", ["rt-3", "rt-4"]),  # 0.6 falls in cell 2, the official quirk
    ("status=error", ["ri-1"]),
    ("status=partial&bin=4k", ["ci-1"]),
])
def test_sample_browser_filters(report_dir: Path, tmp_path: Path, fragment: str, expected: list[str]) -> None:
    page = next(report_dir.glob("samples-*.html"))
    dom = chromium(tmp_path, page.as_uri() + "#" + fragment, "--dump-dom")
    assert body_attrs(dom).get("data-rendered") == str(len(expected))
    assert re.findall(r'<article class="sample[^"]*" data-id="([^"]+)"', dom) == expected


def test_screenshots_render(report_dir: Path, tmp_path: Path) -> None:
    from PIL import Image

    shot = tmp_path / "index.png"
    chromium(tmp_path, (report_dir / "index.html").as_uri(), f"--screenshot={shot}", "--window-size=1200,1600")
    with Image.open(shot) as image:
        assert image.size == (1200, 1600)
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 22) or []
    # heatmap colours: crimson (0), gold, green (1), or the grey of cells without samples
    palette = ((0xDC, 0x14, 0x3C), (0xFF, 0xD7, 0x00), (0x3C, 0xB3, 0x71), (0xC8, 0xC8, 0xC8))
    painted = sum(n for n, c in colours
                  if any(all(abs(a - b) <= 8 for a, b in zip(c, p, strict=True)) for p in palette))
    assert painted > 5000  # a heatmap is painted on the first screen, not an empty page


def test_sample_browser_never_prints_a_missing_length_as_null(tmp_path: Path) -> None:
    rows = [{**RUN_ROWS[0], "id": "no-len", "context_length": None},
            {**RUN_ROWS[0], "id": "with-len"}]
    out = tmp_path / "out"
    build_report(load_inputs([make_run(tmp_path, rows=rows)]), out, ReportOptions())
    dom = chromium(tmp_path, next(out.glob("samples-*.html")).as_uri(), "--dump-dom")
    assert body_attrs(dom).get("data-rendered") == "2"
    metas = re.findall(r'<span class="meta">([^<]*)</span>', dom)
    assert len(metas) == 2 and not any("null" in m or "undefined" in m for m in metas), metas
    assert "no length" in metas[0] and "length 1k (1500 tokens)" in metas[1] and "2 images" in metas[1]


# --------------------------------------------------------------------- layout at a desktop and a phone width

#: Measures the page once it has loaded and writes what it found on <body> (the report's own policy allows
#: scripts from its folder only, so the probe is a file there, added to a copy of the page).
MEASURE_JS = """
window.addEventListener('load', () => {
  const b = document.body, width = window.innerWidth;
  b.dataset.pageOverflow = String(document.documentElement.scrollWidth > width + 1);
  const heads = [...document.querySelectorAll('table.results thead th')]
    .filter(th => th.textContent.startsWith('Overall (bins with samples)'));
  b.dataset.coveredHeads = String(heads.length);
  b.dataset.coveredShown = String(heads.length > 0 && heads.every(th => {
    const r = th.getBoundingClientRect(), box = th.closest('div.table-scroll').getBoundingClientRect();
    return r.right <= box.right + 1 && r.right <= width + 1;
  }));
  b.dataset.readingFirst = String(!!document.querySelector('details.reading') &&
    document.querySelector('details.reading').compareDocumentPosition(document.querySelector('table.results'))
    === Node.DOCUMENT_POSITION_FOLLOWING);
  b.dataset.baselineTags = String(document.querySelectorAll('span.tag.baseline').length);
  b.dataset.measured = '1';
});
"""


@pytest.fixture(scope="module")
def partial_grid_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The main command's kind of report on a partial grid (2 of 11 lengths), two baselines: the case whose
    "Overall (bins with samples)" column stood off-screen at 1400 px."""
    from typer.testing import CliRunner

    from niah.cli import app

    root = tmp_path_factory.mktemp("partial-grid")

    def niah(*args: str) -> None:
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == 0, result.output

    niah("build", "mm-niah", "--out", str(root / "ds"), "--tasks", "retrieval-text,counting-image", "--lengths",
         "1k-2k,4k-8k", "--no-progress", "--quiet")
    for model in ("random", "oracle"):
        niah("run", str(root / "ds"), "--model", f"baseline:{model}", "--out", str(root / model), "--no-progress")
        niah("score", str(root / model))
    niah("report", str(root / "random"), str(root / "oracle"), "--out", str(root / "report"), "--no-progress")
    page = (root / "report" / "index.html").read_text(encoding="utf-8")
    (root / "report" / "assets" / "measure.js").write_text(MEASURE_JS, encoding="utf-8")
    (root / "report" / "measured.html").write_text(
        page.replace("</body>", '<script src="assets/measure.js"></script>\n</body>'), encoding="utf-8")
    return root / "report"


@pytest.mark.parametrize("width", [1400, 390])
def test_the_report_fits_a_desktop_and_a_phone_width(partial_grid_report: Path, tmp_path: Path, width: int) -> None:
    """(Headless Chromium lays a window narrower than 500 px out at 500 px: the phone case is measured there; the
    390 px screenshot was checked by eye.)"""
    dom = chromium(tmp_path, (partial_grid_report / "measured.html").as_uri(), "--dump-dom",
                   f"--window-size={width},1000")
    attrs = body_attrs(dom)
    assert attrs.get("data-measured") == "1", attrs
    assert attrs["data-page-overflow"] == "false", attrs  # wide tables scroll inside their box, the page never
    assert int(attrs["data-covered-heads"]) >= 2 and attrs["data-reading-first"] == "true", attrs
    assert int(attrs["data-baseline-tags"]) >= 4, attrs  # both baselines tagged in the leaderboard and tables
    if width == 1400:
        assert attrs["data-covered-shown"] == "true", attrs  # no scrolling needed to see it
