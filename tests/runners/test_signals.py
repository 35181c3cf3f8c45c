"""Ctrl-C's mechanism without its race: the interrupt ends the Beam SDK workers (and only them) before the runner
closes their channels, and after it the console's stderr takes the main thread's one line alone."""
import io
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from entailgen.runners import signals
from entailgen.runners.signals import INTERRUPTED, QuietAfterInterrupt, interruptible

SLEEP = "import time; time.sleep(60)"


def running(child: subprocess.Popen) -> bool:
    with open(f"/proc/{child.pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_the_interrupt_kills_the_sdk_workers_first_and_spares_every_other_child():
    """A child whose command line names sdk_worker_main is dead (a zombie at most) by the time the KeyboardInterrupt
    leaves the handler; a training rank (any other child) is left to stop on its own signal."""
    worker = subprocess.Popen([sys.executable, "-c", SLEEP, "-m", "apache_beam.runners.worker.sdk_worker_main"])
    rank = subprocess.Popen([sys.executable, "-c", SLEEP, "-m", "entailgen.runners.cli", "train"])
    try:
        time.sleep(0.2)
        with pytest.raises(KeyboardInterrupt):
            with interruptible():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)  # the handler raises here
        assert not running(worker)  # killed inside the handler: before any channel closed
        assert running(rank)
        assert worker.wait(timeout=5) == -signal.SIGKILL
    finally:
        for child in (worker, rank):
            child.kill()
            child.wait()
        INTERRUPTED.clear()


def test_after_an_interrupt_the_console_stderr_takes_the_main_threads_lines_alone():
    """gRPC's server threads print their streams' deaths with traceback.print_exc (no logger to silence): after the
    interrupt only the main thread's 'entailgen: interrupted' reaches the terminal."""
    seen = io.StringIO()
    stream = QuietAfterInterrupt(seen)

    def from_a_thread(text):
        thread = threading.Thread(target=stream.write, args=(text,))
        thread.start()
        thread.join()

    try:
        from_a_thread("a thread's line before\n")
        INTERRUPTED.set()
        from_a_thread("Traceback (most recent call last):\n")
        stream.write("entailgen: interrupted\n")
    finally:
        INTERRUPTED.clear()
    assert seen.getvalue() == "a thread's line before\nentailgen: interrupted\n"
    assert stream.getvalue is not None and stream.flush() is None  # the rest of a stream, passed through


def test_end_children_waits_until_the_killed_are_dead(monkeypatch):
    child = subprocess.Popen([sys.executable, "-c", SLEEP, "sdk_worker_main"])
    try:
        time.sleep(0.2)
        signals.end_children(only=signals.SDK_WORKER)
        assert not running(child)
    finally:
        child.kill()
        child.wait()
