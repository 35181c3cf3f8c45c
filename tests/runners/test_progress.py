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
