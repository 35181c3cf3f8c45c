"""The one helper that retries a failed batch item by item (parse, augmentation re-parse, Apertium round trips)."""
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
    assert calls == [["a", "bad", "c"], ["a"], ["bad"], ["c"]]


def test_errors_it_is_not_told_to_isolate_propagate():
    with pytest.raises(ValueError):
        isolate_failures(["a", "bad"], shout, dead, errors=(OSError,))
