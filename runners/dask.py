"""entailgen's Dask runner: Beam 2.77's DaskRunner with what it loses put back, each fix one method (upstreamable).

Beam's DaskRunner (apache_beam.runners.dask) turns a pipeline into dask.bag operations, but merges a ParDo's tagged
outputs into one bag, drops what a DoFn emits in finish_bundle, cannot report metrics, recomputes side inputs inside
each consumer, ignores Reshuffle, runs DoFn setup per partition and reads no Read transform (ReadFromText). This
subclass translates the same pipeline with those fixed; a bundle is a dask partition. Global windows only, as upstream.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import errno
import json
import operator
import threading
import uuid
from typing import Any, Optional

import apache_beam as beam
import dask
import dask.bag as db
from apache_beam.internal import pickler
from apache_beam.metrics.execution import MetricsContainer
from apache_beam.pipeline import AppliedPTransform, PipelineVisitor
from apache_beam.runners.common import DoFnContext, DoFnInvoker, DoFnSignature, Receiver, _OutputHandler
from apache_beam.runners.dask import dask_runner as stock
from apache_beam.runners.dask.overrides import _Create, _Flatten, _GroupByKeyOnly, _Read, _Reshuffle, dask_overrides
from apache_beam.runners.dask.transform_evaluator import defenestrate, get_windowed_value
from apache_beam.runners.direct.direct_metrics import DirectMetrics
from apache_beam.runners.runner import PipelineResult, PipelineState
from apache_beam.runners.worker import statesampler
from apache_beam.transforms.sideinputs import SideInputMap
from apache_beam.utils import counters

DaskOptions = stock.DaskOptions  # --dask_client_address, --dask_npartitions, ...: registered by importing this module
READ_BUNDLE_BYTES = 64 << 20  # a bounded source is read in splits of about this size, one partition each
CONNECT_SECONDS = 10  # how long a job waits for its scheduler to answer, unless --dask_connection_timeout (Dask: 30)
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")  # distributed's comm backends; no scheme is tcp
AT_LEAST_ONE = {"npartitions": "--dask_npartitions", "partition_size": "--dask_partition_size",
                "connection_limit": "--dask_connection_limit"}  # DaskOptions dest -> flag, for a count of things


def connect_seconds(dask_options: dict) -> int:
    """The bounded wait for a scheduler (connecting, and reconnecting mid-job): --dask_connection_timeout, else ours."""
    return dask_options.get("timeout") or CONNECT_SECONDS


def value_problem(dask_options: dict) -> Optional[str]:
    """Why a Dask flag's value cannot run, or None: a count below 1 (partitions, their size, connections) would be an
    IndexError deep in the job or silently the default, and a timeout that is not whole seconds silently Dask's 30 s."""
    for dest, flag in AT_LEAST_ONE.items():
        value = dask_options.get(dest)
        if value is not None and value < 1:
            return f"{flag} must be at least 1, got {value}"
    timeout = dask_options.get("timeout")
    if timeout is not None and not (isinstance(timeout, int) and timeout >= 1):  # Beam's parser: 'abc' -> no_default
        return "--dask_connection_timeout must be a whole number of seconds, at least 1" + (
            f", got {timeout}" if isinstance(timeout, int) else "")
    if dask_options.get("address") is not None and dask_options.get("scheduler_file") is not None:
        return "give --dask_client_address or --dask_scheduler_file, not both"
    return None


def address_problem(address: str) -> Optional[str]:
    """Why an address is no scheduler's (HOST:PORT, with a scheme or none), or None: distributed says it in Client's
    traceback ("invalid literal for int()"), then hangs a minute at exit closing the client it could not start."""
    scheme, sep, location = address.rpartition("://")
    if sep and scheme not in SCHEMES:
        return f"{scheme}:// is not a Dask scheme ({', '.join(SCHEMES)})"
    if scheme == "inproc":
        return None  # a scheduler in this process: no host and port
    host, colon, port = location.rpartition(":")
    if not colon or not host:
        return "no HOST:PORT in it"
    if not (port.isdigit() and 1 <= int(port) <= 65535):
        return f"port {port or '(none)'} is not a number from 1 to 65535"
    return None


def scheduler_address(dask_options: dict) -> Optional[tuple[str, str]]:
    """(the scheduler's address, the flag that named it), or None for a local cluster of the job's own; the scheduler
    file must be there now (Dask's Client waits for it, without end)."""
    if dask_options.get("address") is not None:  # an empty one too: Dask's Client fails on it, deep inside
        return dask_options["address"], "--dask_client_address"
    path = dask_options.get("scheduler_file")
    if path is None:
        return None
    flag = f"--dask_scheduler_file {path}"
    try:
        with open(path) as f:
            address = json.load(f)["address"]
    except FileNotFoundError:
        raise ValueError(f"{flag}: no such file (the one `dask scheduler --scheduler-file` writes)") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{flag}: no scheduler address in it ({type(e).__name__}: {e})") from None
    if not isinstance(address, str):
        raise ValueError(f"{flag}: no scheduler address in it (address: {address!r})")
    return address, flag


async def _identity(address: str) -> dict:
    """What answers at address says it is (a Dask server's identity: its type, a worker's scheduler)."""
    import distributed
    from distributed.comm import connect

    comm = await connect(address, **distributed.Security().get_connection_args("client"))
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        await comm.close()


def check_scheduler(address: str, flag: str, seconds: int) -> None:
    """A scheduler answers at address within `seconds`, or a ValueError with one line, before anything is written:
    Dask's Client waits 30 s, then raises a 70-line traceback (for a malformed address or a worker's, then hangs)."""
    problem = address_problem(address)
    if problem:
        raise ValueError(f"{flag} {address or '(empty)'}: {problem} (give HOST:PORT or tcp://HOST:PORT)")
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as thread:  # its own event loop, even under a notebook's
            answer = thread.submit(asyncio.run, asyncio.wait_for(_identity(address), seconds)).result()
    except (OSError, asyncio.TimeoutError):  # refused, unresolvable, or it never answered: all within `seconds`
        raise ValueError(f"no Dask scheduler answered at {address} within {seconds} s ({flag}; "
                         "--dask_connection_timeout SECONDS sets the wait)") from None
    except (ValueError, TypeError) as e:  # distributed's word on an address it cannot use (tls:// without TLS set up)
        raise ValueError(f"{flag} {address}: {e}") from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        scheduler = answer.get("scheduler") if isinstance(answer, dict) else None
        raise ValueError(f"{flag} {address}: a Dask {kind or 'server'} answered, not a scheduler"
                         + (f" (its scheduler: {scheduler})" if scheduler else ""))


def check_dask_options(dask_options: dict) -> None:
    """The Dask flags as a job would use them, checked before it starts, as a ValueError with one line: their values,
    and the scheduler they name answering."""
    problem = value_problem(dask_options)
    if problem:
        raise ValueError(problem)
    named = scheduler_address(dask_options)
    if named:
        check_scheduler(*named, connect_seconds(dask_options))


@dataclasses.dataclass(frozen=True)
class _Step:
    """What a worker needs to run one ParDo's bundles: the pickled DoFn and its arguments, shipped once per job."""
    token: str  # job id and step label: the key of this step's set-up DoFns in each worker process
    label: str
    pickled: bytes  # (fn, args, kwargs), side inputs in args and kwargs as placeholders
    window_fn: Any
    tags: tuple  # the output tags, None for the main output
    side_views: tuple  # (view class, view options) per side input, in the order of the placeholders


class _Receiver(Receiver):
    """Collects one output tag's values of a bundle."""

    def __init__(self, values: list):
        self.values = values

    def receive(self, windowed_value):
        self.values.append(windowed_value.value)


class _Receivers(dict):
    """The receivers of a bundle, one list of values per tag (a tag the step does not declare is an error)."""

    def __init__(self, tags):
        super().__init__({tag: _Receiver([]) for tag in tags})

    def outputs(self) -> dict:
        return {tag: receiver.values for tag, receiver in self.items()}


_SET_UP: dict[str, list] = {}  # per worker process: idle DoFns already set up, by step token
_SET_UP_LOCK = threading.Lock()


def _checkout(step: _Step):
    """A set-up DoFn of this step: an idle one of this process, else a fresh one unpickled and set up now."""
    with _SET_UP_LOCK:
        idle = _SET_UP.get(step.token)
        if idle:
            return idle.pop()
    fn, args, kwargs = pickler.loads(step.pickled)
    fn.setup()
    return fn, args, kwargs


def _checkin(step: _Step, set_up) -> None:
    with _SET_UP_LOCK:
        _SET_UP.setdefault(step.token, []).append(set_up)


def tear_down(job: str) -> int:
    """Tear down this process's DoFns of a job (run on every worker once the job is over); returns how many."""
    with _SET_UP_LOCK:
        done = [_SET_UP.pop(token) for token in [t for t in _SET_UP if t.startswith(job + "/")]]
    for fn, _, _ in (set_up for idle in done for set_up in idle):
        fn.teardown()
    return sum(map(len, done))


def run_bundle(elements, step: _Step, *side_values) -> tuple[dict, Any]:
    """One bundle (a dask partition) through a DoFn: its outputs by tag, finish_bundle's included, and its metrics."""
    set_up = _checkout(step)
    fn, args, kwargs = set_up
    receivers = _Receivers(step.tags)
    container = MetricsContainer(step.label)
    sampler = statesampler.StateSampler("", counters.CounterFactory())  # where Metrics.counter finds the container
    statesampler.set_current_tracker(sampler)
    try:
        with sampler.scoped_state(step.label, "process", metrics_container=container):
            handler = _OutputHandler(window_fn=step.window_fn, main_receivers=receivers[None],
                                     tagged_receivers=receivers, per_element_output_counter=None,
                                     output_batch_converter=None, process_yields_batches=False,
                                     process_batch_yields_elements=False)
            side_inputs = [SideInputMap(view, options, [get_windowed_value(v, None) for v in values])
                           for (view, options), values in zip(step.side_views, side_values)]
            invoker = DoFnInvoker.create_invoker(
                DoFnSignature(fn), handler, context=DoFnContext(step.label, state=None), side_inputs=side_inputs,
                input_args=args, input_kwargs=kwargs, user_state_context=None,
                bundle_finalizer_param=beam.DoFn.BundleFinalizerParam())
            invoker.invoke_start_bundle()
            for element in elements:
                invoker.invoke_process(get_windowed_value(element, step.window_fn))
            invoker.invoke_finish_bundle()
    finally:
        statesampler.set_current_tracker(None)
    _checkin(step, set_up)  # only after a bundle that succeeded: a failed one's DoFn may be half way through
    return receivers.outputs(), container.get_cumulative()


def _concat(*partitions) -> list:
    return [x for partition in partitions for x in partition]


def _deal(partition, i: int, n: int) -> list:
    return list(partition)[i::n]


def _read_split(split) -> list:
    """The records of one split of a bounded source."""
    source = split.source
    return list(source.read(source.get_range_tracker(split.start_position, split.stop_position)))


def _size(partition) -> int:
    return sum(1 for _ in partition)


def _tagged(bundle, tag) -> list:
    return bundle[0][tag]


def _all_metrics(updates: list, _sinks_done: list) -> list:
    return updates


class _Translation(PipelineVisitor):
    """The pipeline as dask bags: one bag per PCollection, plus each bundle's metrics."""

    def __init__(self, runner: "DaskRunner", job: str, bag_kwargs: dict, partitions: int):
        self.runner, self.job, self.bag_kwargs, self.partitions = runner, job, bag_kwargs, partitions
        self.bags: dict = {}  # PCollection -> Bag
        self.consumed: set = set()
        self.metrics: list = []  # a Delayed MetricUpdates per bundle
        self.side_values: dict = {}  # PCollection -> Delayed list, computed once

    def visit_transform(self, node: AppliedPTransform) -> None:
        inputs = [pcoll for pcoll in node.inputs if isinstance(pcoll, beam.pvalue.PCollection)]
        self.consumed.update(inputs)
        self.consumed.update(si.pvalue for si in node.side_inputs)
        bags = [self.bags[pcoll] for pcoll in inputs]
        transform = node.transform
        if isinstance(transform, _Create):
            outputs = {None: self.runner.create(list(transform.values), self.bag_kwargs, self.partitions)}
        elif type(transform) is beam.ParDo:
            outputs = self.runner.outputs_by_tag(self, node, bags[0])
        elif isinstance(transform, _GroupByKeyOnly):
            outputs = {None: self.runner.group_by_key(bags[0], self.partitions)}
        elif isinstance(transform, _Flatten):
            outputs = {None: self.runner.flatten(bags, self.partitions)}
        elif isinstance(transform, _Reshuffle):
            outputs = {None: self.runner.reshuffle(bags[0], self.partitions)}
        elif isinstance(transform, _Read):
            outputs = {None: self.runner.read(transform.source)}
        elif len(bags) == 1:  # WindowInto, GroupAlsoByWindow: identities in the global window, as upstream
            outputs = {None: bags[0]}
        else:
            raise NotImplementedError(f"the DaskRunner cannot run {node.full_label} ({type(transform).__name__})")
        for tag, pcoll in node.outputs.items():
            self.bags[pcoll] = outputs[tag]

    def sinks(self) -> list:
        """The bags nothing consumes: what must be computed for every write to happen."""
        return [bag for pcoll, bag in self.bags.items() if pcoll not in self.consumed]


class DaskRunner(stock.DaskRunner):
    """Beam's DaskRunner with every output kept: tagged outputs, finish_bundle output, metrics, side inputs computed
    once, Reshuffle, DoFn setup once per worker process, bounded Reads."""

    def run_pipeline(self, pipeline, options):
        import dask.distributed as ddist

        dask_options = options.view_as(DaskOptions).get_all_options(drop_default=True, current_only=True)
        check_dask_options(dask_options)
        bag_kwargs = DaskOptions._extract_bag_kwargs(dask_options)
        client = ddist.Client(set_as_default=False, **{**dask_options, "timeout": connect_seconds(dask_options)})
        pipeline.replace_all(dask_overrides())
        job = uuid.uuid4().hex
        partitions = bag_kwargs.get("npartitions") or 2 * max(1, sum(client.nthreads().values()))
        translation = _Translation(self, job, bag_kwargs, partitions)
        pipeline.visit(translation)
        done = self.job_done(translation)
        return DaskJobResult(client, client.compute(done), job)

    @staticmethod
    def create(values: list, bag_kwargs: dict, partitions: int) -> db.Bag:
        """Create's values in the job's partitions (or --dask_partition_size each); an empty Create is one empty one."""
        if not values:
            return db.from_sequence([])
        if bag_kwargs.get("partition_size"):
            return db.from_sequence(values, partition_size=bag_kwargs["partition_size"])
        return db.from_sequence(values, npartitions=min(partitions, len(values)))

    @staticmethod
    def outputs_by_tag(translation: _Translation, node: AppliedPTransform, bag: db.Bag) -> dict:
        """One bag per output tag of a ParDo (upstream merges them: a dead letter would reach the main output)."""
        transform = node.transform
        main = next(iter(node.main_inputs.values()))
        step = _Step(token=f"{translation.job}/{node.full_label}", label=node.full_label,
                     pickled=pickler.dumps((transform.fn, transform.args, transform.kwargs)),
                     window_fn=main.windowing.windowfn if hasattr(main, "windowing") else None, tags=tuple(node.outputs),
                     side_views=tuple((type(si), si._view_options()) for si in node.side_inputs))
        sides = [DaskRunner.side_input(translation, si.pvalue) for si in node.side_inputs]
        step = dask.delayed(step)  # one copy in the graph, not one per bundle
        bundles = [dask.delayed(run_bundle)(part, step, *sides, dask_key_name=(node.full_label, translation.job, i))
                   for i, part in enumerate(bag.to_delayed(optimize_graph=False))]  # named for the dashboard
        translation.metrics.extend(dask.delayed(operator.getitem)(b, 1) for b in bundles)
        return {tag: db.from_delayed([dask.delayed(_tagged)(b, tag) for b in bundles]) for tag in node.outputs}

    @staticmethod
    def side_input(translation: _Translation, pcoll) -> Any:
        """A side input as one task the consumers depend on (upstream recomputes it inside each consumer)."""
        if pcoll not in translation.side_values:
            parts = translation.bags[pcoll].to_delayed(optimize_graph=False)
            translation.side_values[pcoll] = dask.delayed(_concat)(*parts)
        return translation.side_values[pcoll]

    @staticmethod
    def flatten(bags: list, n: int) -> db.Bag:
        """The bags' partitions side by side, merged down to n (upstream's concat grows with each Flatten, and every
        shuffle after it with the square of that)."""
        bag = db.concat(bags) if bags else db.from_sequence([])
        return bag.repartition(n) if bag.npartitions > n else bag

    @staticmethod
    def group_by_key(bag: db.Bag, n: int) -> db.Bag:
        """Group by a task shuffle over at most n partitions, whichever client is the default (a disk shuffle is one
        machine's)."""
        bag = bag.repartition(n) if bag.npartitions > n else bag
        return bag.groupby(operator.itemgetter(0), shuffle="tasks").map(
            lambda group: (group[0], [defenestrate(kv[1]) for kv in group[1]]))

    @staticmethod
    def reshuffle(bag: db.Bag, n: int) -> db.Bag:
        """Reshuffle as a round-robin redistribution over n partitions (upstream: a no-op, no scale-out)."""
        parts = bag.to_delayed(optimize_graph=False)
        dealt = [[dask.delayed(_deal)(part, i, n) for i in range(n)] for part in parts]
        return db.from_delayed([dask.delayed(_concat)(*(d[i] for d in dealt)) for i in range(n)])

    @staticmethod
    def read(source) -> db.Bag:
        """A bounded Read (ReadFromText) as one partition per split (upstream leaves it unread)."""
        splits = list(source.split(READ_BUNDLE_BYTES))
        if not splits:
            return db.from_sequence([])
        return db.from_delayed([dask.delayed(_read_split)(split) for split in splits])

    @staticmethod
    def job_done(translation: _Translation):
        """One task on every sink and every bundle's metrics (upstream computes the last bag only)."""
        sizes = [dask.delayed(_size)(part) for bag in translation.sinks()
                 for part in bag.to_delayed(optimize_graph=False)]
        return dask.delayed(_all_metrics)(translation.metrics, sizes)


def lost_scheduler(e: BaseException, address: str) -> Optional[ConnectionError]:
    """A job cancelled because its client lost the scheduler, as the connection error it is (the CLI says a system's
    OSError in one line; Dask's says "re-run your work" under a traceback), or None for any other failure."""
    from distributed.client import FutureCancelledError

    if isinstance(e, FutureCancelledError) and e.reason == "scheduler-connection-lost":
        return ConnectionAbortedError(errno.ECONNABORTED,
                                      f"the Dask scheduler at {address} went away mid-job; the job was cancelled")
    return None


class DaskJobResult(PipelineResult):
    """A submitted job: wait_until_finish commits each bundle's metrics; metrics() then answers queries."""

    def __init__(self, client, future, job: str):
        super().__init__(PipelineState.RUNNING)
        self.client, self.future, self.job = client, future, job
        self._metrics: Optional[DirectMetrics] = None

    def wait_until_finish(self, duration=None) -> str:
        if self._state != PipelineState.RUNNING:
            return self._state
        try:
            updates = self.future.result(timeout=None if duration is None else duration / 1000)
        except TimeoutError:  # still running after `duration` milliseconds
            return self._state
        except BaseException as e:
            self._state = PipelineState.FAILED
            lost = lost_scheduler(e, self.client.scheduler.address)
            self._close()
            if lost:
                raise lost from e
            raise
        self._metrics = DirectMetrics()
        for bundle, update in enumerate(updates):  # each bundle's counters once: a retried bundle's last attempt
            self._metrics.commit_logical(bundle, update)
        self._state = PipelineState.DONE
        self._close()
        return self._state

    def _close(self) -> None:
        """Tear down the job's DoFns on every worker, then close the client (and the local cluster it started)."""
        try:
            self.client.run(tear_down, self.job)
        except Exception:  # a worker gone with the job: its DoFns went with it
            pass
        self.client.close()

    def cancel(self) -> str:
        self.future.cancel()
        self._close()
        self._state = PipelineState.CANCELLED
        return self._state

    def metrics(self) -> DirectMetrics:
        if self._metrics is None:
            raise RuntimeError("metrics are there once wait_until_finish has returned")
        return self._metrics
