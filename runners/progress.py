"""Progress on stderr while a local job runs: the 'entailgen' counters (units read, parsed, generated, ...) with
rates and elapsed time; a live line on a terminal, a line every few seconds otherwise.

The DirectRunner's FnApiRunner runs a pipeline to the end inside run() and only then hands back its metrics, so the
counters are collected bundle by bundle from the runner itself (in_memory and multi_processing alike: the workers'
bundle responses come back through it). The in_memory runner runs a whole stage as one bundle (claims: read, parse
and claims of every document), so the bundles running in this process are also looked into every TICK and their
counters so far added; multi_processing workers' bundles count when they finish, and until the first does the line
shows the elapsed time alone and says so. The read rate is taken over the reading period (up to the last time
`read` grew), so it holds still once reading ends.
"""
from __future__ import annotations

import sys
import threading
import time
from collections import defaultdict
from typing import Optional, TextIO

from apache_beam.runners.portability.fn_api_runner.fn_runner import FnApiRunner

NAMESPACE = "entailgen"
SHOWN_FIRST = ("read", "parsed", "generated", "labelled")  # the stages in the order data flows
RATE_OF = "read"
NO_COUNTERS_YET = "counters come as the job's stages finish"
TICK = 0.25  # seconds between looks at the read counter, so the read rate's period is this close


def user_counters(monitoring_infos) -> dict[str, int]:
    """The 'entailgen' user counters in one bundle's monitoring infos, by name."""
    from apache_beam.metrics import monitoring_infos as mi

    counters: dict[str, int] = defaultdict(int)
    for info in monitoring_infos:
        if info.urn == mi.USER_COUNTER_URN and info.labels.get(mi.NAMESPACE_LABEL) == NAMESPACE:
            counters[info.labels[mi.NAME_LABEL]] += mi.extract_counter_value(info)
    return counters


def running_counters(handlers) -> dict[str, int]:
    """The 'entailgen' counters so far of the bundles running in this process (in_memory workers), summed; a bundle
    that starts or ends while it is read is left for the next look."""
    counters: dict[str, int] = defaultdict(int)
    for handler in {id(h): h for h in handlers}.values():  # two bundles on one handler are both in its cache
        cache = getattr(handler, "bundle_processor_cache", None)  # only in-process workers have one
        for _, processor in list(getattr(cache, "active_bundle_processors", {}).values()):
            try:
                for name, value in user_counters(processor.monitoring_infos()).items():
                    counters[name] += value
            except Exception:  # the bundle changed under us (finished, reset): its counters come with it
                continue
    return counters


class CountingFnApiRunner(FnApiRunner):
    """The DirectRunner's FnApiRunner, adding each finished bundle's 'entailgen' counters to `live` as it goes, and
    those of the bundles still running in this process so far (every TICK)."""

    def __init__(self, live: dict, **kwargs):
        super().__init__(**kwargs)
        self.live = live
        self.finished: dict[str, int] = defaultdict(int)  # counters of the bundles that have finished
        self.running: list = []  # worker handlers of the bundles in flight
        self.lock = threading.Lock()
        self._stop = threading.Event()

    def run_pipeline(self, pipeline, options):
        self._stop.clear()
        looker = threading.Thread(target=self._look, name="entailgen-counters", daemon=True)
        looker.start()
        try:
            return super().run_pipeline(pipeline, options)
        finally:
            self._stop.set()
            looker.join()

    def _look(self) -> None:
        while not self._stop.wait(TICK):
            self.publish(running_counters(list(self.running)))

    def publish(self, running: dict) -> None:
        """live = finished + running, never going down (a bundle ends a moment before its counters are added)."""
        with self.lock:
            for name in set(self.finished) | set(running):
                value = self.finished.get(name, 0) + running.get(name, 0)
                if value > self.live.get(name, 0):
                    self.live[name] = value

    @property
    def _default_environment(self):
        return self.__dict__.get("_environment")

    @_default_environment.setter
    def _default_environment(self, environment):
        """multi_processing workers ignore SIGINT (the shell's `trap '' INT` is kept across exec): a Ctrl-C reaches
        the whole process group, and each worker printed a traceback; the driver stops them when it stops."""
        from apache_beam.transforms.environments import SubprocessSDKEnvironment

        if isinstance(environment, SubprocessSDKEnvironment) and "trap" not in environment.command_string:
            environment = SubprocessSDKEnvironment.from_command_string(
                f"trap '' INT; exec {environment.command_string}")
        self.__dict__["_environment"] = environment

    def _execute_bundle(self, runner_execution_context, bundle_context_manager, *args, **kwargs):
        handlers = list(getattr(bundle_context_manager, "worker_handlers", None) or ())
        self.running.extend(handlers)
        try:
            response = super()._execute_bundle(runner_execution_context, bundle_context_manager, *args, **kwargs)
        finally:
            for handler in handlers:
                self.running.remove(handler)
        try:
            finals = user_counters(response.process_bundle.monitoring_infos)
        except AttributeError:  # a Beam whose bundle response looks different: elapsed time only
            return response
        with self.lock:
            for name, value in finals.items():
                self.finished[name] += value
        self.publish({})
        return response


def progress_line(counters: dict, seconds: float, read_seconds: Optional[float] = None) -> str:
    """'12.3s  read 200 (16.3/s)  parsed 400  ...  dead 2': the stages first, then the rest, dead letters summed; the
    read rate over read_seconds (the reading period) when given, else over the whole elapsed time."""
    if not counters:
        return f"{seconds:.1f}s  {NO_COUNTERS_YET}"
    names = [n for n in SHOWN_FIRST if n in counters]
    names += sorted(n for n in counters if n not in SHOWN_FIRST and not n.endswith("_dead"))
    parts = [f"{seconds:.1f}s"]
    period = seconds if read_seconds is None else read_seconds
    for name in names:
        rate = f" ({counters[name] / period:.1f}/s)" if name == RATE_OF and period > 0 else ""
        parts.append(f"{name} {counters[name]}{rate}")
    dead = sum(v for n, v in counters.items() if n.endswith("_dead"))
    if dead:
        parts.append(f"dead {dead}")
    return "  ".join(parts)


def line_every(stream: TextIO) -> float:
    """Seconds between progress lines: 0.5 on a terminal (one line rewritten in place), 5 elsewhere (a line each)."""
    return 0.5 if getattr(stream, "isatty", lambda: False)() else 5.0


class Progress:
    """A thread that writes progress_line every `every` seconds until stopped; `\\r`-rewritten on a terminal."""

    def __init__(self, live: dict, stream: Optional[TextIO] = None, every: Optional[float] = None):
        self.live, self.stream = live, stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every or line_every(self.stream)
        self.started = time.monotonic()
        self.read, self.read_at = 0, None  # the read counter and when it last grew
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="entailgen-progress", daemon=True)

    def __enter__(self) -> "Progress":
        self.started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def watch(self, now: float) -> None:
        """Note when the read counter grew: the end of the reading period so far."""
        read = self.live.get(RATE_OF, 0)
        if read != self.read:
            self.read, self.read_at = read, now

    def line(self, now: float) -> str:
        """The progress line at `now`, the read rate over the reading period."""
        read_seconds = None if self.read_at is None else self.read_at - self.started
        return progress_line(dict(self.live), now - self.started, read_seconds)

    def _write(self) -> None:
        line = "  " + self.line(time.monotonic())
        self.stream.write(f"\r{line}\033[K" if self.tty else line + "\n")
        self.stream.flush()

    def _loop(self) -> None:
        due = self.started + self.every
        while not self._stop.wait(min(TICK, self.every)):
            now = time.monotonic()
            self.watch(now)
            if now >= due:
                self._write()
                while due <= now:
                    due += self.every
