"""Progress lines: the read rate is over the reading period (it holds still once reading ends), and a line without
counters says when they come."""
import io

from entailgen.runners.progress import Progress, line_every, progress_line


def test_the_read_rate_is_taken_over_the_reading_period():
    assert progress_line({"read": 100, "parsed": 80}, 10.0, read_seconds=2.0) == "10.0s  read 100 (50.0/s)  parsed 80"
    assert progress_line({"read": 100}, 10.0) == "10.0s  read 100 (10.0/s)"  # no period known: the elapsed time


def test_a_line_without_counters_says_when_they_come():
    assert progress_line({}, 3.0) == "3.0s  counters come as the job's stages finish"


def test_the_read_rate_holds_still_once_reading_ends():
    live: dict = {}
    progress = Progress(live, stream=io.StringIO(), every=1.0)
    progress.started = 100.0
    progress.watch(101.0)  # nothing read yet
    live["read"] = 40
    progress.watch(102.0)  # read grew: the reading period is 2 s so far
    live["parsed"] = 40
    progress.watch(110.0)  # read did not grow
    assert progress.line(110.0) == "10.0s  read 40 (20.0/s)  parsed 40"
    assert progress.line(160.0) == "60.0s  read 40 (20.0/s)  parsed 40"
    live["read"] = 100
    progress.watch(200.0)  # read grew again: 100 over 100 s
    assert progress.line(210.0) == "110.0s  read 100 (1.0/s)  parsed 40"


def test_lines_come_every_half_second_on_a_terminal_and_every_five_elsewhere():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert (line_every(Terminal()), line_every(io.StringIO())) == (0.5, 5.0)


def _count_then_wait(x):
    """Count each element as read; the last one waits, then counts 'parsed': only a look into the running bundle
    can see read 3 without parsed."""
    import time

    from apache_beam.metrics import Metrics

    Metrics.counter("entailgen", "read").inc()
    if x == 2:
        time.sleep(1.5)
        Metrics.counter("entailgen", "parsed").inc()
    return x


def test_the_counters_of_a_running_bundle_show_before_it_ends():
    """The in_memory runner runs a stage as one bundle (claims: every document's read, parse and claims): its
    counters must show while it runs, not only at its end."""
    import threading
    import time

    import apache_beam as beam

    from entailgen.runners.progress import CountingFnApiRunner

    live: dict = {}
    seen, done = [], threading.Event()

    def look():
        while not done.is_set():
            seen.append(dict(live))
            time.sleep(0.05)

    looker = threading.Thread(target=look, daemon=True)
    looker.start()
    with beam.Pipeline(runner=CountingFnApiRunner(live)) as p:
        _ = p | beam.Create([0, 1, 2]) | beam.Map(_count_then_wait)
    done.set()
    looker.join()
    assert {"read": 3} in seen  # during the bundle: read so far, parsed not yet
    assert live == {"read": 3, "parsed": 1}
