"""Ctrl-C and SIGTERM as one KeyboardInterrupt the CLI says in one line, and a temp folder of a run's own."""
from __future__ import annotations

import logging
import os
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager


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
    KeyboardInterrupt [while running ...]'), so the caller cleans up and says one line."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    hit = []

    def stop(signum, frame):
        if not hit:  # the job is over: Beam's log of the interrupted bundle (and of dying workers) is not news
            logging.getLogger("apache_beam").setLevel(logging.CRITICAL + 1)
        hit.append(signum)
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
