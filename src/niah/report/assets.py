"""Static files of the HTML report (stylesheet and the two page scripts), written into DIR/assets/.

They are plain JavaScript without libraries or CDNs so the report works offline and from file://. The scripts
never assign model or dataset text to ``innerHTML``: every string goes through ``textContent`` or a DOM
property, and image sources are accepted only when they match the report's own thumbnail naming.
"""

from __future__ import annotations

REPORT_CSS = """\
:root { --fg: #1d1d1f; --muted: #666; --line: #ddd; --ok: #3CB371; --mid: #FFD700; --bad: #DC143C; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 1360px; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid var(--line); }
a { color: #0b63c5; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: .2rem .45rem; text-align: right; white-space: nowrap; }
th[scope=row], thead th:first-child, table.inputs td, table.inputs th { text-align: left; }
/* long column heads ("Overall (official: empty bins 0)") wrap, so that a whole grid's table, both overall
   columns included, fits a 1400 px window; the leaderboard's note wraps in its own column */
thead th { white-space: normal; vertical-align: bottom; min-width: 3.2rem; }
table.results thead th:nth-last-child(-n+2) { min-width: 7.5rem; }
table.leaderboard td:last-child { white-space: normal; text-align: left; min-width: 18rem; }
/* a phone-sized window: wide tables scroll inside the page, figures shrink to it */
table:not(div.table-scroll > table) { display: block; max-width: 100%; overflow-x: auto; }
figure img { max-width: 100%; height: auto; }
table.inputs td { white-space: normal; word-break: break-all; }
td.missing { color: #9a9a9a; }
span.tag.baseline { font-size: .72em; font-weight: 600; color: #555; background: #eceff3; border: 1px solid #c9ced6;
                    border-radius: 3px; padding: 0 .3rem; margin-left: .3rem; white-space: nowrap; }
td span.ci { display: block; font-size: .78em; color: var(--muted); line-height: 1.2; }
div.table-scroll { max-width: 100%; overflow-x: auto; }
details.reading { margin: .5rem 0 1rem; padding: .4rem .8rem; background: #f7f7f9; border: 1px solid var(--line);
                  border-radius: 6px; font-size: .92em; } details.reading ul { margin: .3rem 0; padding-left: 1.2rem; }
details.reading summary { font-weight: 600; cursor: pointer; }
caption { text-align: left; font-weight: 600; padding-bottom: .3rem; }
tbody.published tr.section th { text-align: left; font-style: italic; font-weight: 600; background: #f4f4f6; }
tr.published { color: #444; font-style: italic; }
table.audit td:nth-child(-n+3) { text-align: left; } tr.audit-fail td { color: var(--bad); font-weight: 600; }
tr.audit-skew td { color: #9a7b00; }
ul.table-notes, p.note, .notes { color: var(--muted); font-size: .9em; }
div.noise { font-size: .9em; margin: .4rem 0 .8rem; } div.noise p, div.noise ul { margin: .2rem 0; }
figure.heatmap, figure.chart { margin: .5rem 0 1.2rem; }  /* the page's full width (a phone's is small) */
figure.heatmap img { max-width: 100%; height: auto; border: 1px solid var(--line); }
figcaption { color: var(--muted); font-size: .9em; }
.filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: end; margin: 1rem 0; padding: .6rem;
           background: #f7f7f9; border: 1px solid var(--line); border-radius: 6px; }
.filters label { display: flex; flex-direction: column; font-size: .85em; color: var(--muted); }
.pager { display: flex; gap: .6rem; align-items: center; margin: .5rem 0; }
article.sample { border: 1px solid var(--line); border-left: 6px solid var(--line); border-radius: 6px;
                 padding: .6rem .8rem; margin: .8rem 0; }
article.status-correct { border-left-color: var(--ok); } article.status-partial { border-left-color: var(--mid); }
article.status-wrong, article.status-error { border-left-color: var(--bad); }
article.status-unscored { border-left-color: var(--muted); }
article.sample header { display: flex; flex-wrap: wrap; gap: .7rem; align-items: baseline; }
.sid { font-weight: 600; font-family: ui-monospace, monospace; } .meta, .score { color: var(--muted); }
.badge { padding: 0 .4rem; border-radius: 3px; font-size: .85em; color: #fff; background: var(--bad); }
.badge.correct { background: var(--ok); } .badge.partial { background: #b59b00; }
.badge.unscored { background: var(--muted); }
h3 { font-size: .95rem; margin: .6rem 0 .2rem; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; font: 13px/1.4 ui-monospace, monospace;
      background: #f7f7f9; padding: .3rem .5rem; border-radius: 4px; }
.segs { white-space: pre-wrap; word-break: break-word; }
details.context .segs { max-height: 28rem; overflow: auto; border: 1px solid var(--line); padding: .4rem; margin-top: .3rem; }
mark.needle { background: #ffe066; outline: 1px solid #d4a800; }
.gap { color: var(--muted); font-style: italic; }
span.img { display: inline-block; vertical-align: middle; margin: .2rem; }
span.img img { max-height: 96px; max-width: 160px; border: 1px solid var(--line); }
span.img.needle img, span.img.needle .img-name { outline: 3px solid #d4a800; }
.img-name { font-family: ui-monospace, monospace; font-size: .85em; color: var(--muted); }
span.video { display: block; } span.video .frame { display: inline-flex; flex-direction: column; align-items: center; margin: 0 .25rem .25rem 0; }
span.video .ts { font-size: .75em; color: var(--muted); }
ol.options { margin: 0; padding-left: 1.6rem; }
.banner.incomplete { background: #fff3cd; border: 2px solid #d39e00; padding: 0.6em 1em; margin: 1em 0; }
"""

# Index page: after every image has finished (the window "load" event), record on <body> whether all
# heatmaps decoded, so a headless browser (and a person with devtools) can check the page in one attribute.
REPORT_JS = """\
(function () {
  "use strict";
  function check() {
    var imgs = Array.prototype.slice.call(document.images);
    var ok = imgs.every(function (img) { return img.complete && img.naturalWidth > 0; });
    document.body.setAttribute("data-image-count", String(imgs.length));
    document.body.setAttribute("data-images", imgs.length === 0 ? "none" : (ok ? "loaded" : "error"));
  }
  if (document.readyState === "complete") { check(); } else { window.addEventListener("load", check); }
})();
"""

SAMPLES_JS = """\
(function () {
  "use strict";
  var IDX = window.NIAH_INDEX;
  var PAGE_SIZE = 20;
  var THUMB_RE = /^assets\\/thumbs\\/[0-9a-f]{8,64}\\.jpg$/;
  var FILTERS = ["task", "bin", "depth", "status"];
  var HASH_KEYS = FILTERS.concat(["ctx"]);
  var chunks = {}, waiting = {}, failed = {};
  var renderToken = 0;
  var state = { task: "", bin: "", depth: "", status: "", ctx: "", page: 0 };
  var list, countEl, pageEl;

  function finish(k) {
    var callbacks = waiting[k] || [];
    delete waiting[k];
    callbacks.forEach(function (cb) { cb(); });
  }
  window.NIAH_addChunk = function (k, records) { chunks[k] = records; finish(k); };

  function pad(k) { var s = String(k); while (s.length < 5) { s = "0" + s; } return s; }

  function loadChunk(k, cb) {
    if (chunks[k] || failed[k]) { cb(); return; }
    if (waiting[k]) { waiting[k].push(cb); return; }
    waiting[k] = [cb];
    var script = document.createElement("script");
    script.src = IDX.chunk_dir + "chunk-" + pad(k) + ".js";
    script.onerror = function () { failed[k] = true; finish(k); };
    document.head.appendChild(script);
  }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function makeSelect(name, label, choices) {
    var wrap = el("label", null, label);
    var select = el("select");
    select.id = "filter-" + name;
    select.appendChild(new Option("all", ""));
    choices.forEach(function (c) { select.appendChild(new Option(c[1], c[0])); });
    select.value = state[name];
    if (select.value !== state[name]) { state[name] = ""; select.value = ""; }
    select.addEventListener("change", function () { state[name] = select.value; state.page = 0; writeHash(); render(); });
    wrap.appendChild(select);
    return wrap;
  }

  function readHash() {
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i < 0) { return; }
      var key = decodeURIComponent(kv.slice(0, i)), value = decodeURIComponent(kv.slice(i + 1));
      if (HASH_KEYS.indexOf(key) >= 0) { state[key] = value; }
    });
  }

  function writeHash() {
    var parts = [];
    HASH_KEYS.forEach(function (k) { if (state[k] !== "") { parts.push(k + "=" + encodeURIComponent(state[k])); } });
    try { history.replaceState(null, "", parts.length ? "#" + parts.join("&") : location.pathname); } catch (e) { /* ignore */ }
  }

  function rowValue(r, key) {
    if (key === "task") { return IDX.tasks[r[0]]; }
    if (key === "bin") { return r[1] < 0 ? "none" : IDX.bins[r[1]]; }
    if (key === "depth") { return r[2] < 0 ? "none" : String(r[2]); }
    return IDX.statuses[r[3]];
  }

  function matches(r) {
    return FILTERS.every(function (k) { return state[k] === "" || rowValue(r, k) === state[k]; });
  }

  function imageRef(ref, video) {
    var box = el("span", "img" + (ref.needle ? " needle" : ""));
    if (ref.src && THUMB_RE.test(ref.src)) {
      var img = document.createElement("img");
      img.src = ref.src;
      img.alt = String(ref.name);
      img.loading = "lazy";
      box.appendChild(img);
    } else {
      box.appendChild(el("span", "img-name", (video ? "[video " : "[image ") + ref.name + "]"));
    }
    var tip = [ref.name];
    if (ref.needle) { tip.push("needle"); }
    if (ref.note) { tip.push(ref.note); }
    box.title = tip.join(" - ");
    return box;
  }

  function videoRef(ref) {
    var box = el("span", "video");
    box.appendChild(el("span", "img-name", "[video " + ref.name + (ref.frames ? ", " + ref.frames + " frames" : "") + "]"));
    ref.thumbs.forEach(function (t) {
      var frame = el("span", "frame");
      var when = Number(t.t).toFixed(1) + " s";
      frame.appendChild(imageRef({src: t.src, name: ref.name + " at " + when, needle: t.needle}, true));
      frame.appendChild(el("span", "ts", when + (t.needle ? " (needle)" : "")));
      box.appendChild(frame);
    });
    return box;
  }

  function segs(segments) {
    var box = el("div", "segs");
    segments.forEach(function (s) {
      var kind = s[0], value = s[1];
      if (kind === "t") { box.appendChild(document.createTextNode(value)); }
      else if (kind === "n") { box.appendChild(el("mark", "needle", value)); }
      else if (kind === "g") { box.appendChild(el("span", "gap", " [\\u2026 " + value + " characters omitted \\u2026] ")); }
      else if (kind === "v" && value.thumbs && value.thumbs.length) { box.appendChild(videoRef(value)); }
      else if (kind === "i" || kind === "v") { box.appendChild(imageRef(value, kind === "v")); }
    });
    return box;
  }

  function section(parent, title, body) {
    parent.appendChild(el("h3", null, title));
    parent.appendChild(body);
  }

  function scoreText(rec) {
    var names = Object.keys(rec.scores || {});
    if (names.length === 0) { return "score " + rec.score; }
    return names.map(function (n) { return n + " " + (+rec.scores[n]).toFixed(3).replace(/\\.?0+$/, ""); }).join(" \\u00b7 ");
  }

  function card(rec) {
    var c = el("article", "sample status-" + rec.status);
    c.setAttribute("data-id", String(rec.id));
    var head = el("header");
    head.appendChild(el("span", "sid", rec.id));
    head.appendChild(el("span", "badge " + rec.status, rec.status));
    // written by the report (task, column bin named by its axis, tokens, depth, media); never "null"
    var meta = rec.meta_line || [rec.task];
    head.appendChild(el("span", "meta", meta.join(" \\u00b7 ")));
    head.appendChild(el("span", "score", scoreText(rec)));
    c.appendChild(head);
    if (rec.note) { c.appendChild(el("p", "note", rec.note)); }
    if (rec.question) { section(c, "Question", segs(rec.question)); }
    if (rec.options) {
      var ol = el("ol", "options");
      ol.type = "A";
      rec.options.forEach(function (o) { var li = el("li"); li.appendChild(segs(o)); ol.appendChild(li); });
      section(c, "Options", ol);
    }
    section(c, "Response", el("pre", "response", rec.response === null ? "(no response)" : rec.response));
    if (rec.error) { section(c, "Error", el("pre", "error", rec.error)); }
    section(c, "Gold", el("pre", "gold", rec.gold));
    if (rec.context) {
      var det = el("details", "context");
      det.open = state.ctx === "1";
      det.appendChild(el("summary", null, rec.context_label || "Context preview"));
      det.appendChild(segs(rec.context));
      c.appendChild(det);
    }
    return c;
  }

  function draw(slice) {
    list.textContent = "";
    slice.forEach(function (r) {
      var records = chunks[r[5]];
      var rec = records ? records[r[6]] : null;
      list.appendChild(rec ? card(rec) : el("p", "note", "sample " + r[7] + ": its data file could not be loaded"));
    });
    document.body.setAttribute("data-rendered", String(slice.length));
    document.body.setAttribute("data-ready", "1");
  }

  function render() {
    var token = ++renderToken;
    var rows = IDX.rows.filter(matches);
    var pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    if (state.page >= pages) { state.page = pages - 1; }
    var slice = rows.slice(state.page * PAGE_SIZE, (state.page + 1) * PAGE_SIZE);
    countEl.textContent = rows.length + " of " + IDX.rows.length + " samples";
    pageEl.textContent = "page " + (state.page + 1) + " / " + pages;
    var need = [];
    slice.forEach(function (r) { if (need.indexOf(r[5]) < 0) { need.push(r[5]); } });
    var left = need.length;
    function done() { if (token === renderToken) { draw(slice); } }
    if (left === 0) { done(); return; }
    need.forEach(function (k) { loadChunk(k, function () { left -= 1; if (left === 0) { done(); } }); });
  }

  function start() {
    readHash();
    var root = document.getElementById("browser");
    var filters = el("div", "filters");
    filters.appendChild(makeSelect("task", "task", IDX.tasks.map(function (t) { return [t, t]; })));
    filters.appendChild(makeSelect("bin", "length bin",
      IDX.bins.map(function (b) { return [b, b]; }).concat([["none", "not binned (< 1k or no length)"]])));
    filters.appendChild(makeSelect("depth", "depth",
      IDX.depths.map(function (d, i) { return [String(i), d]; }).concat([["none", "no depth"]])));
    filters.appendChild(makeSelect("status", "correctness", IDX.statuses.map(function (s) { return [s, s]; })));
    var ctxLabel = el("label", "toggle", "context previews");
    var ctxBox = el("input");
    ctxBox.type = "checkbox";
    ctxBox.id = "filter-ctx";
    ctxBox.checked = state.ctx === "1";
    ctxBox.addEventListener("change", function () { state.ctx = ctxBox.checked ? "1" : ""; writeHash(); render(); });
    ctxLabel.appendChild(ctxBox);
    filters.appendChild(ctxLabel);
    countEl = el("span", "count");
    filters.appendChild(countEl);
    root.appendChild(filters);
    var pager = el("div", "pager");
    var prev = el("button", null, "\\u2190 previous"), next = el("button", null, "next \\u2192");
    pageEl = el("span");
    prev.addEventListener("click", function () { if (state.page > 0) { state.page -= 1; render(); } });
    next.addEventListener("click", function () { state.page += 1; render(); });
    pager.appendChild(prev); pager.appendChild(pageEl); pager.appendChild(next);
    root.appendChild(pager);
    list = el("div", "samples");
    root.appendChild(list);
    (IDX.notes || []).forEach(function (n) { root.insertBefore(el("p", "note", n), filters); });
    render();
  }

  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
"""
