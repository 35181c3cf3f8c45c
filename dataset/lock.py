"""One writer per output: a lock beside it (flock locally, a marker object made only if absent on gs://)."""
from __future__ import annotations

import fcntl
import json
import os
import platform
from contextlib import contextmanager
from datetime import datetime, timezone

from entailgen.dataset.output import LOCK, OutputError, sibling


def _holder(fd: int) -> str:
    """Who holds a lock file, from what it wrote into it: 'pid 123 on host h'."""
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        held = json.loads(os.read(fd, 4096).decode("utf-8"))
        return f"pid {held['pid']} on host {held['host']}"
    except (ValueError, KeyError, TypeError):
        return "a process that has not said its pid yet"


@contextmanager
def writer_lock(output: str):
    """Make this process the one writer of output: an exclusive lock (flock) on a file beside it, holding this pid
    and host. A second writer is refused (OutputError naming the first) rather than deleting the first's build
    folder; the kernel frees the lock of a killed writer, so a dead writer's lock is taken over without a word.
    On gs:// the lock is a marker object created only if absent (generation precondition 0); other object stores
    have none."""
    if output.startswith("gs://"):
        with _marker_object_lock(output):
            yield
        return
    if "://" in output:
        yield
        return
    path = sibling(output, LOCK)
    while True:
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:  # a read-only or full place: said of --output, not of this hidden file
            raise type(e)(e.errno, e.strerror, output) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise OutputError(f"another entailgen ({holder}) is writing {output}; wait for it to finish or "
                              "choose another --output") from None
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                break  # still the file at path: the last writer did not remove it between our open and lock
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        os.ftruncate(fd, 0)  # a killed writer's pid may still be in it
        os.write(fd, json.dumps({"pid": os.getpid(), "host": platform.node()}).encode("utf-8"))
        yield
    finally:
        os.remove(path)  # before the lock goes: a writer that opened this file meanwhile finds it gone, starts over
        os.close(fd)


def _gcs_bucket(name: str):
    """A google-cloud-storage bucket handle (apache-beam[gcp] brings the client); tests replace this."""
    from google.cloud import storage

    return storage.Client().bucket(name)


@contextmanager
def _marker_object_lock(output: str):
    """gs://'s writer lock: `.OUT.entailgen-lock` is created only if no object has that name (if_generation_match=0,
    which GCS checks atomically), and deleted at the end only if it is still ours. Nothing frees the marker of a
    killed run: the refusal names it, for the user to delete once that run is known dead."""
    from google.api_core.exceptions import NotFound, PreconditionFailed

    path = sibling(output, LOCK)
    bucket, _, name = path[len("gs://"):].partition("/")
    blob = _gcs_bucket(bucket).blob(name)
    holder = {"pid": os.getpid(), "host": platform.node(),
              "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    try:
        blob.upload_from_string(json.dumps(holder), content_type="application/json", if_generation_match=0)
    except PreconditionFailed:
        try:
            held = json.loads(blob.download_as_text())
            who = f"pid {held['pid']} on host {held['host']}, since {held['started']}"
        except (NotFound, ValueError, KeyError, TypeError):
            who = "a writer that left no pid"
        raise OutputError(f"another entailgen ({who}) is writing {output}; wait for it to finish, or delete {path} "
                          "if that run is dead") from None
    try:
        yield
    finally:
        try:
            blob.delete(if_generation_match=blob.generation)
        except (NotFound, PreconditionFailed):
            pass  # removed by hand, or replaced by a writer the user let in: not ours to delete
