"""The one helper that retries a failed batch in halves (parse, augmentation re-parse, Apertium round trips, models)."""
import pytest

from entailgen.transforms.retry import isolate_failures

calls = []


def shout(words):
    """Upper-case a batch in one call, lazily as parse_units does: a 'bad' word fails the batch while it is read."""
    calls.append(list(words))
    for w in words:
        if w == "bad":
            raise ValueError("cannot shout 'bad'")
        yield w.upper()


def dead(word, exc):
    return f"dead:{word}:{type(exc).__name__}"


def test_a_good_batch_runs_in_one_call():
    calls.clear()
    assert isolate_failures(["a", "b"], shout, dead) == ["A", "B"]
    assert calls == [["a", "b"]]


def test_only_the_bad_item_of_a_failed_batch_is_dead_and_order_is_kept():
    calls.clear()
    assert isolate_failures(["a", "bad", "c"], shout, dead) == ["A", "dead:bad:ValueError", "C"]
    assert calls == [["a", "bad", "c"], ["a"], ["bad", "c"], ["bad"], ["c"]]


def test_one_bad_item_in_64_costs_13_calls_not_65():
    calls.clear()
    words = [f"w{i}" for i in range(64)]
    words[37] = "bad"
    expected = [w.upper() for w in words]
    expected[37] = "dead:bad:ValueError"
    assert isolate_failures(words, shout, dead) == expected
    # [0:32] runs whole; [32:64] fails, so do [32:48], [32:40] and [36:40] (each run after its first half), [36:38]
    assert [len(c) for c in calls] == [64, 32, 32, 16, 8, 4, 4, 2, 1, 1, 2, 8, 16]
    assert [c for c in calls if len(c) == 1] == [["w36"], ["bad"]]


def test_errors_it_is_not_told_to_isolate_propagate():
    with pytest.raises(ValueError):
        isolate_failures(["a", "bad"], shout, dead, errors=(OSError,))
