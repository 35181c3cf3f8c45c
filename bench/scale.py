"""Benchmark: a family's whole job on the DirectRunner (or Dask) at 1 vs 2 workers, and peak memory of the process tree
at N and 10N inputs (the ratio against N is the baseline: flat means records stream rather than pile up).

Inputs are synthetic: units (lines, CoNLL sentences, GMB sentences) resampled with a seeded RNG from the family's
embedded samples, written in the same formats under the same file names. Each run is `entailgen run` in a subprocess
with --direct_running_mode=multi_processing; memory is sampled from /proc over the subprocess and all its descendants.
Usage: python bench/scale.py PIPELINE [--n N | --sizes N1 N2 ...] [--workers 1 2] [--num-shards 4] [--seed 0]
       [--source FILE] [--runner direct dask] [-- FAMILY FLAGS...]
--runner dask runs entailgen's DaskRunner against a LocalCluster of --workers processes started by this script
(its scheduler in this process, not measured; the nannies and workers are, with the driver).
--source resamples one file's units instead of the samples (claims: whole UD-EWT documents written by
`python -m entailgen.transforms.io.ewt_documents DECOMP_WHEEL ewt.jsonl`); flags after `--` go to `entailgen run`.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path


from entailgen.pipelines import get_family
from entailgen.runners.run_command import SAMPLES
from entailgen.transforms.io import detect_format

from host import describe  # bench/host.py, beside this script

LINE_FORMATS = {"text", "paraphrase-tsv", "sentiment-uci", "nli-jsonl", "factuality-jsonl", "paraphrase-jsonl",
                "text-jsonl", "documents-jsonl"}
BIG_DEFAULT = {"recast": 100_000, "dae": 100_000}
POLL_SECONDS = 0.2


def _units(fmt: str, text: str) -> tuple[str, list[str], str]:
    """(header, units, separator) of a sample file in a resamplable format; ValueError for whole-document formats."""
    lines = text.splitlines()
    if fmt in LINE_FORMATS:
        return "", [line for line in lines if line.strip()], "\n"
    if fmt == "sentiment-csv":
        return lines[0] + "\n", [line for line in lines[1:] if line.strip()], "\n"
    if fmt == "conll2003":
        blocks = [b for b in text.split("\n\n") if b.strip() and not b.startswith("-DOCSTART-")]
        return "-DOCSTART- -X- -X- O\n\n", [b.strip("\n") for b in blocks], "\n\n"
    if fmt == "gmb":
        sentences: list[list[str]] = []
        for line in lines[1:]:
            if line.startswith("Sentence:"):
                sentences.append([line.split(",", 1)[1]])
            elif line.strip() and sentences:
                sentences[-1].append(line)
        return lines[0] + "\n", ["\n".join(s) for s in sentences], "\n"
    raise ValueError(f"{fmt} is one document, not a list of units")


def _distinct(fmt: str, unit: str, i: int) -> str:
    """Keep resampled units distinct where the format carries its own ids (JSON ids, GMB sentence numbers)."""
    if fmt == "gmb":
        return f"Sentence: {i + 1}," + unit
    if fmt.endswith("jsonl"):
        row = json.loads(unit)
        for key in ("id", "pairID", "uid"):
            if key in row:
                row[key] = f"{row[key]}-{i}"
        return json.dumps(row, ensure_ascii=False)
    return unit


def synthetic_inputs(pipeline: str, n: int, seed: int, directory: Path, source: str = "") -> list[str]:
    """n units in total, spread evenly over the family's resamplable samples (or one source file); returns the
    written paths."""
    rng = random.Random(seed)
    usable = []
    files = [Path(source)] if source else [SAMPLES / name for name in get_family(pipeline).samples]
    for path in files:
        name, fmt = path.name, detect_format(str(path))
        try:
            usable.append((name, fmt, *_units(fmt, path.read_text(encoding="utf-8"))))
        except ValueError as e:
            print(f"  (skipping sample {name}: {e})")
    paths = []
    for k, (name, fmt, header, units, sep) in enumerate(usable):
        count = n // len(usable) + (k < n % len(usable))
        body = sep.join(_distinct(fmt, rng.choice(units), i) for i in range(count))
        path = directory / name
        path.write_text(header + body + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue  # the process ended between listdir and open
            children.setdefault(ppid, []).append(int(entry))
    return children


def _kib(path: str, field: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_memory(root: int) -> tuple[int, int, int]:
    """(sum of VmRSS, sum of Pss, root's own Pss) in KiB over root and all its descendants; Pss splits shared pages
    fairly, and the root is the driver, which on the DirectRunner also holds the shuffle."""
    children, stack, rss, pss = _children(), [root], 0, 0
    while stack:
        pid = stack.pop()
        rss += _kib(f"/proc/{pid}/status", "VmRSS:")
        pss += _kib(f"/proc/{pid}/smaps_rollup", "Pss:")
        stack.extend(children.get(pid, []))
    return rss, pss, _kib(f"/proc/{root}/smaps_rollup", "Pss:")


def children_memory(proc) -> tuple[int, int, int]:
    """tree_memory summed over every child of this process (the job's driver, and a Dask cluster's nannies with their
    workers); the driver's own Pss last."""
    rss = pss = 0
    for child in _children().get(os.getpid(), []):
        r, p, _ = tree_memory(child)
        rss, pss = rss + r, pss + p
    return rss, pss, _kib(f"/proc/{proc.pid}/smaps_rollup", "Pss:")


@contextlib.contextmanager
def runner_flags(runner: str, workers: int):
    """The Beam flags of one run: the DirectRunner's multi-processing mode, or a fresh Dask cluster of `workers`
    worker processes (one thread each) started here, its scheduler in this process."""
    if runner == "direct":
        yield ["--direct_running_mode=multi_processing", f"--direct_num_workers={workers}"]
        return
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=":0") as cluster:
        yield ["--runner=DaskRunner", f"--dask_client_address={cluster.scheduler_address}"]


def run_once(pipeline: str, inputs: list[str], output: str, workers: int, num_shards: int, flags=(),
             runner: str = "direct") -> dict:
    """One `entailgen run` in a subprocess: wall seconds, peak tree RSS/PSS and the manifest's totals."""
    with runner_flags(runner, workers) as beam_flags:
        return _measured([sys.executable, "-m", "entailgen.runners.cli", "run", pipeline,
                          *(f"--input={p}" for p in inputs), f"--output={output}", f"--num-shards={num_shards}",
                          "--quiet", *flags, *beam_flags], output)


def _measured(cmd: list[str], output: str) -> dict:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak_rss = peak_pss = peak_driver = 0
    while proc.poll() is None:
        rss, pss, driver = children_memory(proc)
        peak_rss, peak_pss, peak_driver = max(peak_rss, rss), max(peak_pss, pss), max(peak_driver, driver)
        time.sleep(POLL_SECONDS)
    seconds = time.perf_counter() - start
    if proc.returncode:
        raise SystemExit(f"run failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr.read()[-2000:]}")
    total = json.loads(Path(output, "manifest.json").read_text())["counts"]["total"]
    return {"seconds": seconds, "rss_mib": peak_rss / 1024, "pss_mib": peak_pss / 1024,
            "driver_mib": peak_driver / 1024, **total}


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("pipeline")
    args.add_argument("--n", type=int, help="N: runs at N and 10N inputs (default 100000 for recast and dae)")
    args.add_argument("--sizes", type=int, nargs="+", help="explicit input counts instead of N and 10N")
    args.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args.add_argument("--num-shards", type=int, default=4)
    args.add_argument("--seed", type=int, default=0)
    args.add_argument("--source", default="", help="resample this file's units instead of the family's samples")
    args.add_argument("--runner", nargs="+", choices=("direct", "dask"), default=["direct"],
                      help="dask: entailgen's DaskRunner on a local cluster of --workers worker processes")
    argv = sys.argv[1:]
    flags = argv[argv.index("--") + 1:] if "--" in argv else []
    opts = args.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    n = opts.n or BIG_DEFAULT.get(opts.pipeline, 10_000)
    sizes = opts.sizes or [n, 10 * n]
    print(describe(" and ".join({"direct": "DirectRunner multi_processing", "dask": "DaskRunner (LocalCluster)"}[r]
                                for r in opts.runner)))
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            directory = Path(tmp, f"in{size}")
            directory.mkdir()
            inputs = synthetic_inputs(opts.pipeline, size, opts.seed, directory, opts.source)
            for runner in opts.runner:
                for workers in opts.workers:
                    output = str(Path(tmp, f"out{size}-{runner}-{workers}"))
                    results[size, runner, workers] = run_once(opts.pipeline, inputs, output, workers,
                                                              opts.num_shards, flags, runner)
    print(f"pipeline {opts.pipeline}: synthetic inputs resampled from {opts.source or 'its samples'} "
          f"(seed {opts.seed}){' flags ' + ' '.join(flags) if flags else ''}, "
          f"{opts.num_shards} shards per split, wall time includes start-up and model loading")
    print(f"{'inputs':>9} {'runner':>7} {'workers':>7} {'seconds':>8} {'inputs/s':>9} {'written':>8} {'dead':>6} "
          f"{'peak tree RSS':>14} {'peak tree PSS':>14} {'driver PSS':>11}")
    for (size, runner, workers), r in results.items():
        print(f"{size:>9} {runner:>7} {workers:>7} {r['seconds']:>8.1f} {size / r['seconds']:>9.1f} {r['written']:>8} "
              f"{r['dead_letters']:>6} {r['rss_mib']:>10.0f} MiB {r['pss_mib']:>10.0f} MiB {r['driver_mib']:>7.0f} MiB")
    low, high = min(opts.workers), max(opts.workers)
    for size in sizes:
        for runner in opts.runner:
            if low != high:
                ratio = results[size, runner, low]["seconds"] / results[size, runner, high]["seconds"]
                print(f"speed-up {high} vs {low} worker(s) at {size} inputs, {runner}: x{ratio:.2f}")
    for runner in opts.runner:
        for workers in opts.workers:
            base = results[sizes[0], runner, workers]["pss_mib"]
            for size in sizes[1:]:
                print(f"peak PSS at {size} vs {sizes[0]} inputs ({runner}, {workers} worker(s)): "
                      f"x{results[size, runner, workers]['pss_mib'] / base:.2f}")


if __name__ == "__main__":
    main()
