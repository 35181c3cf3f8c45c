"""SummaC's four sets that can be fetched (XSumFaith, Polytope, SummEval, FRANK; Laban et al. 2022) in SummaC's dict
layout (`<set>.json`: id -> {document, claim, label, cut, dataset, model_name, ...}), which `evaluate --benchmark
summac DIR/*.json` reads. Each is made by SummaC's own loader's rules from the public files it reads:

- XSumFaith: Google's annotations (hallucination_annotations_xsum_summaries.csv), one row per (bbcid, system) in the
  file's order, val and test in turn, consistent when the annotators' most common hallucination type is NULL. The
  XSum articles are on the Hugging Face hub only, so they come from the SummaC repository's val file
  (data/xsumfaith.json) by bbcid: 485 of the 500 articles; a row without its article is left out and counted.
- Polytope: the nine annotated workbooks of the Polytope repository; in each "Scores per segment" sheet the rows are
  val and test in turn, and a summary is consistent when the "Error Log" sheet gives it no error subtype.
- SummEval: the SummaC repository's data/summeval.json, which holds a val cut only (SummEval's own annotations are on
  Google Drive, not at a URL): its rows are cut in two by a hash of the document (document_half), so no document is
  in both cuts.
- FRANK: the FRANK repository's benchmark_data.json (articles and summaries) and human_annotations.json (labels, its
  val / test split); consistent only when no summary sentence has an error (Factuality 1.0).
The cuts of XSumFaith and Polytope share articles (SummaC's rule: a document's summaries go to val and test in turn).
"""
from __future__ import annotations

import collections
import hashlib
import json
import re
import xml.etree.ElementTree as ET
import zipfile

from entailgen.training.benchmarks.fetch import Benchmark, Converted, FetchError, RemoteFile, read_json, table_rows

SUMMAC = "tingofurro/summac", "fbd18e22cc93e68179ae9264c9e12d82a65895f2"  # the snapshot holding data/<set>.json
XSUMFAITH_CSV = RemoteFile("google-research-datasets/xsum_hallucination_annotations",
                           "4abdbb2c807cb93c1df1188a1992d20a55cdcc34", "hallucination_annotations_xsum_summaries.csv")
SUMMAC_XSUMFAITH = RemoteFile(*SUMMAC, "data/xsumfaith.json")
SUMMAC_SUMMEVAL = RemoteFile(*SUMMAC, "data/summeval.json")
POLYTOPE_SYSTEMS = ("BART", "Bert_Ext", "Bert_Ext_Abs", "BottomUp", "PG", "PG_Coverage", "Summa", "TextRank",
                    "seq2seq")  # SummaC's loader's list: one workbook each
POLYTOPE = tuple(RemoteFile("hddbang/PolyTope", "6bcbe2b27062b35cc002cb8d13e7c6ce5718984d",
                            f"outputs_with_human_annotation/Human_Annotation_Summarization_{system}.xlsm")
                 for system in POLYTOPE_SYSTEMS)
FRANK = "artidoro/frank", "24d218ba4adcb8c9e4136ec91d055adead37be91"
FRANK_TEXTS = RemoteFile(*FRANK, "data/benchmark_data.json")
FRANK_LABELS = RemoteFile(*FRANK, "data/human_annotations.json")
FRANK_CUTS = {"valid": "val", "test": "test"}
ANNOTATION_COLUMNS = ("bbcid", "system", "summary", "hallucination_type")


def document_half(document: str) -> str:
    """The cut of a document of a set that has a val cut only: a hash of its text, so it always lands alike."""
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


def summeval_rows(path: str) -> dict[str, dict]:
    """SummaC's SummEval val rows, cut in two by document_half."""
    rows = read_json(path)
    if not isinstance(rows, dict) or not all(isinstance(r, dict) and isinstance(r.get("document"), str)
                                             for r in rows.values()):
        raise FetchError(f"{path}: not SummaC's dict layout (id -> row with a document)")
    return {key: {**row, "cut": document_half(row["document"])} for key, row in rows.items()}


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
    xsumfaith, missing = xsumfaith_rows(local[XSUMFAITH_CSV.path], articles_by_bbcid(local[SUMMAC_XSUMFAITH.path]))
    sets = {"xsumfaith.json": xsumfaith,
            "polytope.json": polytope_rows({f.path: local[f.path] for f in POLYTOPE}),
            "summeval.json": summeval_rows(local[SUMMAC_SUMMEVAL.path]),
            "frank.json": frank_rows(local[FRANK_TEXTS.path], local[FRANK_LABELS.path])}
    return Converted(files={name: json.dumps(rows) for name, rows in sets.items()},
                     rows={name: len(rows) for name, rows in sets.items()},
                     notes=(f"xsumfaith: {missing} (article, system) pairs left out, their article not in SummaC's "
                            "data/xsumfaith.json",) if missing else ())


BENCHMARK = Benchmark("summac", "SummaC's XSumFaith, Polytope, SummEval and FRANK (evaluate --benchmark summac)",
                      (XSUMFAITH_CSV, SUMMAC_XSUMFAITH, *POLYTOPE, SUMMAC_SUMMEVAL, FRANK_TEXTS, FRANK_LABELS),
                      convert)
