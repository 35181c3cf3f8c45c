"""Small hand-made copies of the benchmarks' public files, in their repositories' layouts, for the fetch tests: a
mirror folder ({owner/repo}/{commit}/{path}) a loopback server serves, or a folder to give --from."""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

from entailgen.training.benchmarks.sources import BENCHMARKS, rank19, summac, true

K1, K2, K3 = "Jazz began in New Orleans.", "Paris is the capital of France.", "Cats sleep a lot."
SPAN_HEADER = ["bbcid", "system", "summary", "hallucination_type", "hallucinated_span", "hallucinated_span_start",
               "hallucinated_span_end", "worker_id"]
SUMMEVAL_DOCS = ("Paul Merson has restarted his row.", "Chelsea have made an offer for Muto.")  # articles A0, A1
# the experts' mean consistency of (article, system), 5.0 where not given: 11/3 and 4.0 decided by the 100-row file's
# scores, 13/3 by nothing (left out), 10/3 and 1.0 inconsistent, 14/3 consistent
SUMMEVAL_MEANS = {(0, 0): 11 / 3, (0, 2): 13 / 3, (0, 3): 10 / 3, (0, 4): 14 / 3, (1, 1): 4.0, (1, 15): 1.0}
FRANK_BBCID = summac.FRANK_XSUM_ARTICLES[0].name.removesuffix(".json")  # an XSumFaith article SummaC's file lacks


def summeval_rows() -> bytes:
    """PPairS' data/summeval.jsonl: 2 articles x 16 systems in order, the experts' consistency averaged."""
    return "".join(json.dumps({"article_id": f"A{a}", "summary_id": f"S{s}", "article": SUMMEVAL_DOCS[a],
                               "summary": f"Summary {s} of article {a}.", "coherence": 3.0,
                               "consistency": SUMMEVAL_MEANS.get((a, s), 5.0)}) + "\n"
                   for a in range(2) for s in range(16)).encode()


def pinned_to_these(monkeypatch) -> None:
    """Every benchmark's files pinned to these copies' sha256s (the real pins are the real files'), so a test
    still runs the sha256 check."""
    contents = source_files()
    for name, benchmark in list(BENCHMARKS.items()):
        files = tuple(dataclasses.replace(f, sha256=hashlib.sha256(contents[f.path]).hexdigest())
                      for f in benchmark.files)
        monkeypatch.setitem(BENCHMARKS, name, dataclasses.replace(benchmark, files=files))


def csv_bytes(header, rows, delimiter=",") -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode()


def workbook(sheets: dict[str, dict[int, list]], shared: bool = False) -> bytes:
    """An Excel workbook's bytes: each sheet's rows by row number (a number missing is a gap), its text inline or in
    the shared strings table."""
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    strings: list[str] = []

    def cell(ref: str, value) -> str:
        if value is None:
            return ""
        if isinstance(value, (int, float)):
            return f'<c r="{ref}"><v>{value}</v></c>'
        if shared:
            strings.append(value)
            return f'<c r="{ref}" t="s"><v>{len(strings) - 1}</v></c>'
        return f'<c r="{ref}" t="inlineStr"><is><t>{escape(value)}</t></is></c>'

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("xl/workbook.xml", f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>' + "".join(
            f'<sheet name="{name}" sheetId="{i}" r:id="rId{i}"/>' for i, name in enumerate(sheets, 1)) +
            "</sheets></workbook>")
        z.writestr("xl/_rels/workbook.xml.rels",
                   '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' + "".join(
                       f'<Relationship Id="rId{i}" Type="{rel}/worksheet" Target="worksheets/sheet{i}.xml"/>'
                       for i in range(1, len(sheets) + 1)) + "</Relationships>")
        for i, rows in enumerate(sheets.values(), 1):
            body = "".join(f'<row r="{n}">' + "".join(cell(f"{'ABC'[c]}{n}", v) for c, v in enumerate(values)) +
                           "</row>" for n, values in sorted(rows.items()))
            z.writestr(f"xl/worksheets/sheet{i}.xml", f'<worksheet xmlns="{main}"><sheetData>{body}</sheetData>'
                                                      "</worksheet>")
        if shared:
            z.writestr("xl/sharedStrings.xml", f'<sst xmlns="{main}">' + "".join(
                f"<si><t>{escape(s)}</t></si>" for s in strings) + "</sst>")
    return out.getvalue()


def polytope_book(system: str) -> bytes:
    """BART's workbook holds three summaries (row 4 a gap: it still takes its turn in the val / test order); the
    others hold none."""
    if system != "BART":
        return workbook({"Scores per segment": {1: ["ID", "Source", "Target"]}, "Error Log": {1: ["ID", "Subtypes"]}})
    return workbook({"Scores per segment": {1: ["ID", "Source", "Target"], 2: [1, "Doc A.", "sum one"],
                                            3: [2, "Doc A.", "sum two"], 5: [3, "Doc B.", "sum three"]},
                     "Error Log": {1: ["ID", "Subtypes"], 2: [1, "Addition"], 3: [1, None], 4: [3, "Omission"]}},
                    shared=True)


def source_files() -> dict[str, bytes]:
    """Every benchmark's source files by repository path (a path shared by two benchmarks is one file)."""
    files = {
        rank19.PAIRS.path: json.dumps([{"article_sent": K1, "correct_sent": "Jazz began in New Orleans.",
                                        "incorrect_sent": "Jazz began in Paris."},
                                       {"article_sent": K3, "correct_sent": "Cats sleep.",
                                        "incorrect_sent": "Dogs sleep."}]).encode(),
        true.Q2_CROSS.path: csv_bytes(
            ["knowledge", "dodeca_response", "dodeca_label", "memnet_response", "memnet_label"],
            [[K1, "It began in New Orleans.", "0", "It began in Paris.", "1"],
             [K2, "Lyon is the capital.", "1", "It is Paris.", "0"]]),
        **{f"third_party/data/{name}.csv": csv_bytes(["knowledge", "response"], [row]) for name, row in (
            ("dodeca_consistent", [K1, "It began in  New Orleans."]),  # whitespace aside, the cross annotation's
            ("dodeca_inconsistent", [K2, "Lyon is the capital."]), ("memnet_consistent", [K2, "It is Paris."]),
            ("memnet_inconsistent", [K1, "It began in Paris."]))},
        summac.XSUMFAITH_CSV.path: csv_bytes(SPAN_HEADER, [
            ["100", "BERTS2S", "s a", "extrinsic", "paris", "3", "8", "wid_0"],
            ["100", "BERTS2S", "s a", "NULL", "NULL", "NULL", "NULL", "wid_1"],
            ["100", "BERTS2S", "s a", "extrinsic", "paris", "3", "8", "wid_2"],
            ["100", "Gold", "g a", "NULL", "NULL", "NULL", "NULL", "wid_0"],
            ["200", "BERTS2S", "s b", "NULL", "NULL", "NULL", "NULL", "wid_0"],
            ["300", "PtGen", "p c", "intrinsic", "cats", "1", "5", "wid_0"],
            ["300", "PtGen", "p c", "NULL", "NULL", "NULL", "NULL", "wid_1"],
            ["300", "PtGen", "p c", "NULL", "NULL", "NULL", "NULL", "wid_2"],
            [FRANK_BBCID, "TranS2S", "t f", "NULL", "NULL", "NULL", "NULL", "wid_0"]]),
        summac.SUMMAC_XSUMFAITH.path: json.dumps({
            "xsumfaith_0": {"document": "Article 100.", "claim": "s a", "bbcid": 100, "label": 0, "cut": "val"},
            "xsumfaith_1": {"document": "Article 300.", "claim": "p c", "bbcid": "300", "label": 1, "cut": "val"}}
        ).encode(),
        summac.SUMMAC_SUMMEVAL.path: json.dumps({  # row k: article k's first val row in SummaC's order
            "summeval_0": {"document": SUMMEVAL_DOCS[0], "claim": "summary 0 of  article 0.", "label": "1",
                           "model_name": "M11", "annotations": [5, 5, 1], "cut": "val", "dataset": "summeval"},
            "summeval_1": {"document": SUMMEVAL_DOCS[1], "claim": "summary 1 of article 1.", "label": "0",
                           "model_name": "M13", "annotations": [5, 4, 3], "cut": "val", "dataset": "summeval"}}
        ).encode(),
        summac.PPAIRS_SUMMEVAL.path: summeval_rows(),
        **{f.path: json.dumps({"hash": f.name.removesuffix(".json"), "Gold": "g",
                               "article": "Share this withEmailFacebookCopy this linkFRANK's article " + f.name})
           .encode() for f in summac.FRANK_XSUM_ARTICLES},
        summac.FRANK_TEXTS.path: json.dumps([
            {"hash": "h1", "model_name": "bart", "article": "Art 1.", "summary": "Sum 1 bart.", "reference": "R1."},
            {"hash": "h1", "model_name": "pgn", "article": "Art 1.", "summary": "Sum 1 pgn.", "reference": "R1."},
            {"hash": "h2", "model_name": "bart", "article": "Art 2.", "summary": "Sum 2 bart.", "reference": "R2."}]
        ).encode(),
        summac.FRANK_LABELS.path: json.dumps([
            {"hash": "h1", "model_name": "bart", "dataset": "cnndm", "Factuality": 1.0, "split": "valid"},
            {"hash": "h1", "model_name": "pgn", "dataset": "cnndm", "Factuality": 0.6666666667, "split": "valid"},
            {"hash": "h2", "model_name": "bart", "dataset": "bbc", "Factuality": 0.0, "split": "test"}]).encode(),
    }
    begin = {"dev": [[K1, "It began in New Orleans.", "Fully attributable"], [K1, "I love jazz!", "Generic"]],
             "test": [[K2, "Paris, on the Loire.", "Not fully attributable"],
                      [K2, "Paris it is.", "Fully attributable"]]}
    for cut, remote in true.BEGIN_FILES.items():
        for n, file in enumerate(remote):
            rows = begin[cut] if n == 0 else []  # cmu-dog's file holds the rows; the others a header only
            files[file.path] = csv_bytes(["model_name", "data_source", "knowledge", "message", "response",
                                          "begin_label"], [["t5", "cmu", k, "hi", r, label] for k, r, label in rows],
                                         delimiter="\t")
    for file in summac.POLYTOPE:
        files[file.path] = polytope_book(file.path.rsplit("_Summarization_", 1)[1].removesuffix(".xlsm"))
    return files


def write_mirror(root: Path, names=tuple(BENCHMARKS)) -> Path:
    """The benchmarks' source files under root as a mirror serves them: {owner/repo}/{commit}/{path}."""
    contents = source_files()
    for name in names:
        for file in BENCHMARKS[name].files:
            path = root / file.repo / file.commit / file.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(contents[file.path])
    return root


def write_by_hand(root: Path, name: str) -> Path:
    """A benchmark's source files as a user downloads them by hand: one folder, each file under its own name."""
    contents = source_files()
    root.mkdir(parents=True, exist_ok=True)
    for file in BENCHMARKS[name].files:
        (root / file.name).write_bytes(contents[file.path])
    return root
