"""Property tests: on any bytes every reader returns, never raises, and accounts for every unit."""
import io
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import entailgen
from entailgen.schemas.records import DeadLetter
from entailgen.schemas.sources import FactualityAnnotation, NerSentence
from entailgen.transforms.io import FORMATS
from entailgen.transforms.io.base import ReaderConfig
from entailgen.transforms.io.uds import read_uds_json

SAMPLES = Path(entailgen.__file__).parent / "samples"
CORRUPT = Path(__file__).parents[2] / "data" / "corrupt"
LINE_FORMATS = ["text", "text-jsonl", "paraphrase-tsv", "paraphrase-jsonl", "factuality-jsonl", "sentiment-uci",
                "nli-jsonl"]
SAMPLE_LINES = sorted({line for name in ("text.txt", "paraphrase.tsv", "paraphrase.jsonl", "factuality.jsonl",
                                         "yelp_labelled.txt", "nli.jsonl", "anli.jsonl", "sentiment.csv")
                       for line in (SAMPLES / name).read_bytes().splitlines()})
CONFIG = ReaderConfig(max_chars=60)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# A line: random bytes, random text with the separators the formats use, or a real sample line (maybe cut).
line = st.one_of(
    st.binary(max_size=80),
    st.text(alphabet=st.sampled_from(list('ab \t,."{}[]:01-\\\u00e9\u2028\r')), max_size=60).map(str.encode),
    st.sampled_from(SAMPLE_LINES),
    st.tuples(st.sampled_from(SAMPLE_LINES), st.integers(0, 200)).map(lambda t: t[0][:t[1]]),
).map(lambda b: b.replace(b"\n", b" "))


def file_lines(lines: list[bytes], final_newline: bool) -> list[bytes]:
    """The lines a file object yields for these lines joined (what read_file feeds a reader)."""
    return io.BytesIO(b"\n".join(lines) + (b"\n" if final_newline else b"")).readlines()


@SETTINGS
@given(fmt=st.sampled_from(LINE_FORMATS + ["sentiment-csv"]), lines=st.lists(line, max_size=12),
       final_newline=st.booleans())
def test_line_readers_give_one_output_per_physical_line(fmt, lines, final_newline):
    physical = file_lines(lines, final_newline)
    out = list(FORMATS[fmt](iter(physical), "f.x", CONFIG))
    units = len(physical)
    if fmt == "sentiment-csv" and physical and physical[0].strip().lower().startswith(b"text,label"):
        units -= 1  # a header line is no unit
    assert len(out) == units
    for i, r in enumerate(out):
        assert type(r).__module__.startswith("entailgen.schemas")
        if isinstance(r, DeadLetter):
            assert r.source_id == f"f.x:{i + 1 + len(physical) - units}" and r.error_type and r.message
            r.raw.encode("utf-8")  # writable


conll_line = st.one_of(st.binary(min_size=1, max_size=40), st.sampled_from(
    [b"EU NNP I-NP I-ORG", b"rejects VBZ I-VP O", b"German JJ I-NP B-MISC", b"x y z", b"a b c X-PER"])
).map(lambda b: b.replace(b"\n", b" ")).filter(lambda b: b.strip() and not b.lstrip().startswith(b"-DOCSTART-"))


@SETTINGS
@given(blocks=st.lists(st.lists(conll_line, min_size=1, max_size=5), max_size=6), docstart=st.booleans())
def test_conll_gives_one_output_per_sentence_block(blocks, docstart):
    text = (b"-DOCSTART- -X- -X- O\n\n" if docstart else b"") + b"\n\n".join(b"\n".join(b) for b in blocks)
    out = list(FORMATS["conll2003"](io.BytesIO(text).readlines(), "c.txt", CONFIG))
    assert len(out) == len(blocks)
    assert all(isinstance(r, (NerSentence, DeadLetter)) for r in out)


gmb_row = st.one_of(st.binary(max_size=30), st.sampled_from([b"of,IN,O", b"London,NNP,B-geo", b'",",",",O', b"x"])
                    ).map(lambda b: b.replace(b"\n", b" ").replace(b"\r", b" "))


@SETTINGS
@given(sentences=st.lists(st.tuples(gmb_row, st.lists(gmb_row, max_size=4)), max_size=6), header=st.booleans())
def test_gmb_gives_one_output_per_sentence(sentences, header):
    lines = [b"Sentence #,Word,POS,Tag"] if header else []
    for k, (first, rest) in enumerate(sentences, 1):
        lines.append(b"Sentence: %d," % k + first)
        lines += [b"," + row for row in rest]
    out = list(FORMATS["gmb"](io.BytesIO(b"\n".join(lines)).readlines(), "g.csv", CONFIG))
    assert len(out) == len(sentences)
    assert all(isinstance(r, (NerSentence, DeadLetter)) for r in out)


@SETTINGS
@given(data=st.binary(max_size=300), cut=st.integers(1, 64))
def test_uds_reader_never_raises_on_random_bytes(data, cut):
    out = list(read_uds_json([data[i:i + cut] for i in range(0, len(data), cut)], "u.json"))
    assert all(isinstance(r, (FactualityAnnotation, DeadLetter)) for r in out)
    assume(data.strip())
    assert out  # something that is not blank is never silently nothing


UDS_FILE = (CORRUPT / "corrupt_uds.json").read_bytes()
UDS_CLOSED = UDS_FILE[:UDS_FILE.rindex(b',\n"truncated"')] + b"}}\n"
UDS_WHOLE = list(read_uds_json([UDS_CLOSED], "u.json"))


@SETTINGS
@given(end=st.integers(0, len(UDS_CLOSED)), cut=st.integers(1, 5000))
def test_uds_truncated_anywhere_keeps_complete_graphs_and_adds_at_most_one_dead_letter(end, cut):
    data = UDS_CLOSED[:end]
    out = list(read_uds_json([data[i:i + cut] for i in range(0, len(data), cut)], "u.json"))
    complete = [r for r in UDS_WHOLE if r in out]
    assert out[:len(complete)] == UDS_WHOLE[:len(complete)]  # the graphs before the cut, unchanged
    assert len(out) - len(complete) <= 1
    if data.strip() and end < len(UDS_CLOSED.rstrip()):
        assert isinstance(out[-1], DeadLetter) and out[-1].error_type in ("MalformedJson", "BadEncoding")
