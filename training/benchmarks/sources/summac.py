"""SummaC's four sets that can be fetched (XSumFaith, Polytope, SummEval, FRANK; Laban et al. 2022) in SummaC's dict
layout (`<set>.json`: id -> {document, claim, label, cut, dataset, model_name, ...}), which `evaluate --benchmark
summac DIR/*.json` reads. Each is made by SummaC's own loader's rules from the public files it reads:

- XSumFaith: Google's annotations (hallucination_annotations_xsum_summaries.csv), one row per (bbcid, system) in the
  file's order, val and test in turn, consistent when the annotators' most common hallucination type is NULL. The
  XSum articles are on the Hugging Face hub only, so they come from the SummaC repository's val file
  (data/xsumfaith.json) by bbcid (485 of the 500 articles) and 8 of the other 15 from FRANK's per-article files
  (their text has no line breaks; the BBC page's share bar is cut off): 493; a row without its article is left out
  and counted.
- Polytope: the nine annotated workbooks of the Polytope repository; in each "Scores per segment" sheet the rows are
  val and test in turn, and a summary is consistent when the "Error Log" sheet gives it no error subtype.
- SummEval: SummEval's 100 articles x 16 systems as maiush/PPairS' data/summeval.jsonl holds them (SummEval's own
  file is on Google Drive, not at a URL), each with its three experts' consistency averaged. SummaC's label (consistent
  when more than half of the experts gave 5) is told by the mean where it can be (summeval_label), else by the
  per-expert scores of the SummaC repository's 100-row data/summeval.json; a row neither tells is left out and
  counted. The cut is the one the row has in SummaC's alternating order (summeval_cut).
- FRANK: the FRANK repository's benchmark_data.json (articles and summaries) and human_annotations.json (labels, its
  val / test split); consistent only when no summary sentence has an error (Factuality 1.0).
The cuts of XSumFaith and Polytope share articles (SummaC's rule: a document's summaries go to val and test in turn).
"""
from __future__ import annotations

import collections
import hashlib
import json
import os
import re
import xml.etree.ElementTree as ET
import zipfile
from typing import Optional, Sequence

from entailgen.training.benchmarks.fetch import Benchmark, Converted, FetchError, RemoteFile, read_json, table_rows

SUMMAC = "tingofurro/summac", "fbd18e22cc93e68179ae9264c9e12d82a65895f2"  # the snapshot holding data/<set>.json
XSUMFAITH_CSV = RemoteFile("google-research-datasets/xsum_hallucination_annotations",
                           "4abdbb2c807cb93c1df1188a1992d20a55cdcc34", "hallucination_annotations_xsum_summaries.csv",
                           "fa7fb66a36cc0f32ede4135985d0d65591dc2a8d21103a0bacd0583d77d4c8ea")
SUMMAC_XSUMFAITH = RemoteFile(*SUMMAC, "data/xsumfaith.json",
                              "b7d2cbd362a5b9086911ecb10088da71f70c03e8bf8a2be57e20f197fbb09d02")
SUMMAC_SUMMEVAL = RemoteFile(*SUMMAC, "data/summeval.json",
                             "5a0615322704d8e75870221573619031b8b37777fd08039e6a5eed37f7df9c6e")
PPAIRS_SUMMEVAL = RemoteFile("maiush/PPairS", "0beef748c02726db1a781784eeb19bae8d219c19", "data/summeval.jsonl",
                             "7b152ee2f44aca4259e4bbde69900bd0aebc97550d95d54681430595f0fb94d3")
SUMMEVAL_SYSTEMS = 16  # per article in PPairS' file: SummEval's 17 less M23_dynamicmix, the last of SummaC's 17
SUMMEVAL_EXPERTS = 3
FRANK_XSUM = "artidoro/frank", "5860706bda0641136d10d27ead52c5f6ae79630e"  # the per-article files (XSum's by bbcid)
FRANK_XSUM_ARTICLES = tuple(RemoteFile(*FRANK_XSUM, f"data/articles-wbertscore-json/{bbcid}.json", sha256) for
                            bbcid, sha256 in (
    ("24522070", "31d7d1767d54e63d3e3aca353dfcf716a516a5c380905307b35f022a6ea077a0"),
    ("27838706", "06e3c8ab742e73c9483fcde493220f5b06295e7526f00d0c3db8b619b60b5631"),
    ("33055691", "2c6ea175f7eaccc9c09579b4633dbf636f014876900798ba3aa4f94837712540"),
    ("34768820", "7757ef287245035825bc4919576699e878ee707759a6648a811186a4a871f12e"),
    ("35419902", "35a115f7eec8982465a0bb728adb132598d6c6a7b0eece3f8df6a5fb984ec2bd"),
    ("36415371", "0d1f13cdd47dc1fe452aa1a56819f5fe014cfb33a402f47383cb95d1f1d0fff8"),
    ("36964876", "10056fafecf923cdcfb186f12110aef059671c96776bc487d4d133579e8578b3"),
    ("39497668", "be5cd61c35b0236b4b221e9abe2a9c7121a4f47bc842696e6af3ebfe4e5ce156")))
# the BBC page's share buttons (English, Welsh) that FRANK's text begins with; SummaC's copy has none
SHARE_BAR = re.compile(
    r"^(Share this with.{0,120}?Copy this link"
    r"|Rhannu hwn ar.{0,120}?Copïo’r ddolen yma(Mae’r rhain yn ddolenni allanol ac yn agor mewn ffenest newydd)?)")
POLYTOPE_SYSTEMS = {  # SummaC's loader's list: one workbook each, and its sha256
    "BART": "780004669d3fa7a11b5194d35e1c82be7f55fa75946bf4327c74982cfa5ed12f",
    "Bert_Ext": "9d73140efe2395cd7f91a947d484b46c1022283ecc2f56ea317bf99579d88df8",
    "Bert_Ext_Abs": "b24c7b57d7d4ad1112511c3a5ae1adcc2e57e54d23ba6bb592ea851a3b54dbb7",
    "BottomUp": "1c5a62563beecc67bae4173e34a2b194b8e22bf78861581576ec22e42dc40404",
    "PG": "09dbf5421e6a676842b9191d7d2aaf7b336af30226e70c6233acdf4f4e40089e",
    "PG_Coverage": "2d3afa408cb85f4eced7b8bf3ae116d55bf46bd5043c98905767ddf567451dd5",
    "Summa": "0437c5f9fb7a59d7b0f163e1b2876e6a6fe53a916b12118ba0d40dc3e6bb9bb4",
    "TextRank": "54e1b4cdd081b85b0ac8ce23725b86073fbcc25e83d2c103dc66c4105e8852df",
    "seq2seq": "85ef21e9cb4aa36c9baecf333e3a39ac7a0cf1b185816e67a4ffe74673782afe"}
POLYTOPE = tuple(RemoteFile("hddbang/PolyTope", "6bcbe2b27062b35cc002cb8d13e7c6ce5718984d",
                            f"outputs_with_human_annotation/Human_Annotation_Summarization_{system}.xlsm", sha256)
                 for system, sha256 in POLYTOPE_SYSTEMS.items())
FRANK = "artidoro/frank", "24d218ba4adcb8c9e4136ec91d055adead37be91"
FRANK_TEXTS = RemoteFile(*FRANK, "data/benchmark_data.json")  # 4 MiB and more: its bytes could not be read to pin
FRANK_LABELS = RemoteFile(*FRANK, "data/human_annotations.json",
                          "7be2dfd49ad2f2582ab28578cce1dbf256fd46415a0f902a472421bca6fe31d2")
FRANK_CUTS = {"valid": "val", "test": "test"}
ANNOTATION_COLUMNS = ("bbcid", "system", "summary", "hallucination_type")


def document_half(document: str) -> str:
    """The half of the documents a document falls in, by a hash of its text, so it always lands alike: how
    bench/benchmark.py keeps a set whose cuts share documents from training on a test document."""
    return "val" if int(hashlib.sha256(document.encode()).hexdigest()[:8], 16) % 2 == 0 else "test"


def articles_by_bbcid(path: str) -> dict[str, str]:
    """bbcid -> article, from the SummaC repository's XSumFaith file."""
    rows = read_json(path)
    if not isinstance(rows, dict):
        raise FetchError(f"{path}: not SummaC's dict layout (id -> row)")
    try:
        return {str(r["bbcid"]): r["document"] for r in rows.values()}
    except (KeyError, TypeError) as e:
        raise FetchError(f"{path}: a row without {e} (SummaC's XSumFaith rows have bbcid and document)")


def xsumfaith_rows(annotations: str, articles: dict[str, str]) -> tuple[dict[str, dict], int]:
    """Every (bbcid, system) of the annotations whose article is known, with SummaC's cut; and how many had none."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for a in table_rows(annotations, ANNOTATION_COLUMNS):
        groups.setdefault((a["bbcid"], a["system"]), []).append(a)
    rows, missing = {}, 0
    for i, ((bbcid, system), annotated) in enumerate(groups.items()):
        if bbcid not in articles:
            missing += 1
            continue
        types = [a["hallucination_type"] for a in annotated]
        rows[f"xsumfaith-{bbcid}-{system}"] = {
            "document": articles[bbcid], "claim": annotated[0]["summary"],
            "label": int(collections.Counter(types).most_common(1)[0][0] == "NULL"),
            "cut": "val" if i % 2 == 0 else "test", "dataset": "xsumfaith", "model_name": system, "bbcid": bbcid}
    return rows, missing


MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
RELATION = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def _cell_value(cell, shared: list[str]):
    """A cell's value as openpyxl gives it: text, an int or a float, None when empty."""
    kind, value = cell.get("t"), cell.find(f"{MAIN}v")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{MAIN}t"))
    if value is None or value.text is None:
        return None
    if kind == "s":
        return shared[int(value.text)]
    if kind in ("str", "e"):
        return value.text
    if kind == "b":
        return value.text == "1"
    return float(value.text) if re.search(r"[.eE]", value.text) else int(value.text)


def sheet_rows(path: str, sheet: str) -> list[tuple]:
    """The rows of one sheet of an Excel workbook (.xlsx / .xlsm), from row 1, a missing row empty, as openpyxl reads
    them: the standard library reads the two sheets Polytope needs, so entailgen needs no Excel package."""
    try:
        with zipfile.ZipFile(path) as book:
            names = set(book.namelist())
            workbook = ET.fromstring(book.read("xl/workbook.xml"))
            targets = {r.get("Id"): r.get("Target") for r in ET.fromstring(book.read("xl/_rels/workbook.xml.rels"))}
            ids = {s.get("name"): s.get(f"{RELATION}id") for s in workbook.iter(f"{MAIN}sheet")}
            if sheet not in ids:
                raise FetchError(f"{path}: no sheet {sheet!r} (its sheets: {', '.join(ids)})")
            target = targets[ids[sheet]]
            target = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
            shared = (["".join(t.text or "" for t in si.iter(f"{MAIN}t"))
                       for si in ET.fromstring(book.read("xl/sharedStrings.xml"))]
                      if "xl/sharedStrings.xml" in names else [])
            rows: dict[int, dict[int, object]] = {}
            for row in ET.fromstring(book.read(target)).iter(f"{MAIN}row"):
                cells = {}
                for cell in row.iter(f"{MAIN}c"):
                    letters = re.match(r"[A-Z]+", cell.get("r", "")).group(0)
                    column = 0
                    for letter in letters:
                        column = column * 26 + ord(letter) - 64
                    cells[column - 1] = _cell_value(cell, shared)
                rows[int(row.get("r"))] = cells
    except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError, AttributeError) as e:
        raise FetchError(f"cannot read {path} as an Excel workbook: {getattr(e, 'strerror', None) or e}")
    width = max((max(cells) + 1 for cells in rows.values() if cells), default=0)
    return [tuple(rows.get(n, {}).get(c) for c in range(width)) for n in range(1, max(rows, default=0) + 1)]


def _records(path: str, sheet: str, columns: tuple[str, ...]) -> list[dict]:
    """A sheet's rows under its header (row 1); FetchError when the header lacks a column."""
    head, *rows = sheet_rows(path, sheet) or [()]
    missing = [c for c in columns if c not in head]
    if missing:
        raise FetchError(f"{path}, sheet {sheet!r}: no column {', '.join(missing)}")
    return [dict(zip(head, cells)) for cells in rows]


def polytope_rows(workbooks: dict[str, str]) -> dict[str, dict]:
    """Every annotated summary of every workbook (its repository path -> local copy), with SummaC's cut."""
    rows = {}
    for remote, path in sorted(workbooks.items()):
        stem = remote.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        found, errors = {}, collections.defaultdict(list)
        for i, segment in enumerate(_records(path, "Scores per segment", ("ID", "Source", "Target"))):
            if segment["ID"] is not None:
                found[segment["ID"]] = (segment["Source"], segment["Target"], "val" if i % 2 == 0 else "test")
        for entry in _records(path, "Error Log", ("ID", "Subtypes")):
            if entry["Subtypes"] is not None:
                errors[entry["ID"]].append(entry["Subtypes"])
        for segment_id, (document, claim, cut) in found.items():
            rows[f"polytope-{stem}-{segment_id}"] = {
                "document": document, "claim": claim, "label": int(not errors[segment_id]), "cut": cut,
                "dataset": "polytope", "model_name": stem.removeprefix("Human_Annotation_Summarization_"),
                "errors": errors[segment_id]}
    return rows


def summeval_label(mean: float, experts: Optional[Sequence[int]] = None) -> Optional[int]:
    """SummaC's SummEval label, 1 when more than half of the experts gave 5, from their scores where known, else from
    their mean where it alone decides: a total of 14 or 15 needs two 5s, one of 10 or less allows one at most; 11-13
    can be either (None)."""
    if experts is not None:
        return int(sum(score == 5 for score in experts) > len(experts) / 2)
    total = round(mean * SUMMEVAL_EXPERTS)
    return 1 if total >= 4 * SUMMEVAL_EXPERTS + 2 else 0 if total <= 3 * SUMMEVAL_EXPERTS + 1 else None


def summeval_cut(article: int, system: int) -> str:
    """The cut SummaC gives a row: it alternates val / test over its file of 17 rows per article, where PPairS' 16
    are in the same order and M23_dynamicmix comes last, so row (article, system) is row 17 * article + system."""
    return "val" if (17 * article + system) % 2 == 0 else "test"


def _same_text(a: str, b: str) -> bool:
    """Two copies of one summary, whatever their case and spacing."""
    return " ".join(a.split()).lower() == " ".join(b.split()).lower()


def summeval_experts(path: str, rows: list[dict]) -> dict[int, list[int]]:
    """Row index -> the experts' scores, from the SummaC repository's 100-row file: its row k is the first val row
    of article k in SummaC's order (system 0 or 1); FetchError when its summary or mean is not that row's."""
    entries = read_json(path)
    if not isinstance(entries, dict):
        raise FetchError(f"{path}: not SummaC's dict layout (id -> row)")
    found = {}
    for key, entry in entries.items():
        try:
            article, experts, claim = int(key.rsplit("_", 1)[1]), [int(x) for x in entry["annotations"]], entry["claim"]
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise FetchError(f"{path} {key}: not a SummaC SummEval row with annotations ({e})")
        index = SUMMEVAL_SYSTEMS * article + article % 2
        if not experts or index >= len(rows) or not _same_text(rows[index]["summary"], str(claim)) or abs(
                sum(experts) / len(experts) - rows[index]["consistency"]) > 1e-6:
            raise FetchError(f"{path} {key}: not the summary and scores of the SummEval row it stands for "
                             f"(article {article}, system {article % 2})")
        found[index] = experts
    return found


def ppairs_rows(path: str) -> list[dict]:
    """PPairS' SummEval rows, checked: 16 systems per article in order, each with its texts and mean consistency."""
    try:
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise FetchError(f"cannot read {path} as JSON Lines: {getattr(e, 'strerror', None) or e}")
    for n, row in enumerate(rows):
        article, system = divmod(n, SUMMEVAL_SYSTEMS)
        try:
            ids, texts = (row["article_id"], row["summary_id"]), (row["article"], row["summary"])
            mean = row["consistency"]
        except (KeyError, TypeError) as e:
            raise FetchError(f"{path} line {n + 1}: no {e} (PPairS' rows have article_id, summary_id, article, "
                             "summary, consistency)")
        if ids != (f"A{article}", f"S{system}"):
            raise FetchError(f"{path} line {n + 1}: {ids[0]} {ids[1]}, not A{article} S{system} (PPairS' file holds "
                             f"{SUMMEVAL_SYSTEMS} systems per article in order)")
        if not all(isinstance(t, str) for t in texts) or isinstance(mean, bool) or not isinstance(mean, (int, float)):
            raise FetchError(f"{path} line {n + 1}: article and summary must be text and consistency a number")
    return rows


def summeval_rows(path: str, experts_path: str) -> tuple[dict[str, dict], int]:
    """SummEval's rows with SummaC's label and cut; and how many neither the mean nor the experts' scores decide."""
    rows = ppairs_rows(path)
    experts = summeval_experts(experts_path, rows)
    out, undecided = {}, 0
    for n, row in enumerate(rows):
        article, system = divmod(n, SUMMEVAL_SYSTEMS)
        label = summeval_label(row["consistency"], experts.get(n))
        if label is None:
            undecided += 1
            continue
        out[f"summeval-{row['article_id']}-{row['summary_id']}"] = {
            "document": row["article"], "claim": row["summary"], "label": label, "cut": summeval_cut(article, system),
            "dataset": "summeval", "model_name": row["summary_id"], "consistency": row["consistency"],
            **({"annotations": experts[n]} if n in experts else {})}
    return out, undecided


def frank_xsum_articles(paths: Sequence[str]) -> dict[str, str]:
    """bbcid -> article from FRANK's per-article files (one line, the page's share bar cut off)."""
    found = {}
    for path in paths:
        entry = read_json(path)
        if not isinstance(entry, dict) or not isinstance(entry.get("article"), str):
            raise FetchError(f"{path}: not a FRANK article file (an object with article)")
        found[os.path.basename(path).removesuffix(".json")] = SHARE_BAR.sub("", entry["article"])
    return found


def xsum_articles(local: dict[str, str]) -> dict[str, str]:
    """bbcid -> XSum article: SummaC's file's, and FRANK's for those it lacks."""
    return {**frank_xsum_articles([local[f.path] for f in FRANK_XSUM_ARTICLES]),
            **articles_by_bbcid(local[SUMMAC_XSUMFAITH.path])}


def frank_rows(texts_path: str, labels_path: str) -> dict[str, dict]:
    """Every annotated (article, summary) of FRANK as a row; an annotation without its texts, or with a split other
    than valid / test, is refused in one line."""
    try:
        texts = {(d["hash"], d["model_name"]): (d["article"], d["summary"]) for d in read_json(texts_path)}
    except (KeyError, TypeError) as e:
        raise FetchError(f"{texts_path}: an entry without {e} (FRANK's entries have hash, model_name, article, "
                         "summary)")
    rows = {}
    for n, a in enumerate(read_json(labels_path), 1):
        try:
            key, factuality, split = (a["hash"], a["model_name"]), a["Factuality"], a["split"]
        except (KeyError, TypeError) as e:
            raise FetchError(f"{labels_path} entry {n}: no {e} (FRANK's annotations have hash, model_name, "
                             "Factuality, split)")
        if key not in texts:
            raise FetchError(f"{labels_path} entry {n}: no article or summary for {key} in {texts_path}")
        if split not in FRANK_CUTS:
            raise FetchError(f"{labels_path} entry {n}: split {split!r}, neither {' nor '.join(FRANK_CUTS)}")
        document, claim = texts[key]
        rows[f"{a['hash']}-{a['model_name']}"] = {
            "document": document, "claim": claim, "label": int(float(factuality) == 1.0), "cut": FRANK_CUTS[split],
            "dataset": "frank", "model_name": a["model_name"], "origin": a.get("dataset")}
    return rows


def convert(local: dict[str, str]) -> Converted:
    """The four sets' files from the sources' local copies (keyed by repository path)."""
    xsumfaith, missing = xsumfaith_rows(local[XSUMFAITH_CSV.path], xsum_articles(local))
    summeval, undecided = summeval_rows(local[PPAIRS_SUMMEVAL.path], local[SUMMAC_SUMMEVAL.path])
    sets = {"xsumfaith.json": xsumfaith,
            "polytope.json": polytope_rows({f.path: local[f.path] for f in POLYTOPE}),
            "summeval.json": summeval,
            "frank.json": frank_rows(local[FRANK_TEXTS.path], local[FRANK_LABELS.path])}
    notes = ((f"xsumfaith: {missing} (article, system) pairs left out, their article in neither SummaC's "
              "data/xsumfaith.json nor FRANK's article files",) if missing else ()) + (
        (f"summeval: {undecided} rows left out, their experts' mean (11/3 to 13/3) not telling whether most gave 5 "
         "and SummaC's 100-row file not holding their scores",) if undecided else ())
    return Converted(files={name: json.dumps(rows) for name, rows in sets.items()},
                     rows={name: len(rows) for name, rows in sets.items()}, notes=notes)


BENCHMARK = Benchmark("summac", "SummaC's XSumFaith, Polytope, SummEval and FRANK (evaluate --benchmark summac)",
                      (XSUMFAITH_CSV, SUMMAC_XSUMFAITH, *FRANK_XSUM_ARTICLES, *POLYTOPE, PPAIRS_SUMMEVAL,
                       SUMMAC_SUMMEVAL, FRANK_TEXTS, FRANK_LABELS),
                      convert)
