"""Issue #38 (third hardening round), the Dask runner's part: a scheduler that does not answer within a stated wait,
a count below 1, a malformed address or scheduler file, a worker's address and a scheduler lost mid-job are each one
line and exit 2, checked before anything is written (the probes used 127.0.0.1 only)."""
import json
import socket
import threading
import time

import dask
import pytest
from dask.distributed import LocalCluster

from entailgen.runners.cli import main
from entailgen.runners.dask import CONNECT_SECONDS, address_problem, value_problem


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("entailgen: error: "), err
    return err[0].removeprefix("entailgen: error: ")


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def within(seconds: float, argv: list) -> int:
    """main(argv) in a thread, the test failing if it has not returned within `seconds` (Dask's Client waits for a
    scheduler file without end, and hangs a minute closing a client it could not start)."""
    outcome = {}

    def call():
        try:
            outcome["rc"] = main(argv)
        except BaseException as e:  # raised again here, in the test
            outcome["error"] = e

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"main({argv}) still running after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["rc"]


def argv(command, tmp_path, *flags) -> list:
    """`run` (parse, its sample) or `score` into tmp_path/out on the Dask runner; score's model and input need not
    exist: the runner's flags are checked first."""
    out = str(tmp_path / "out")
    job = (["run", "parse", "--sample", "--quiet"] if command == "run"
           else ["score", str(tmp_path / "model"), "--input", str(tmp_path / "pairs.jsonl")])
    return [*job, "--output", out, "--runner", "DaskRunner", *flags]


@pytest.mark.parametrize("command, wait", [("run", None), ("score", 1)])
def test_a_scheduler_that_does_not_answer_is_one_line_within_the_stated_wait(command, wait, tmp_path, capsys):
    address = f"127.0.0.1:{closed_port()}"
    flags = [f"--dask_client_address={address}"] + ([f"--dask_connection_timeout={wait}"] if wait else [])
    started = time.monotonic()
    assert within(60, argv(command, tmp_path, *flags)) == 2
    seconds = wait or CONNECT_SECONDS
    assert time.monotonic() - started < seconds + 15  # Dask's own: 30 s, then a 70-line traceback
    assert one_error_line(capsys) == (f"no Dask scheduler answered at {address} within {seconds} s "
                                      "(--dask_client_address; --dask_connection_timeout SECONDS sets the wait)")
    assert list(tmp_path.iterdir()) == []  # no output folder, no build folder


@pytest.mark.parametrize("flags, said", [
    (["--dask_npartitions=-3"], "--dask_npartitions must be at least 1, got -3"),  # was an IndexError mid-job
    (["--dask_npartitions", "0"], "--dask_npartitions must be at least 1, got 0"),  # was silently the default
    (["--dask_partition_size=0"], "--dask_partition_size must be at least 1, got 0"),
    (["--dask_connection_limit=0"], "--dask_connection_limit must be at least 1, got 0"),  # was a hang, then 70 lines
    (["--dask_connection_timeout=-1"], "--dask_connection_timeout must be a whole number of seconds, at least 1, "
                                       "got -1"),
    (["--dask_connection_timeout=abc"], "--dask_connection_timeout must be a whole number of seconds, at least 1"),
    (["--dask_npartitions=abc"], "argument --dask_npartitions: invalid int value: 'abc'"),  # was Beam's usage, exit
    (["--dask_npartitions=2", "--dask_partition_size=3"],
     "argument --dask_partition_size: not allowed with argument --dask_npartitions"),
    (["--dask_client_address=nohost:notaport"], "--dask_client_address nohost:notaport: port notaport is not a number "
                                                "from 1 to 65535 (give HOST:PORT or tcp://HOST:PORT)"),
    (["--dask_client_address=127.0.0.1"], "--dask_client_address 127.0.0.1: no HOST:PORT in it (give HOST:PORT or "
                                          "tcp://HOST:PORT)"),
    (["--dask_client_address="], "--dask_client_address (empty): no HOST:PORT in it (give HOST:PORT or "
                                 "tcp://HOST:PORT)"),
    (["--dask_client_address=http://127.0.0.1:8787"], "--dask_client_address http://127.0.0.1:8787: http:// is not "
     "a Dask scheme (tcp, tls, ws, wss, ucx, inproc) (give HOST:PORT or tcp://HOST:PORT)"),
])
@pytest.mark.parametrize("command", ["run", "score"])
def test_a_dask_flag_that_cannot_run_is_one_line_naming_it(command, flags, said, tmp_path, capsys):
    assert within(60, argv(command, tmp_path, *flags)) == 2
    assert one_error_line(capsys) == said
    assert list(tmp_path.iterdir()) == []


def test_a_scheduler_file_must_be_there_and_name_an_address(tmp_path, capsys):
    path = tmp_path / "scheduler.json"
    assert within(60, argv("run", tmp_path, f"--dask_scheduler_file={path}")) == 2  # Dask's Client: waits, no end
    assert one_error_line(capsys) == (f"--dask_scheduler_file {path}: no such file (the one `dask scheduler "
                                      "--scheduler-file` writes)")
    path.write_text(json.dumps({"id": "Scheduler-1"}))
    assert within(60, argv("run", tmp_path, f"--dask_scheduler_file={path}")) == 2  # Dask's: 10 tries, a KeyError
    assert one_error_line(capsys) == f"--dask_scheduler_file {path}: no scheduler address in it (KeyError: 'address')"
    address = f"tcp://127.0.0.1:{closed_port()}"
    path.write_text(json.dumps({"address": address}))
    assert within(60, argv("run", tmp_path, f"--dask_scheduler_file={path}", "--dask_connection_timeout=1")) == 2
    assert one_error_line(capsys) == (f"no Dask scheduler answered at {address} within 1 s (--dask_scheduler_file "
                                      f"{path}; --dask_connection_timeout SECONDS sets the wait)")
    assert within(60, argv("run", tmp_path, f"--dask_scheduler_file={path}", f"--dask_client_address={address}")) \
        == 2
    assert one_error_line(capsys) == "give --dask_client_address or --dask_scheduler_file, not both"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scheduler.json"]


@pytest.fixture
def in_process_cluster():
    """A scheduler and one worker in this process, on loopback TCP; a test may close the scheduler (then closing the
    cluster waits for it as long as a connection may take: 2 s, not Dask's 30)."""
    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}), LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
            dashboard_address=":0") as cluster:
        yield cluster


def test_a_workers_address_is_one_line_naming_its_scheduler(in_process_cluster, tmp_path, capsys):
    worker = next(iter(in_process_cluster.workers.values())).address
    assert within(60, argv("run", tmp_path, f"--dask_client_address={worker}")) == 2  # was a TypeError, then a hang
    assert one_error_line(capsys) == (f"--dask_client_address {worker}: a Dask Worker answered, not a scheduler "
                                      f"(its scheduler: {in_process_cluster.scheduler_address})")
    assert list(tmp_path.iterdir()) == []


def test_a_scheduler_lost_mid_job_is_one_line_and_leaves_no_dataset(in_process_cluster, tmp_path, capsys):
    scheduler = in_process_cluster.scheduler
    address = in_process_cluster.scheduler_address
    outcome = {}
    job = threading.Thread(target=lambda: outcome.update(rc=main(argv(
        "run", tmp_path, f"--dask_client_address={address}", "--dask_connection_timeout=2"))))
    job.start()
    deadline = time.monotonic() + 120
    while not any("Parse" in str(key) for key in list(scheduler.tasks)) and job.is_alive() and \
            time.monotonic() < deadline:
        time.sleep(0.02)
    assert job.is_alive(), "the job ended before its scheduler could be closed"
    in_process_cluster.sync(scheduler.close)  # while the job's tasks are on it
    job.join(60)
    assert not job.is_alive() and outcome == {"rc": 2}, outcome  # was a 22-line FutureCancelledError
    assert one_error_line(capsys) == f"the Dask scheduler at {address} went away mid-job; the job was cancelled"
    assert list(tmp_path.iterdir()) == []  # the build folder removed: no half dataset


# -- the pure checks the refusals come from ---------------------------------------------------------------------------

@pytest.mark.parametrize("address, problem", [
    ("127.0.0.1:8786", None), ("tcp://127.0.0.1:8786", None), ("tcp://[::1]:8786", None), ("sched.lan:8786", None),
    ("inproc://192.0.2.2/1/1", None), ("127.0.0.1:0", "port 0 is not a number from 1 to 65535"),
    ("127.0.0.1:65536", "port 65536 is not a number from 1 to 65535"), ("tcp://:8786", "no HOST:PORT in it"),
    ("127.0.0.1:", "port (none) is not a number from 1 to 65535"),
])
def test_address_problem(address, problem):
    assert address_problem(address) == problem


def test_value_problem_leaves_what_is_not_given_to_dask():
    assert value_problem({}) is None
    assert value_problem({"npartitions": 1, "connection_limit": 1, "timeout": 1, "address": "h:1"}) is None
