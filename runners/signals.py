"""Ctrl-C and SIGTERM as one KeyboardInterrupt the CLI says in one line, and a temp folder of a run's own."""
from __future__ import annotations

import glob
import logging
import os
import shutil
import signal
import tempfile
import threading
import time
from contextlib import contextmanager
from typing import Optional

SDK_WORKER = b"sdk_worker_main"  # the command line of a multi_processing job's Beam SDK workers


def end_children(only: Optional[bytes] = None, patience: float = 2.0) -> None:
    """SIGKILL this process's children (those whose command line holds `only`, else all) and wait up to `patience`
    seconds until each is dead: a dead child prints nothing. Linux's /proc only."""
    me, killed = str(os.getpid()), []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        pid = stat.split("/")[2]
        try:
            with open(stat) as f:
                parent = f.read().rsplit(")", 1)[1].split()[1]  # after the command name: state, then the parent pid
            if parent != me:
                continue
            if only is not None:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if only not in f.read():
                        continue
            os.kill(int(pid), signal.SIGKILL)
            killed.append(pid)
        except (OSError, IndexError, ValueError):
            pass  # gone meanwhile, or not ours to signal
    deadline = time.monotonic() + patience
    while killed and time.monotonic() < deadline:
        killed = [pid for pid in killed if _alive(pid)]
        if killed:
            time.sleep(0.01)


INTERRUPTED = threading.Event()  # set at a run's first Ctrl-C or SIGTERM


class QuietAfterInterrupt:
    """The console's stderr: once a run is interrupted, only the main thread's writes (its one line) reach it; gRPC's
    server threads print the workers' going with traceback.print_exc, which no logging level silences."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        if INTERRUPTED.is_set() and threading.current_thread() is not threading.main_thread():
            return len(text)
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def _alive(pid: str) -> bool:
    """Whether a process still runs (a zombie is dead: it waits only for its parent to read its status)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@contextmanager
def private_tempdir():
    """Point Python's and the workers' temp folder at a folder of this run's own, removed afterwards: Beam leaves
    folders in /tmp (staging, worker environments) that nothing else removes."""
    folder = tempfile.mkdtemp(prefix="entailgen-")
    saved, saved_env = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = folder, folder
    try:
        yield folder
    finally:
        tempfile.tempdir = saved
        if saved_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_env
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def interruptible():
    """Ctrl-C (or SIGTERM) during a run surfaces as KeyboardInterrupt, however Beam wraps it ('RuntimeError:
    KeyboardInterrupt [while running ...]'), so the caller cleans up and says one line. A multi_processing job's SDK
    workers are killed first, and only they: training ranks (runners.launch) get the signal and stop cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit = []

    def stop(signum, frame):
        first = not hit
        hit.append(signum)  # from now on the threads' reports of dying workers are not news (threading.excepthook)
        INTERRUPTED.set()
        if first:  # the job is over: Beam's log of the interrupted bundle (and of dying workers) is not news
            logging.getLogger("apache_beam").setLevel(logging.CRITICAL + 1)
            end_children(only=SDK_WORKER)  # before the runner closes their channels, which they would report
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    thread_hook = threading.excepthook  # Beam's worker threads report the workers' deaths after a Ctrl-C: not news
    threading.excepthook = lambda args: None if hit else thread_hook(args)
    try:
        yield
    except KeyboardInterrupt:
        hit.append(None)  # here or in a nested interruptible(): the threads' deaths still to come are not news
        raise
    except Exception:
        if hit:
            raise KeyboardInterrupt from None
        raise
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if not hit:  # after a Ctrl-C the workers' threads die later still
            threading.excepthook = thread_hook
