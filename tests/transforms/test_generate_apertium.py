"""Round-trip generation: mark stripping, route sharing, ranking (fake translator); real Apertium when installed."""
import shutil
import threading
import time

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from entailgen.schemas.sources import SourceText
from entailgen.transforms.generate import Candidate
from entailgen.transforms.generate.apertium import (ApertiumFailed, ApertiumOptions, ApertiumUnavailable,
                                                    RoundTripCandidates, installed_modes, round_trips,
                                                    roundtrip_candidates, strip_marks, translate, usable_routes)
from entailgen.transforms.generate.rank import LexicalSimilarity

HAVE_APERTIUM = shutil.which("apertium") is not None
needs_apertium = pytest.mark.skipif(not HAVE_APERTIUM, reason="apertium is not installed "
                                    "(apt-get install apertium apertium-eng-spa apertium-eng-cat apertium-en-gl)")


def test_strip_marks_removes_unknown_untranslated_and_ungenerated_marks():
    assert strip_marks("The fast @marrón **fox jumps  #lazy dog") == "The fast marrón fox jumps lazy dog"
    assert strip_marks("It can (*Bluestar) e-mail a@b 2*3") == "It can (Bluestar) e-mail a@b 2*3"


class FakeTranslator:
    """Appends the mode to each line and records the calls, so route sharing is visible."""

    def __init__(self):
        self.calls = []

    def __call__(self, lines, mode):
        self.calls.append((mode, tuple(lines)))
        return [f"{line} {mode}" for line in lines]


def test_round_trips_share_route_prefixes():
    fake = FakeTranslator()
    routes = [("a", "b"), ("a", "c"), ("a", "b", "d")]
    assert round_trips(["x", "y"], routes, fake) == [["x a b", "x a c", "x a b d"], ["y a b", "y a c", "y a b d"]]
    assert [mode for mode, _ in fake.calls] == ["a", "b", "c", "d"]  # one call per distinct prefix, all lines at once


class SlowTranslator(FakeTranslator):
    """A FakeTranslator whose calls take a while, counting how many run at once."""

    def __init__(self, seconds=0.2):
        super().__init__()
        self.seconds, self.now, self.most = seconds, 0, 0
        self.lock = threading.Lock()

    def __call__(self, lines, mode):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(self.seconds)
        with self.lock:
            self.now -= 1
        return super().__call__(lines, mode)


def test_round_trips_run_independent_prefixes_at_once_with_the_same_results():
    """An Apertium call is mostly start-up: the calls of a batch whose inputs are ready overlap (at most `parallel`),
    each prefix after the one it extends, and the round trips are those of one call at a time."""
    routes = [("a", "b"), ("c", "d"), ("e", "f"), ("a", "b", "g"), ("c",)]
    one_by_one = round_trips(["x", "y"], routes, FakeTranslator())
    slow = SlowTranslator()
    started = time.monotonic()
    assert round_trips(["x", "y"], routes, slow, parallel=3) == one_by_one
    assert slow.most == 3  # a, c and e at once; then b, d and f; then g
    assert time.monotonic() - started < 6 * slow.seconds  # 3 waves, not 7 calls one by one
    modes = [mode for mode, _ in slow.calls]
    assert sorted(modes) == ["a", "b", "c", "d", "e", "f", "g"]  # each distinct prefix once
    assert modes.index("b") > modes.index("a") and modes.index("g") > modes.index("b")


def test_a_failed_call_among_parallel_ones_fails_the_batch():
    def translator(lines, mode):
        if mode == "c":
            raise ApertiumFailed("apertium c exited 1")
        return [f"{line} {mode}" for line in lines]

    with pytest.raises(ApertiumFailed, match="c exited"):
        round_trips(["x"], [("a", "b"), ("c", "d")], translator, parallel=2)


def test_roundtrip_candidates_drop_copies_of_x_and_rank_by_similarity():
    trips = {"a": "the cat sat", "b": "the cat sat down", "c": "a dog ran", "d": "the cat sat down"}

    def translator(lines, mode):
        return [trips[mode] if line == "the cat sat" else "" for line in lines]

    units = [SourceText("the  cat sat", "t", "s1"), SourceText("nothing", "t", "s2")]
    beams = roundtrip_candidates(units, [("a",), ("b",), ("c",), ("d",)], translator, LexicalSimilarity(), k=10)
    assert beams == [[Candidate("s1", "the cat sat down", 1, pytest.approx(6 / 7), "apertium+lexical"),
                      Candidate("s1", "a dog ran", 2, 0.0, "apertium+lexical")], []]


def test_usable_routes_need_every_mode():
    assert usable_routes([("a", "b"), ("a", "z")], frozenset({"a", "b"})) == (("a", "b"),)
    with pytest.raises(ApertiumUnavailable, match="apt-get install"):
        usable_routes([("a", "z")], frozenset({"a"}))


def test_missing_apertium_binary_is_a_clear_error():
    with pytest.raises(ApertiumUnavailable, match="not found; install it with: apt-get install"):
        installed_modes("/nonexistent/apertium")


@needs_apertium
def test_translate_keeps_one_line_per_input_and_strips_marks():
    out = translate(["He", "", "Zorblax flimflams the wug", "The dog\nchased the cat."], "eng-spa")
    assert out == ["Él", "", "Zorblax flimflams El wug", "El perro persiguió el gato."]


@needs_apertium
def test_real_round_trip_through_spanish():
    units = [SourceText("The dog chased the cat.", "t", "s1")]
    options = ApertiumOptions(routes=(("eng-spa", "spa-eng"),), encoder=None)
    with TestPipeline() as p:
        out = p | beam.Create(units) | RoundTripCandidates(options)
        assert_that(out.candidates, equal_to([Candidate("s1", "The dog pursued the cat.", 1, pytest.approx(0.8),
                                                        "apertium+lexical")]))
        assert_that(out.dead, equal_to([]), label="dead")


FAKE_APERTIUM = """#!/bin/sh
# lists one pair; translates by upper-casing; fails on any input holding BOOM
if [ "$1" = "-l" ]; then echo "  eng-xx"; echo "  xx-eng"; exit 0; fi
input=$(cat)
case "$input" in *BOOM*) echo "cannot translate" >&2; exit 3;; esac
printf '%s\\n' "$input" | tr 'a-z' 'A-Z'
"""


def test_a_sentence_apertium_fails_on_becomes_a_dead_letter_and_its_batch_mates_survive(tmp_path):
    binary = tmp_path / "apertium"
    binary.write_text(FAKE_APERTIUM)
    binary.chmod(0o755)
    units = [SourceText("the cat sat", "t", "s1"), SourceText("BOOM goes it", "t", "s2")]
    options = ApertiumOptions(routes=(("eng-xx", "xx-eng"), ("eng-yy", "yy-eng")), encoder=None, binary=str(binary))
    with TestPipeline() as p:
        out = p | beam.Create(units) | RoundTripCandidates(options)
        assert_that(out.candidates, equal_to([Candidate("s1", "THE CAT SAT", 1, 1.0, "apertium+lexical")]))
        assert_that(out.dead | beam.Map(lambda d: (d.source_id, d.stage, d.error_type, d.raw)),
                    equal_to([("s2", "generate", "ApertiumFailed", "BOOM goes it")]), label="dead")


CONTEXT_APERTIUM = """#!/bin/sh
# like real Apertium, a line's output depends on what came before it in the stream: here, the previous line's first word
if [ "$1" = "-l" ]; then echo "  eng-xx"; echo "  xx-eng"; exit 0; fi
awk '{ print $0 " " p; p = $1 }'
"""


def test_batches_come_from_content_so_context_dependent_output_is_the_same_in_any_order(tmp_path):
    from entailgen.transforms.generate.apertium import content_batches, content_bucket

    binary = tmp_path / "apertium"
    binary.write_text(CONTEXT_APERTIUM)
    binary.chmod(0o755)
    units = [SourceText(f"sentence number {i} here", "t", f"s{i}") for i in range(12)]
    options = ApertiumOptions(routes=(("eng-xx",),), encoder=None, binary=str(binary), batch_size=5)
    buckets = {}
    for u in units:  # 12 units in batches of 5: 3 content buckets
        buckets.setdefault(content_bucket(u.text, 3), []).append(u)

    def fake(lines, mode):
        return translate(lines, mode, str(binary))

    expected = [c for bucket in buckets.values() for batch in content_batches(bucket, 5)
                for beam_ in roundtrip_candidates(batch, options.routes, fake, LexicalSimilarity(), k=10) for c in beam_]
    assert any(c.text.endswith(" sentence") for c in expected)  # the fake really is context-dependent
    for order in (units, units[::-1], units[4:] + units[:4]):
        with TestPipeline() as p:
            out = p | beam.Create(order) | RoundTripCandidates(options)
            assert_that(out.candidates, equal_to(expected))


def test_content_batches_sort_by_text_and_cut_to_size():
    from entailgen.transforms.generate.apertium import content_batches, content_bucket

    units = [SourceText(t, "t", i) for t, i in (("b", "2"), ("a", "9"), ("a", "1"), ("c", "3"))]
    assert [[u.source_id for u in b] for b in content_batches(units, 3)] == [["1", "9", "2"], ["3"]]
    assert content_bucket(" the  cat ", 7) == content_bucket("the cat", 7) < 7
