"""`entailgen benchmarks fetch`: each benchmark's hand-made source files served by a loopback HTTP server (or given
with --from), converted into the exact rows evaluate's readers read; a pinned sha256 that differs, a 404 and a refused
connection each end in one line and exit 2, with nothing written; a user's files are never replaced."""
import codecs
import contextlib
import dataclasses
import functools
import gzip
import hashlib
import http.server
import json
import re
import socket
import threading
import time

import pytest

from benchmark_sources import (FRANK_BBCID, K1, K2, K3, SUMMEVAL_DOCS, pinned_to_these, source_files,
                               write_by_hand, write_mirror)
from entailgen.runners.cli import main
from entailgen.training.benchmarks import fetch as fetching
from entailgen.training.benchmarks.fetch import FetchError, FetchOptions, fetch
from entailgen.training.benchmarks.sources import BENCHMARKS


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def running(handler):
    """A loopback HTTP server (a free port) answering with `handler`, in a thread; its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def serving(root):
    """A loopback HTTP server serving root's files; its base URL."""
    return running(functools.partial(_Quiet, directory=str(root)))


@pytest.fixture(scope="module")
def mirror(tmp_path_factory):
    """Every benchmark's source files served in raw.githubusercontent.com's layout."""
    with serving(write_mirror(tmp_path_factory.mktemp("mirror"))) as url:
        yield url


@pytest.fixture(autouse=True)
def pinned(monkeypatch):
    """The sha256 pins are the real files'; here each is the hand-made copy's, so the check still runs."""
    pinned_to_these(monkeypatch)


def closed_port() -> int:
    """A loopback port nothing listens on: one the system handed out, then closed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetched(capsys, *argv) -> tuple[int, str, str]:
    code = main(["benchmarks", "fetch", *argv])
    out, err = capsys.readouterr()
    return code, out.strip(), err.strip()


def test_summac_writes_the_four_sets_rows_that_evaluate_reads(mirror, tmp_path, capsys):
    from entailgen.training.benchmarks.summac import read_benchmark

    to = tmp_path / "summac"
    code, out, _ = fetched(capsys, "summac", "--to", str(to), "--mirror", mirror)
    assert code == 0
    assert out == (f"summac: wrote xsumfaith.json (4 rows), polytope.json (3 rows), summeval.json (31 rows), "
                   f"frank.json (3 rows) into {to}; xsumfaith: 1 (article, system) pairs left out, their article in "
                   "neither SummaC's data/xsumfaith.json nor FRANK's article files; summeval: 1 rows left out, their "
                   "experts' mean (11/3 to 13/3) not telling whether most gave 5 and SummaC's 100-row file not "
                   "holding their scores (sources and sha256s in fetch.json)")
    xsumfaith = json.loads((to / "xsumfaith.json").read_text())
    assert xsumfaith == {  # one row per (bbcid, system) in turn val / test; 200's article is in neither source
        "xsumfaith-100-BERTS2S": {"document": "Article 100.", "claim": "s a", "label": 0, "cut": "val",
                                  "dataset": "xsumfaith", "model_name": "BERTS2S", "bbcid": "100"},
        "xsumfaith-100-Gold": {"document": "Article 100.", "claim": "g a", "label": 1, "cut": "test",
                               "dataset": "xsumfaith", "model_name": "Gold", "bbcid": "100"},
        "xsumfaith-300-PtGen": {"document": "Article 300.", "claim": "p c", "label": 1, "cut": "test",
                                "dataset": "xsumfaith", "model_name": "PtGen", "bbcid": "300"},
        f"xsumfaith-{FRANK_BBCID}-TranS2S": {  # FRANK's copy, the page's share bar cut off
            "document": f"FRANK's article {FRANK_BBCID}.json", "claim": "t f", "label": 1, "cut": "val",
            "dataset": "xsumfaith", "model_name": "TranS2S", "bbcid": FRANK_BBCID}}
    polytope = json.loads((to / "polytope.json").read_text())
    assert {key: (r["claim"], r["label"], r["cut"], r["errors"]) for key, r in polytope.items()} == {
        "polytope-Human_Annotation_Summarization_BART-1": ("sum one", 0, "val", ["Addition"]),
        "polytope-Human_Annotation_Summarization_BART-2": ("sum two", 1, "test", []),
        "polytope-Human_Annotation_Summarization_BART-3": ("sum three", 0, "test", ["Omission"])}  # row 4: a gap
    assert {r["model_name"] for r in polytope.values()} == {"BART"}
    summeval = json.loads((to / "summeval.json").read_text())
    assert len(summeval) == 31 and "summeval-A0-S2" not in summeval  # 13/3: one 5 or two, no per-expert scores
    # SummaC's cut: row 17 * article + system of its file (M23_dynamicmix last), val when even
    assert {key: (summeval[key]["label"], summeval[key]["cut"]) for key in (
        "summeval-A0-S0", "summeval-A0-S1", "summeval-A0-S3", "summeval-A0-S4", "summeval-A1-S0", "summeval-A1-S1",
        "summeval-A1-S2", "summeval-A1-S15")} == {
        "summeval-A0-S0": (1, "val"),  # 11/3, the experts gave 5, 5, 1
        "summeval-A0-S1": (1, "test"), "summeval-A0-S3": (0, "test"), "summeval-A0-S4": (1, "val"),
        "summeval-A1-S0": (1, "test"),
        "summeval-A1-S1": (0, "val"),  # 4.0, the experts gave 5, 4, 3
        "summeval-A1-S2": (1, "test"), "summeval-A1-S15": (0, "val")}
    assert summeval["summeval-A0-S0"] == {
        "document": SUMMEVAL_DOCS[0], "claim": "Summary 0 of article 0.", "label": 1, "cut": "val",
        "dataset": "summeval", "model_name": "S0", "consistency": pytest.approx(11 / 3), "annotations": [5, 5, 1]}
    assert sum(r["label"] for r in summeval.values()) == 28
    frank = json.loads((to / "frank.json").read_text())
    assert frank == {
        "h1-bart": {"document": "Art 1.", "claim": "Sum 1 bart.", "label": 1, "cut": "val", "dataset": "frank",
                    "model_name": "bart", "origin": "cnndm"},
        "h1-pgn": {"document": "Art 1.", "claim": "Sum 1 pgn.", "label": 0, "cut": "val", "dataset": "frank",
                   "model_name": "pgn", "origin": "cnndm"},
        "h2-bart": {"document": "Art 2.", "claim": "Sum 2 bart.", "label": 0, "cut": "test", "dataset": "frank",
                    "model_name": "bart", "origin": "bbc"}}
    rows = read_benchmark([str(to / name) for name in ("xsumfaith.json", "polytope.json", "summeval.json",
                                                       "frank.json")])
    assert [(r.dataset, r.label, r.cut) for r in rows if r.dataset != "summeval"] == [
        ("xsumfaith", 0, "val"), ("xsumfaith", 1, "test"), ("xsumfaith", 1, "test"), ("xsumfaith", 1, "val"),
        ("polytope", 0, "val"), ("polytope", 1, "test"), ("polytope", 0, "test"), ("frank", 1, "val"),
        ("frank", 0, "val"), ("frank", 0, "test")]
    assert [(r.label, r.cut) for r in rows if r.dataset == "summeval"][:4] == [
        (1, "val"), (1, "test"), (0, "test"), (1, "val")]
    record = json.loads((to / "fetch.json").read_text())
    assert len(record["sources"]) == 23 and record["sources"][0]["from"] == (
        f"{mirror}/google-research-datasets/xsum_hallucination_annotations/4abdbb2c807cb93c1df1188a1992d20a55cdcc34/"
        "hallucination_annotations_xsum_summaries.csv")
    assert sorted(p.name for p in to.iterdir()) == ["fetch.json", "frank.json", "polytope.json", "summeval.json",
                                                    "xsumfaith.json"]
    assert not (tmp_path / "summac.incomplete").exists()


def test_rank19_copies_the_triples_that_read_triples_reads(mirror, tmp_path, capsys):
    from entailgen.training.benchmarks.rank19 import read_triples

    to = tmp_path / "rank19"
    code, out, err = fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror)
    assert code == 0 and out == (f"rank19: wrote summary_pairs.json (2 rows) into {to} (sources and sha256s in "
                                 "fetch.json)")
    assert err == (f"fetching {mirror}/tagoyal/dae-factuality/a7d8805d9a4aa854de6d168e80ebb175d5fd2130/resources/"
                   "summary_pairs.json")
    assert [(t.source, t.correct, t.incorrect) for t in read_triples(str(to / "summary_pairs.json"))] == [
        (K1, "Jazz began in New Orleans.", "Jazz began in Paris."), (K3, "Cats sleep.", "Dogs sleep.")]


def test_true_writes_q2_and_begin_that_read_true_reads(mirror, tmp_path, capsys):
    from entailgen.training.benchmarks.true import read_true

    to = tmp_path / "true"
    code, out, _ = fetched(capsys, "true", "--to", str(to), "--mirror", mirror, "--quiet")
    assert (code, out) == (0, str(to))
    assert [(r.grounding, r.response, r.label) for r in read_true(str(to / "q2.csv"))] == [
        (K1, "It began in New Orleans.", 1), (K1, "It began in Paris.", 0), (K2, "Lyon is the capital.", 0),
        (K2, "It is Paris.", 1)]
    assert [(r.response, r.label) for r in read_true(str(to / "begin_dev.csv"))] == [
        ("It began in New Orleans.", 1), ("I love jazz!", 0)]
    assert [(r.response, r.label) for r in read_true(str(to / "begin_test.csv"))] == [
        ("Paris, on the Loire.", 0), ("Paris it is.", 1)]
    assert (to / "begin_dev.csv").read_text().splitlines()[1] == (
        f"{K1},It began in New Orleans.,cmu-dog/begin_dev_cmu.tsv,2,1")
    assert json.loads((to / "fetch.json").read_text())["notes"] == [
        "q2's labels '0' = consistent, '1' = inconsistent, told by 4 of the per-system files' 4 responses found"]


def test_spans_writes_the_annotations_as_they_came_and_the_articles_found(mirror, tmp_path, capsys):
    to = tmp_path / "spans"
    code, out, _ = fetched(capsys, "spans", "--to", str(to), "--mirror", mirror)
    assert code == 0 and out == (
        f"spans: wrote hallucination_annotations_xsum_summaries.csv (9 rows), xsum_articles.jsonl (2 rows) into {to}; "
        "2 of 4 articles not in SummaC's data/xsumfaith.json (sources and sha256s in fetch.json)")
    served = write_by_hand(tmp_path / "by-hand", "spans") / "hallucination_annotations_xsum_summaries.csv"
    assert (to / "hallucination_annotations_xsum_summaries.csv").read_bytes() == served.read_bytes()
    assert [json.loads(line) for line in (to / "xsum_articles.jsonl").read_text().splitlines()] == [
        {"bbcid": "100", "document": "Article 100."}, {"bbcid": "300", "document": "Article 300."}]


def test_from_a_folder_of_hand_downloaded_files_needs_no_server(tmp_path, capsys, monkeypatch):
    hand = write_by_hand(tmp_path / "downloads", "rank19")
    to = tmp_path / "rank19"
    code, out, err = fetched(capsys, "rank19", "--to", str(to), "--from", str(hand), "--mirror", "http://x.org")
    assert code == 2 and err == ("entailgen: error: --from and --mirror: give one (--from reads files downloaded by "
                                 "hand, --mirror downloads)")  # not --mirror silently ignored
    monkeypatch.setenv("ENTAILGEN_BENCHMARK_MIRROR", f"http://127.0.0.1:{closed_port()}")
    code, out, err = fetched(capsys, "rank19", "--to", str(to), "--from", str(hand))
    assert code == 0 and err == "" and out.startswith("rank19: wrote summary_pairs.json (2 rows)")
    assert json.loads((to / "fetch.json").read_text())["sources"][0]["from"] == str(hand / "summary_pairs.json")
    clone = hand / "dae-factuality" / "resources"  # a clone of the repository: the one file of that name in it
    clone.mkdir(parents=True)
    (hand / "summary_pairs.json").rename(clone / "summary_pairs.json")
    assert fetched(capsys, "rank19", "--to", str(tmp_path / "cloned"), "--from", str(hand))[0] == 0
    (hand / "copy").mkdir()
    (hand / "copy" / "summary_pairs.json").write_text("[]")
    code, out, err = fetched(capsys, "rank19", "--to", str(tmp_path / "two"), "--from", str(hand))
    assert code == 2 and err == (f"entailgen: error: --from {hand}: 2 files named summary_pairs.json "
                                 f"({hand / 'copy' / 'summary_pairs.json'}, {clone / 'summary_pairs.json'}); give the "
                                 "folder holding the one to use")
    (clone / "summary_pairs.json").unlink()
    (hand / "copy" / "summary_pairs.json").unlink()
    code, out, err = fetched(capsys, "rank19", "--to", str(tmp_path / "again"), "--from", str(hand))
    assert code == 2 and err == (f"entailgen: error: --from {hand}: no summary_pairs.json in it (download "
                                 "https://raw.githubusercontent.com/tagoyal/dae-factuality/"
                                 "a7d8805d9a4aa854de6d168e80ebb175d5fd2130/resources/summary_pairs.json)")


def test_a_pinned_sha256_that_differs_is_refused_and_nothing_written(mirror, tmp_path, monkeypatch):
    rank19 = BENCHMARKS["rank19"]
    pinned = dataclasses.replace(rank19.files[0], sha256="0" * 64)
    monkeypatch.setitem(BENCHMARKS, "rank19", dataclasses.replace(rank19, files=(pinned,)))
    to = tmp_path / "rank19"
    with pytest.raises(FetchError, match=r"summary_pairs.json: sha256 [0-9a-f]{64}, not the pinned 0{64} of "
                                         r"tagoyal/dae-factuality@a7d8805 resources/summary_pairs.json"):
        fetch(BENCHMARKS["rank19"], str(to), FetchOptions(mirror=mirror))
    assert not to.exists() and not (tmp_path / "rank19.incomplete").exists()


def test_a_404_or_a_refused_connection_is_one_line_and_exit_2(mirror, tmp_path, capsys):
    code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "a"), "--mirror", f"{mirror}/nowhere")
    assert code == 2 and err.splitlines()[-1] == (
        f"entailgen: error: cannot fetch {mirror}/nowhere/tagoyal/dae-factuality/"
        "a7d8805d9a4aa854de6d168e80ebb175d5fd2130/resources/summary_pairs.json: HTTP 404 File not found; give --from "
        "DIR with the files downloaded by hand")
    closed = closed_port()
    code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "b"), "--mirror", f"http://127.0.0.1:{closed}",
                           "--quiet")
    assert code == 2 and err == (
        f"entailgen: error: cannot reach http://127.0.0.1:{closed}/tagoyal/dae-factuality/"
        "a7d8805d9a4aa854de6d168e80ebb175d5fd2130/resources/summary_pairs.json: Connection refused; give --from DIR "
        "with the files downloaded by hand")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_users_files_are_never_replaced_and_an_earlier_fetch_only_with_overwrite(mirror, tmp_path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    code, _, err = fetched(capsys, "rank19", "--to", str(mine), "--mirror", mirror)
    assert code == 2 and err == (f"entailgen: error: --to {mine} holds files no benchmarks fetch wrote; give an empty "
                                 "or new folder")
    to = tmp_path / "rank19"
    assert fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror)[0] == 0
    code, _, err = fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror)
    assert code == 2 and err == f"entailgen: error: --to {to} holds an earlier fetch; pass --overwrite to replace it"
    (to / "mine.txt").write_text("keep")
    code, _, err = fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror, "--overwrite")
    assert code == 2 and err == (f"entailgen: error: --to {to} holds files its fetch.json does not list (mine.txt); "
                                 "give an empty or new folder")
    (to / "mine.txt").unlink()
    (tmp_path / "rank19.old").mkdir()  # where the earlier fetch would wait: someone else's
    code, _, err = fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror, "--overwrite")
    assert code == 2 and err == f"entailgen: error: {to}.old is in the way of replacing {to}; move it away"
    (tmp_path / "rank19.old").rmdir()
    assert fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror, "--overwrite")[0] == 0
    assert (mine / "notes.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "rank19"]


def test_a_leftover_incomplete_folder_is_replaced_only_when_a_fetch_made_it(mirror, tmp_path, capsys):
    to = tmp_path / "rank19"
    leftover = tmp_path / "rank19.incomplete"
    leftover.mkdir()
    code, _, err = fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror)
    assert code == 2 and err == f"entailgen: error: {leftover} exists and no benchmarks fetch made it; move it away"
    (leftover / fetching.MARKER).write_text("")
    (leftover / "half.json").write_text("[")
    assert fetched(capsys, "rank19", "--to", str(to), "--mirror", mirror)[0] == 0
    assert not leftover.exists() and sorted(p.name for p in to.iterdir()) == ["fetch.json", "summary_pairs.json"]


def test_a_converter_error_names_the_url_not_the_passing_copy(tmp_path, capsys, monkeypatch):
    rank19 = BENCHMARKS["rank19"]  # unpinned, as a file whose bytes could not be pinned
    monkeypatch.setitem(BENCHMARKS, "rank19", dataclasses.replace(
        rank19, files=(dataclasses.replace(rank19.files[0], sha256=None),)))
    root = write_mirror(tmp_path / "mirror", ["rank19"])
    (pairs,) = root.rglob("summary_pairs.json")
    pairs.write_text(json.dumps([{"article_sent": K1, "correct_sent": " "}]))
    with serving(root) as url:
        code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "r"), "--mirror", url)
    assert code == 2 and err.splitlines()[-1] == (
        f"entailgen: error: {url}/tagoyal/dae-factuality/a7d8805d9a4aa854de6d168e80ebb175d5fd2130/resources/"
        "summary_pairs.json row 1: no text in correct_sent, incorrect_sent")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mirror"]


def test_from_names_every_missing_file_at_once(tmp_path, capsys):
    hand = write_by_hand(tmp_path / "downloads", "true")
    for name in ("memnet_consistent.csv", "begin_test_wow.tsv"):
        (hand / name).unlink()
    code, _, err = fetched(capsys, "true", "--to", str(tmp_path / "t"), "--from", str(hand))
    assert code == 2 and err == (
        f"entailgen: error: --from {hand}: no memnet_consistent.csv, begin_test_wow.tsv in it (2 of 11 files; "
        "download https://raw.githubusercontent.com/orhonovich/q-squared/dd048c628a3d44180226515b2fc10e8deb031039/"
        "third_party/data/memnet_consistent.csv https://raw.githubusercontent.com/google/BEGIN-dataset/"
        "78e2215a158744b14d080e90c8135a2039f52eb8/wow/begin_test_wow.tsv)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["downloads"]


class _Handler(http.server.BaseHTTPRequestHandler):
    """Answers every GET with `body`, announcing `announce` bytes (None: no length), sending `send` bytes of it,
    `pause` seconds before each byte when set."""
    body, announce, send, pause = b"", None, None, 0.0

    def do_GET(self):
        self.send_response(200)
        if self.announce is not None:
            self.send_header("Content-Length", str(self.announce))
        self.end_headers()
        sent = self.body[:self.send]
        if not self.pause:
            self.wfile.write(sent)
            return
        for i in range(len(sent)):
            time.sleep(self.pause)
            try:
                self.wfile.write(sent[i:i + 1])
                self.wfile.flush()
            except OSError:  # the client gave up
                return

    def log_message(self, *args):
        pass


def answering(**handler):
    """A loopback server whose every answer is _Handler with these attributes; its base URL."""
    return running(type("Answer", (_Handler,), handler))


def spans_csv() -> bytes:
    return source_files()[BENCHMARKS["spans"].files[0].path]


def unpinned(monkeypatch, name):
    """A benchmark whose files have no sha256 pin (as a file too big to pin): the other checks alone guard it."""
    b = BENCHMARKS[name]
    monkeypatch.setitem(BENCHMARKS, name, dataclasses.replace(
        b, files=tuple(dataclasses.replace(f, sha256=None) for f in b.files)))


def test_a_server_that_closes_before_the_length_it_announced_fails_and_writes_nothing(tmp_path, capsys,
                                                                                        monkeypatch):
    unpinned(monkeypatch, "spans")  # the CSV cut mid-row would pass a reader: only the length catches it
    body = spans_csv()
    with answering(body=body, announce=len(body), send=len(body) * 6 // 10) as url:
        code, _, err = fetched(capsys, "spans", "--to", str(tmp_path / "s"), "--mirror", url, "--quiet")
    assert code == 2 and err == (
        f"entailgen: error: cannot fetch {url}/google-research-datasets/xsum_hallucination_annotations/"
        f"4abdbb2c807cb93c1df1188a1992d20a55cdcc34/hallucination_annotations_xsum_summaries.csv: the server sent "
        f"{len(body) * 6 // 10:,} of the {len(body):,} bytes it announced (the connection was cut); fetch again, or "
        "give --from DIR with the files downloaded by hand")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_server_that_trickles_is_stopped_at_the_deadline_with_the_bytes_counted(tmp_path, capsys):
    body = spans_csv()
    with answering(body=body, announce=len(body), pause=0.3) as url:
        started = time.monotonic()
        with pytest.raises(FetchError) as refused:
            fetch(BENCHMARKS["spans"], str(tmp_path / "s"), FetchOptions(
                mirror=url, deadline=1.5, progress=lambda line: print(line), progress_every=0.5))
        took = time.monotonic() - started
    assert took < 4  # not a read's 60 s timeout, nor the whole file's 0.3 s a byte
    assert re.fullmatch(rf"cannot (fetch|reach) {re.escape(url)}/\S+: not done by the deadline \(\d+ (of "
                        rf"{len(body):,} )?bytes\)\S*; give --from DIR with the files downloaded by hand",
                        str(refused.value))
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"fetching {url}/") and re.fullmatch(rf"  \d of {len(body):,} bytes", lines[1])
    assert not (tmp_path / "s").exists() and not (tmp_path / "s.incomplete").exists()


@pytest.mark.parametrize("deadline, said", [
    ("0", "--deadline 0: give seconds above 0"), ("nan", "argument --deadline: must be a finite number, got 'nan'")])
def test_a_deadline_that_is_not_seconds_is_one_line(tmp_path, capsys, deadline, said):
    code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "r"), "--deadline", deadline)
    assert code == 2 and err.splitlines()[-1] == f"entailgen: error: {said}"


@pytest.mark.parametrize("mirror, said", [
    ("notaurl", "--mirror notaurl: not a URL"), ("ftp://x.org/m", "--mirror ftp://x.org/m: not a URL"),
    ("http://", "--mirror http://: not a URL")])
def test_a_mirror_that_is_not_a_url_is_one_line(tmp_path, capsys, mirror, said):
    code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "r"), "--mirror", mirror)
    assert code == 2 and err == (f"entailgen: error: {said} (http://HOST/..., https://HOST/... or file:///FOLDER "
                                 "serving {owner/repo}/{commit}/{path})")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_mirror_variable_that_is_not_a_url_is_named_as_the_variable(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ENTAILGEN_BENCHMARK_MIRROR", "notaurl")
    code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "r"))
    assert code == 2 and err == ("entailgen: error: ENTAILGEN_BENCHMARK_MIRROR=notaurl: not a URL (http://HOST/..., "
                                 "https://HOST/... or file:///FOLDER serving {owner/repo}/{commit}/{path})")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    hand = write_by_hand(tmp_path / "downloads", "rank19")  # --from reads no mirror: the variable is not in the way
    assert fetched(capsys, "rank19", "--to", str(tmp_path / "r"), "--from", str(hand), "--quiet")[:2] == (
        0, str(tmp_path / "r"))


def test_random_bytes_are_said_to_be_the_wrong_content(tmp_path, capsys, monkeypatch):
    unpinned(monkeypatch, "rank19")
    with answering(body=bytes(range(128, 256)) * 4, announce=512) as url:
        code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "r"), "--mirror", url, "--quiet")
    assert code == 2 and err == (
        f"entailgen: error: {url}/tagoyal/dae-factuality/a7d8805d9a4aa854de6d168e80ebb175d5fd2130/resources/"
        "summary_pairs.json: its content is not text (neither UTF-8, UTF-16 with a BOM nor either gzipped): a wrong "
        "or damaged file")


@pytest.mark.parametrize("encode", [
    lambda b: gzip.compress(b, mtime=0),  # mtime fixed: the same bytes each time
    lambda b: codecs.BOM_UTF16_LE + b.decode().encode("utf-16-le"), lambda b: codecs.BOM_UTF8 + b,
    lambda b: gzip.compress(codecs.BOM_UTF16_BE + b.decode().encode("utf-16-be"), mtime=0)],
    ids=["gzip", "utf-16-bom", "utf-8-bom", "gzipped-utf-16"])
def test_gzip_and_a_bom_are_read_as_the_text_they_hold(tmp_path, capsys, encode):
    """A copy of a pinned file gzipped, in UTF-16 or with a BOM (by hand or from a mirror): its text is decoded first
    and the pin checked on it (the pin is of the text the repository holds), its own bytes recorded beside."""
    hand = write_by_hand(tmp_path / "downloads", "spans")
    csv_file = hand / "hallucination_annotations_xsum_summaries.csv"
    plain = csv_file.read_bytes()
    csv_file.write_bytes(encode(plain))
    to = tmp_path / "spans"
    code, out, err = fetched(capsys, "spans", "--to", str(to), "--from", str(hand), "--quiet")
    assert (code, err) == (0, "")
    assert (to / "hallucination_annotations_xsum_summaries.csv").read_bytes() == plain
    assert csv_file.read_bytes() == encode(plain)  # the user's copy as it was
    source = json.loads((to / "fetch.json").read_text())["sources"][0]
    assert (source["sha256"], source["text_sha256"]) == (hashlib.sha256(encode(plain)).hexdigest(),
                                                         hashlib.sha256(plain).hexdigest())
    root = write_mirror(tmp_path / "mirror", ["spans"])
    served = BENCHMARKS["spans"].files[0]
    (root / served.repo / served.commit / served.path).write_bytes(encode(plain))
    with serving(root) as url:
        code, out, err = fetched(capsys, "spans", "--to", str(tmp_path / "mirrored"), "--mirror", url, "--quiet")
    assert (code, err) == (0, "")
    assert (tmp_path / "mirrored" / "hallucination_annotations_xsum_summaries.csv").read_bytes() == plain


@pytest.mark.parametrize("encode, read_as", [
    (lambda b: gzip.compress(b, mtime=0), "gzip"),
    (lambda b: gzip.compress(codecs.BOM_UTF16_LE + b.decode().encode("utf-16-le"), mtime=0), "gzip and UTF-16")],
    ids=["gzip", "gzipped-utf-16"])
def test_a_gzip_or_utf16_copy_of_other_text_is_refused_saying_how_it_was_read(tmp_path, capsys, encode, read_as):
    hand = write_by_hand(tmp_path / "downloads", "rank19")
    changed = (hand / "summary_pairs.json").read_bytes().replace(b"Paris", b"Rome")
    (hand / "summary_pairs.json").write_bytes(encode(changed))
    code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "r"), "--from", str(hand))
    pinned = BENCHMARKS["rank19"].files[0].sha256
    assert code == 2 and err == (
        f"entailgen: error: {hand / 'summary_pairs.json'}: sha256 {hashlib.sha256(encode(changed)).hexdigest()} "
        f"({read_as}, its text's sha256 {hashlib.sha256(changed).hexdigest()}), not the pinned {pinned} of "
        "tagoyal/dae-factuality@a7d8805 resources/summary_pairs.json (a changed or damaged file)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["downloads"]


def test_a_damaged_gzip_file_is_one_line(tmp_path, capsys, monkeypatch):
    unpinned(monkeypatch, "rank19")
    hand = write_by_hand(tmp_path / "downloads", "rank19")
    (hand / "summary_pairs.json").write_bytes(gzip.compress(b"[]")[:12])
    code, _, err = fetched(capsys, "rank19", "--to", str(tmp_path / "r"), "--from", str(hand))
    assert code == 2 and err.startswith(f"entailgen: error: {hand / 'summary_pairs.json'}: a damaged gzip file (")
    assert "\n" not in err
