"""`entailgen detector --input DOCS... --output DIR`: entailgen's best detector built from a user's own documents.

The recipe bench/benchmark.py's val cuts chose (docs/benchmarks/summac.md): the documents -> `run claims`; their
sentences -> `run paraphrase` -> `run dae` (with the augmentations); a model on the claims source view and a DAE arc
model -> `train`; optionally a SummaC-Conv head on the claims member -> `train-conv`. Each stage is the CLI command a
user could run by hand (detector.json lists them), built inside the detector's own build folder: a killed build run
again with the same recipe keeps the stages that finished and rebuilds the one that was cut off.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
from dataclasses import asdict, dataclass
from typing import Callable, Optional, Sequence

from entailgen.dataset.manifest import fingerprint
from entailgen.dataset.output import DETECTOR, OutputError, check_output
from entailgen.dataset.publish import publish
from entailgen.runners.cli import UsageError, expand_inputs, main
from entailgen.schemas.sources import Document, LabelledClaim
from entailgen.transforms.io.documents import read_documents

DAE_AUGMENT = "word_swap,synonym,hallucination,overlap"  # the dae stage's augmentations (bench, Makefile's sample)
CLAIMS_MEMBER, DAE_MEMBER, CONV = "members/claims-source", "members/dae-arcs", "members/claims-source.conv"


@dataclass(frozen=True)
class DetectorOptions:
    """The recipe: bench/benchmark.py's defaults for its val pick (the claims source view takes every claims row; the
    DAE arc model --max-train rows an epoch)."""

    encoder: Optional[str] = None  # None: `entailgen train`'s default encoder
    device: str = "cpu"
    epochs: int = 1
    max_train: int = 12000
    claims_per_document: int = 4
    sentences: int = 1500  # document sentences for paraphrase -> dae
    conv: bool = False
    conv_rows: int = 1000
    seed: int = 0
    exclude_documents: tuple[str, ...] = ()  # benchmark files whose test-cut documents stay out of training text

    def check(self) -> None:
        """Refuse meaningless values with one line."""
        for name in ("epochs", "max_train", "claims_per_document", "sentences", "conv_rows"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")


def kept_documents(inputs: Sequence[str], exclude: Sequence[str], path: str) -> dict:
    """The input documents as claims-family JSON Lines at path, less each that is the same article as a test-cut
    document of an --exclude-documents file (training.benchmarks.held_out); returns the counts. A unit the reader refuses is
    kept as its raw line, so the claims stage's dead letters still say why."""
    from entailgen.training.benchmarks.held_out import held_out  # the benchmark reader: only when files are given

    held = held_out(exclude) if exclude else None
    counts = {"read": 0, "excluded": 0, "kept": 0}
    excluded_ids: list[str] = []
    lines = []
    for name in inputs:
        with open(name, "rb") as f:
            for unit in read_documents(f, name):
                counts["read"] += 1
                if isinstance(unit, Document) and held is not None and unit.text in held:
                    counts["excluded"] += 1
                    excluded_ids.append(unit.dataset_id or unit.source_id)
                    continue
                counts["kept"] += 1
                lines.append(unit_line(unit) + "\n")
    written(path, "".join(lines))
    return {**counts, "excluded_ids": excluded_ids}


def written(path: str, text: str) -> None:
    """text at path, whole or not at all (a killed build must not resume from half a file)."""
    with open(path + ".partial", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".partial", path)


def unit_line(unit) -> str:
    """One read unit as a claims-family JSON line: a document (with its summary), a labelled claim, or a dead
    letter's raw text (which the claims stage refuses again, and counts)."""
    if isinstance(unit, Document):
        return json.dumps({"id": unit.dataset_id or unit.source_id, "text": unit.text,
                           **({"summary": unit.summary} if unit.summary is not None else {})}, ensure_ascii=False)
    if isinstance(unit, LabelledClaim):
        return json.dumps({"id": unit.dataset_id or unit.source_id, "text": unit.document, "claim": unit.claim,
                           "label": unit.label}, ensure_ascii=False)
    return " ".join(unit.raw.split()) or "{}"


def document_sentences(documents: str, n: int, path: str, seed: int = 0) -> int:
    """n distinct sentences of 8-40 words from the documents (seeded): the paraphrase -> dae stages' input."""
    sentences = set()
    with open(documents, encoding="utf-8") as f:
        for line in f:
            try:
                text = json.loads(line).get("text")
            except (ValueError, AttributeError):
                continue  # a dead letter's line: the claims stage counts it
            for s in re.split(r"(?<=[.!?])\s+", text if isinstance(text, str) else ""):
                if 8 <= len(s.split()) <= 40:
                    sentences.add(" ".join(s.split()))
    picked = sorted(sentences)
    random.Random(seed).shuffle(picked)
    written(path, "".join(s + "\n" for s in picked[:n]))
    return min(n, len(picked))


def command(*argv: str) -> None:
    """One stage: an entailgen command run in this process; its failure is the build's (the stage's own message
    is above), Ctrl-C stops the build with the finished stages kept."""
    rc = main(list(argv))
    if rc == 130:
        raise KeyboardInterrupt
    if rc != 0:
        raise UsageError(f"detector: the stage `entailgen {' '.join(argv[:2])}` failed (its message is above)")


def recipe_of(inputs: Sequence[str], options: DetectorOptions) -> dict:
    """What the build is made from: the options and every input's and excluded file's sha256 (a resumed build must
    be the same recipe)."""
    recipe = {"options": asdict(options), "inputs": [fingerprint(p)["sha256"] for p in inputs],
              "exclude_documents": [fingerprint(p)["sha256"] for p in options.exclude_documents]}
    return json.loads(json.dumps(recipe))  # as the marker reads back (a tuple as a list)


def stages(folder: str, options: DetectorOptions, quiet: bool) -> list[tuple[str, str, list]]:
    """(name, what it writes, the entailgen command) of each stage, in order."""
    p = lambda *parts: os.path.join(folder, *parts)  # noqa: E731
    q = ["--quiet"] if quiet else []
    seed = ["--seed", str(options.seed)]
    train = ["--epochs", str(options.epochs), "--device", options.device, *seed, *q,
             *(["--encoder", options.encoder] if options.encoder else [])]
    out = [("claims dataset", p("datasets", "claims"),
            ["run", "claims", "--input", p("documents.jsonl"), "--claims-per-document",
             str(options.claims_per_document), *seed, *q]),
           ("paraphrase dataset", p("datasets", "paraphrase"),
            ["run", "paraphrase", "--input", p("sentences.txt"), "--export", "paranmt", *seed, *q]),
           ("dae dataset", p("datasets", "dae"),
            ["run", "dae", "--input", p("datasets", "paraphrase", "paranmt.tsv"), "--augment", DAE_AUGMENT, *seed,
             *q]),
           ("claims member", p(CLAIMS_MEMBER), ["train", p("datasets", "claims"), "--claims-view", "source", *train]),
           ("dae member", p(DAE_MEMBER), ["train", p("datasets", "dae"), "--max-examples", str(options.max_train),
                                          *train])]
    if options.conv:
        out.append(("Conv head", p(CONV), ["train-conv", p(CLAIMS_MEMBER), p("datasets", "claims"), "--max-rows",
                                           str(options.conv_rows), "--device", options.device, *seed, *q]))
    return [(name, target, [*argv[:1], *argv[1:], "--output", target]) for name, target, argv in out]


def finished(target: str) -> bool:
    """Whether a stage's output is complete (published: its folder exists only once swapped in)."""
    return os.path.isdir(target)


def build_detector(inputs: Sequence[str], output: str, options: DetectorOptions = DetectorOptions(), *,
                   overwrite: bool = False, quiet: bool = False, say: Callable[[str], None] = print) -> dict:
    """Build the detector dir at output (in its build folder, swapped in once complete); returns detector.json."""
    from entailgen.training.scoring.detector import DETECTOR_JSON, JOIN
    from entailgen.training.scoring.summac import model_checksums

    options.check()
    recipe = recipe_of(inputs, options)
    with publish(output, DETECTOR, inputs=list(inputs), overwrite=overwrite, recipe=recipe) as folder:
        documents, sentences = os.path.join(folder, "documents.jsonl"), os.path.join(folder, "sentences.txt")
        counts_path = os.path.join(folder, "documents.json")
        if not os.path.isfile(counts_path):
            written(counts_path, json.dumps(kept_documents(inputs, options.exclude_documents, documents)))
        with open(counts_path, encoding="utf-8") as f:
            counts = json.load(f)
        say(f"detector: {counts['read']} documents read, {counts['excluded']} left out (a test-cut article of "
            f"--exclude-documents), {counts['kept']} kept")
        if not counts["kept"]:
            raise UsageError("detector: no document is left to build from")
        plan = stages(folder, options, quiet)
        for i, (name, target, argv) in enumerate(plan, 1):
            if name == "paraphrase dataset" and not os.path.isfile(sentences):
                n = document_sentences(documents, options.sentences, sentences, options.seed)
                say(f"detector: {n} sentences of 8-40 words for paraphrase -> dae")
            if finished(target):
                say(f"detector: stage {i}/{len(plan)} {name}: done already")
                continue
            say(f"detector: stage {i}/{len(plan)} {name} ...")
            command(*argv)
        members = [{"name": "claims, source view", "dir": CLAIMS_MEMBER, "dataset": "datasets/claims"},
                   {"name": "dae arc model", "dir": DAE_MEMBER, "dataset": "datasets/dae"}]
        for m in members:
            with open(os.path.join(folder, m["dataset"], "manifest.json"), "rb") as f:
                m["dataset_manifest_sha256"] = hashlib.sha256(f.read()).hexdigest()
            with open(os.path.join(folder, m["dir"], "train.json"), encoding="utf-8") as f:
                m["rows"] = json.load(f)["counts"]
            m["checksums"] = model_checksums(os.path.join(folder, m["dir"]))
        commands = [{"name": name, "command": ["entailgen", *(a.replace(folder, "DIR") for a in argv)]}
                    for name, _, argv in plan]
        meta = {"recipe": {**asdict(options), "join": JOIN, "stages": commands},
                "members": members, **({"conv": CONV} if options.conv else {}),
                "inputs": [fingerprint(p) for p in inputs],
                "documents": {k: counts[k] for k in ("read", "excluded", "kept")},
                "excluded_documents": {"count": counts["excluded"], "ids": counts["excluded_ids"],
                                       "files": [fingerprint(p) for p in options.exclude_documents]}}
        write_card(folder, meta)
        written(os.path.join(folder, DETECTOR_JSON), json.dumps(meta, indent=1, ensure_ascii=False) + "\n")  # last
    return meta


def write_card(folder: str, meta: dict) -> None:
    """README.md: what the detector is, how it was built and how to use it."""
    r = meta["recipe"]
    lines = ["# entailgen detector", "",
             f"Built by `entailgen detector` from {meta['documents']['kept']} documents "
             f"({meta['documents']['excluded']} left out as test-cut articles of --exclude-documents files).", "",
             f"A row's score: the {r['join']}" + (f"; the claims member's score is its Conv head's (`{meta['conv']}`), "
                                                  "in the plain mode (e, no MC dropout; else its ZS score)"
                                                  if meta.get("conv") else "") + ".", "",
             "| member | model dir | training rows | dataset manifest sha256 |",
             "|---|---|---|---|"]
    lines += [f"| {m['name']} | `{m['dir']}` | {m['rows'].get('train', {}).get('used', '')} | "
              f"`{m['dataset_manifest_sha256'][:16]}…` |" for m in meta["members"]]
    lines += ["", f"Encoder {r['encoder'] or 'default'}, {r['epochs']} epoch(s), DAE rows per epoch {r['max_train']}, "
              f"seed {r['seed']}, device {r['device']}.", "", "## Use", "",
              "```", "entailgen score DIR --input rows.jsonl --documents --output scores",
              "entailgen evaluate DIR --benchmark summac FILE...",
              "python -c 'from entailgen.training import Detector; "
              "print(Detector(\"DIR\").score_documents([(document, summary)]))'", "```", "", "## Stages", ""]
    lines += [f"{i}. {s['name']}: `{' '.join(s['command'])}`" for i, s in enumerate(r["stages"], 1)]
    written(os.path.join(folder, "README.md"), "\n".join(lines) + "\n")


def _detector(args) -> int:
    inputs = expand_inputs(args.input)
    options = DetectorOptions(encoder=args.encoder, device=args.device, epochs=args.epochs, max_train=args.max_train,
                              claims_per_document=args.claims_per_document, sentences=args.sentences,
                              conv=args.conv, conv_rows=args.conv_rows, seed=args.seed,
                              exclude_documents=tuple(args.exclude_documents or ()))
    try:
        options.check()
        for path in [*inputs, *options.exclude_documents]:
            if not os.path.isfile(path):
                raise ValueError(f"no such file: {path}")
        from entailgen.training.fitting.models import pick_device

        pick_device(options.device)  # no GPU for --device cuda: one line now, not after the datasets are built
        if options.exclude_documents:
            from entailgen.training.benchmarks.held_out import held_out

            held_out(options.exclude_documents)  # a bad benchmark file: one line now, not after reading the inputs
        check_output(args.output, DETECTOR, inputs, args.overwrite)
        say = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
        meta = build_detector(inputs, args.output, options, overwrite=args.overwrite, quiet=args.quiet, say=say)
    except (OutputError, ValueError, RuntimeError) as e:  # RuntimeError: torch's word on an unknown --device
        raise UsageError(str(e))
    if not args.quiet:
        rows = ", ".join(f"{m['name']} {m['rows'].get('train', {}).get('used')} rows" for m in meta["members"])
        print(f"detector: {meta['documents']['kept']} documents ({meta['excluded_documents']['count']} left out), "
              f"members trained on {rows}", file=sys.stderr)
    print(args.output)
    return 0


def register(commands) -> None:
    """Add `detector` to the CLI."""
    d = commands.add_parser("detector", help="build entailgen's best detector (claims + DAE members) from documents")
    d.add_argument("--input", action="append", required=True, metavar="PATH",
                   help="documents in a claims-family layout (repeatable; globs ok)")
    d.add_argument("--output", required=True, metavar="DIR", help="the detector dir")
    d.add_argument("--encoder", help="the encoder to train (entailgen train --encoder; default: its default)")
    d.add_argument("--device", default="cpu", help="cpu, cuda or auto, for training")
    d.add_argument("--epochs", type=int, default=1)
    d.add_argument("--max-train", type=int, default=DetectorOptions.max_train, metavar="N",
                   help="DAE arc model rows per epoch (the claims member takes every claims row)")
    d.add_argument("--claims-per-document", type=int, default=DetectorOptions.claims_per_document, metavar="N")
    d.add_argument("--sentences", type=int, default=DetectorOptions.sentences, metavar="N",
                   help="document sentences for paraphrase -> dae")
    d.add_argument("--conv", action="store_true", help="also fit a SummaC-Conv head on the claims member")
    d.add_argument("--conv-rows", type=int, default=DetectorOptions.conv_rows, metavar="N")
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--exclude-documents", nargs="+", metavar="FILE",
                   help="benchmark files (any layout evaluate --benchmark reads): their test-cut articles stay out")
    d.add_argument("--overwrite", action="store_true", help="replace a detector dir an earlier build wrote")
    d.add_argument("--quiet", action="store_true", help="no progress or summary, only the detector dir")
    d.set_defaults(handler=_detector)
