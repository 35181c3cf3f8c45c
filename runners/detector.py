"""`entailgen detector --input DOCS... --output DIR`: entailgen's best detector built from a user's own documents.

The recipe bench/benchmark.py's val cuts chose (docs/benchmarks/summac.md): the documents -> `run claims`; their
sentences -> `run paraphrase` -> `run dae` (with the augmentations); a model on the claims source view and a DAE arc
model -> `train`; optionally a SummaC-Conv head on the claims member -> `train-conv`. `--members dae` builds the DAE
arc member alone, which a CPU can (the claims member trains on every claims row). Each stage is the CLI command a user
could run by hand (detector.json lists them), called as that command's function with the same options, built inside
the detector's own build folder: a killed build run again with the same recipe keeps the stages that finished and
rebuilds the one that was cut off.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import sys
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Callable, Optional, Sequence

from entailgen.dataset.manifest import fingerprint
from entailgen.dataset.output import DETECTOR, MARKER, OutputError, check_output
from entailgen.dataset.publish import publish
from entailgen.dataset.split import SplitConfig, assign_split
from entailgen.pipelines import get_family
from entailgen.runners.inputs import check_inputs
from entailgen.runners.run_command import expand_inputs, run_family
from entailgen.runners.train import train_model
from entailgen.runners.train_conv import train_conv
from entailgen.runners.usage import COMMAND_HELP, UsageError, add_quiet, exit_code
from entailgen.schemas.arrow import json_line
from entailgen.schemas.files import DETECTOR_JSON
from entailgen.schemas.records import DeadLetter
from entailgen.schemas.sources import Document
from entailgen.transforms.claims.blocks import document_text, paragraphs
from entailgen.transforms.claims.claims import document_id
from entailgen.transforms.io.read import read_file

DAE_AUGMENT = "word_swap,synonym,hallucination,overlap"  # the dae stage's augmentations (bench, Makefile's sample)
CLAIMS_MEMBER, DAE_MEMBER, CONV = "members/claims-source", "members/dae-arcs", "members/claims-source.conv"
MEMBERS = ("claims", "dae")  # --members: the claims source view's model, the DAE arc model
MEMBER_RECORDS = {"claims": {"name": "claims, source view", "dir": CLAIMS_MEMBER, "dataset": "datasets/claims"},
                  "dae": {"name": "dae arc model", "dir": DAE_MEMBER, "dataset": "datasets/dae"}}  # in detector.json
DOCUMENTS = "documents"  # the claims family's input format (pipelines.claims): its reader, `run claims`'s
INPUTS, DEAD_LETTERS, COUNTS, SENTENCES = "inputs", "dead_letters.jsonl", "documents.json", "sentences.txt"
EXCLUDED = ("SummaC benchmark files (the SummaC repository's data/<set>.json, or JSON Lines of document, claim, label, "
            "cut) and spans articles (JSON Lines of bbcid, document)")  # what --exclude-documents reads
SPLITS = "train 90 % / dev 5 % / test 5 %"  # `run claims`'s default --splits, the claims stage's (dataset.split)


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
    members: tuple[str, ...] = MEMBERS
    exclude_documents: tuple[str, ...] = ()  # benchmark files whose test-cut documents stay out of training text

    def check(self) -> None:
        """Refuse meaningless values with one line."""
        for name in ("epochs", "max_train", "claims_per_document", "sentences", "conv_rows"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if not self.members or set(self.members) - set(MEMBERS) or len(set(self.members)) < len(self.members):
            raise ValueError(f"--members: one or both of {', '.join(MEMBERS)}, each once; got "
                             f"{' '.join(self.members) or 'none'}")
        if self.conv and "claims" not in self.members:
            raise ValueError("--conv fits a head on the claims member: --members must name claims")


@dataclass(frozen=True)
class ReadDocuments:
    """The detector's documents as `run claims` reads them: the kept units' claims-family JSON lines by input file
    name, the reader's dead letters (naming the user's file and line) and the counts said to the user."""

    lines: dict
    dead_letters: list
    counts: dict


def read_inputs(inputs: Sequence[str], exclude: Sequence[str], seed: int = 0) -> ReadDocuments:
    """The input documents through `run claims`'s reader (transforms.io.read_file: a byte-order mark, UTF-16, gzip),
    less each that is the same article as a document an --exclude-documents file holds out (a test-cut one, or any
    spans article: training.benchmarks.held_out) and each repeated unit (a document under an id given before, or a
    copy of one read before), each counted; also how many kept documents fall in the train split (the claims dataset
    splits by document)."""
    from entailgen.training.benchmarks.held_out import held_out  # the benchmark reader: only when files are given

    held = held_out(exclude) if exclude else None
    counts = {"read": 0, "dead_letters": 0, "repeated": 0, "excluded": 0, "kept": 0, "train": 0}
    excluded_ids, repeated_ids, dead, lines = [], [], [], {}
    seen_ids, seen = set(), set()
    splits = SplitConfig(seed=seed)
    for path in inputs:
        name = os.path.basename(path.rstrip("/"))
        for unit in read_file(path, DOCUMENTS):
            counts["read"] += 1
            if isinstance(unit, DeadLetter):
                counts["dead_letters"] += 1
                dead.append(json_line(unit) + "\n")
                continue
            unit_id = unit.dataset_id or unit.source_id
            fields = unit_fields(unit)
            content = json.dumps(fields, sort_keys=True)
            if content in seen or (isinstance(unit, Document) and unit_id in seen_ids):
                counts["repeated"] += 1
                repeated_ids.append(unit_id)
                continue
            seen.add(content)
            if isinstance(unit, Document):  # a labelled claim shares its document's id with the others (FactCC)
                seen_ids.add(unit_id)
            text = unit.text if isinstance(unit, Document) else unit.document
            if held is not None and isinstance(unit, Document) and text in held:
                counts["excluded"] += 1
                excluded_ids.append(unit_id)
                continue
            counts["kept"] += 1
            counts["train"] += assign_split(document_id(document_text(paragraphs(text))), splits) == "train"
            lines.setdefault(name, []).append(json.dumps({"id": unit_id, **fields}, ensure_ascii=False) + "\n")
    return ReadDocuments(lines, dead, {**counts, "excluded_ids": excluded_ids, "repeated_ids": repeated_ids,
                                       "files": sorted(lines)})


def write_inputs(folder: str, documents: ReadDocuments) -> None:
    """The claims stage's inputs: each input file's kept units under the file's own name in folder/inputs (so the
    claims dataset's dead letters and refusals name the user's file; compressed as its name says), the reader's dead
    letters in folder/dead_letters.jsonl, and the counts (documents.json) last: a killed build reads them again."""
    from apache_beam.io.filesystems import FileSystems

    shutil.rmtree(os.path.join(folder, INPUTS), ignore_errors=True)
    os.makedirs(os.path.join(folder, INPUTS))
    for name, lines in documents.lines.items():
        with FileSystems.create(os.path.join(folder, INPUTS, name)) as f:  # .gz written gzip, as it is read
            f.write("".join(lines).encode("utf-8"))
    if documents.dead_letters:
        written(os.path.join(folder, DEAD_LETTERS), "".join(documents.dead_letters))
    written(os.path.join(folder, COUNTS), json.dumps(documents.counts))


def written(path: str, text: str) -> None:
    """text at path, whole or not at all (a killed build must not resume from half a file)."""
    with open(path + ".partial", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".partial", path)


def unit_fields(unit) -> dict:
    """One read unit as a claims-family JSON object, less its id: a document (with its summary) or a labelled claim."""
    if isinstance(unit, Document):
        return {"text": unit.text, **({"summary": unit.summary} if unit.summary is not None else {})}
    return {"text": unit.document, "claim": unit.claim, "label": unit.label}


def document_sentences(inputs: Sequence[str], n: int, path: str, seed: int = 0) -> int:
    """n distinct sentences of 8-40 words from the kept documents (seeded): the paraphrase -> dae stages' input."""
    from apache_beam.io.filesystems import FileSystems

    sentences = set()
    for name in inputs:
        with FileSystems.open(name) as f:
            for line in f:
                text = json.loads(line)["text"]
                for s in re.split(r"(?<=[.!?])\s+", text):
                    if 8 <= len(s.split()) <= 40:
                        sentences.add(" ".join(s.split()))
    picked = sorted(sentences)
    random.Random(seed).shuffle(picked)
    written(path, "".join(s + "\n" for s in picked[:n]))
    return min(n, len(picked))


@dataclass(frozen=True)
class Stage:
    """One stage of a build: the entailgen command it is, as detector.json records it (a user could run it by hand),
    and that command's function with the same options, which the build calls."""

    name: str
    target: str
    command: tuple[str, ...]  # the words after `entailgen`, --output target last
    call: Callable[[], int]


def run_stage(stage: Stage, quiet: bool) -> None:
    """One stage: its command's function called in this process, its stdout (the stage's summary and output path)
    said on stderr (none when quiet); its failure is the build's (the stage's own message is above), Ctrl-C stops
    the build with the finished stages kept."""
    with contextlib.redirect_stdout(open(os.devnull, "w") if quiet else sys.stderr) as out:
        try:
            rc = exit_code(stage.call, stage=True)
        finally:
            if out is not sys.stderr:
                out.close()
    if rc != 0:
        raise UsageError(f"detector: the stage `entailgen {' '.join(stage.command[:2])}` failed (its message is above)")


def recipe_of(inputs: Sequence[str], options: DetectorOptions) -> dict:
    """What the build is made from: the options and every input's and excluded file's sha256 (a resumed build must
    be the same recipe)."""
    recipe = {"layout": 2,  # 2: inputs read as `run claims` reads them, into inputs/ (an older build starts over)
              "options": asdict(options), "inputs": [fingerprint(p)["sha256"] for p in inputs],
              "exclude_documents": [fingerprint(p)["sha256"] for p in options.exclude_documents]}
    return json.loads(json.dumps(recipe))  # as the marker reads back (a tuple as a list)


def stages(folder: str, options: DetectorOptions, quiet: bool, files: Sequence[str]) -> list[Stage]:
    """Each stage of the members asked for, in order; files: the claims stage's inputs (folder/inputs/<name>)."""
    from entailgen.pipelines.claims import ClaimsOptions
    from entailgen.pipelines.dae import AUGMENTATIONS, DaeOptions
    from entailgen.pipelines.paraphrase import ParaphraseOptions
    from entailgen.training.fitting.options import TrainOptions

    p = lambda *parts: os.path.join(folder, *parts)  # noqa: E731
    q = ["--quiet"] if quiet else []
    seed = ["--seed", str(options.seed)]
    train = ["--epochs", str(options.epochs), "--device", options.device, *seed, *q,
             *(["--encoder", options.encoder] if options.encoder else [])]
    trained = TrainOptions(epochs=options.epochs, device=options.device, seed=options.seed, progress=not quiet,
                           **({"encoder": options.encoder} if options.encoder else {}))
    claims, paraphrase, dae = p("datasets", "claims"), p("datasets", "paraphrase"), p("datasets", "dae")
    inputs, paranmt = [p(INPUTS, name) for name in files], p("datasets", "paraphrase", "paranmt.tsv")
    augment = tuple(a for a in AUGMENTATIONS if a in DAE_AUGMENT.split(","))
    out = [("claims", "claims dataset", claims,
            ["run", "claims", *(a for path in inputs for a in ("--input", path)), "--claims-per-document",
             str(options.claims_per_document), *seed, *q],
            partial(run_family, "claims", ClaimsOptions(claims_per_document=options.claims_per_document), inputs,
                    claims, seed=options.seed, quiet=quiet)),
           ("dae", "paraphrase dataset", paraphrase,
            ["run", "paraphrase", "--input", p(SENTENCES), "--export", "paranmt", *seed, *q],
            partial(run_family, "paraphrase", ParaphraseOptions(export_paranmt=True), [p(SENTENCES)], paraphrase,
                    seed=options.seed, quiet=quiet)),
           ("dae", "dae dataset", dae, ["run", "dae", "--input", paranmt, "--augment", DAE_AUGMENT, *seed, *q],
            partial(run_family, "dae", DaeOptions(augment=augment), [paranmt], dae, seed=options.seed, quiet=quiet)),
           ("claims", "claims member", p(CLAIMS_MEMBER), ["train", claims, "--claims-view", "source", *train],
            partial(train_model, [claims], p(CLAIMS_MEMBER), replace(trained, claims_view="source"), quiet=quiet)),
           ("dae", "dae member", p(DAE_MEMBER), ["train", dae, "--max-examples", str(options.max_train), *train],
            partial(train_model, [dae], p(DAE_MEMBER), replace(trained, max_examples=options.max_train),
                    quiet=quiet))]
    if options.conv:
        out.append(("claims", "Conv head", p(CONV), ["train-conv", p(CLAIMS_MEMBER), claims, "--max-rows",
                                                     str(options.conv_rows), "--device", options.device, *seed, *q],
                    partial(train_conv, p(CLAIMS_MEMBER), claims, p(CONV), max_rows=options.conv_rows,
                            seed=options.seed, device=options.device, quiet=quiet)))
    return [Stage(name, target, (*words, "--output", target), call) for member, name, target, words, call in out
            if member in options.members]


def finished(target: str) -> bool:
    """Whether a stage's output is complete (published: its folder exists only once swapped in)."""
    return os.path.isdir(target)


def build_detector(inputs: Sequence[str], output: str, options: DetectorOptions = DetectorOptions(), *,
                   overwrite: bool = False, quiet: bool = False, say: Callable[[str], None] = print) -> dict:
    """Build the detector dir at output (in its build folder, swapped in once complete); returns detector.json."""
    from entailgen.training.scoring.detector import JOIN
    from entailgen.training.scoring.summac import model_checksums

    options.check()
    documents = read_inputs(inputs, options.exclude_documents, options.seed)  # refused now, not in a stage
    counts = documents.counts
    say(documents_line(counts, output))
    if not counts["kept"]:
        raise UsageError("detector: no document is left to build from")
    if not counts["train"] and "claims" in options.members:
        raise UsageError(f"detector: none of the {counts['kept']} documents kept falls in the train split (the claims "
                         f"are split {SPLITS} by document, a hash of its text); at least one must: give more "
                         "documents (a few hundred make a useful detector)")
    recipe = recipe_of(inputs, options)
    with publish(output, DETECTOR, inputs=list(inputs), overwrite=overwrite, recipe=recipe) as folder:
        sentences = os.path.join(folder, SENTENCES)
        if not os.path.isfile(os.path.join(folder, COUNTS)):
            write_inputs(folder, documents)
        plan = stages(folder, options, quiet, counts["files"])
        for i, stage in enumerate(plan, 1):
            if stage.name == "paraphrase dataset" and not os.path.isfile(sentences):
                n = document_sentences([os.path.join(folder, INPUTS, f) for f in counts["files"]], options.sentences,
                                       sentences, options.seed)
                say(f"detector: {n} sentences of 8-40 words for paraphrase -> dae")
            if finished(stage.target):
                say(f"detector: stage {i}/{len(plan)} {stage.name}: done already")
                continue
            say(f"detector: stage {i}/{len(plan)} {stage.name} ...")
            run_stage(stage, quiet)
        relocate(folder, output, [stage.target for stage in plan])
        members = [dict(MEMBER_RECORDS[key]) for key in MEMBERS if key in options.members]
        for m in members:
            with open(os.path.join(folder, m["dataset"], "manifest.json"), "rb") as f:
                m["dataset_manifest_sha256"] = hashlib.sha256(f.read()).hexdigest()
            with open(os.path.join(folder, m["dir"], "train.json"), encoding="utf-8") as f:
                m["rows"] = json.load(f)["counts"]
            m["checksums"] = model_checksums(os.path.join(folder, m["dir"]))
        commands = [{"name": stage.name, "command": ["entailgen", *(a.replace(folder, "DIR") for a in stage.command)]}
                    for stage in plan]
        meta = {"recipe": {**asdict(options), "join": JOIN, "stages": commands},
                "members": members, **({"conv": CONV} if options.conv else {}),
                "inputs": [fingerprint(p) for p in inputs],
                "documents": {k: counts[k] for k in ("read", "dead_letters", "repeated", "excluded", "kept")},
                "repeated_ids": counts["repeated_ids"],
                "excluded_documents": {"count": counts["excluded"], "ids": counts["excluded_ids"],
                                       "files": [fingerprint(p) for p in options.exclude_documents]}}
        write_card(folder, meta)
        meta["files"] = sorted({*own_files(folder), DETECTOR_JSON})  # what --overwrite may replace (dataset.output)
        written(os.path.join(folder, DETECTOR_JSON), json.dumps(meta, indent=1, ensure_ascii=False) + "\n")  # last
    return meta


def documents_line(counts: dict, output: str) -> str:
    """What was read, in one line: each count of units not kept, with where to see them."""
    parts = [f"detector: {counts['read']} documents read"]
    if counts["dead_letters"]:
        parts.append(f"{counts['dead_letters']} dead letters (see {os.path.join(output, DEAD_LETTERS)} once built)")
    if counts["repeated"]:
        parts.append(f"{counts['repeated']} repeated, kept once (an id given before, or a copy of a document; first: "
                     f"{counts['repeated_ids'][0]})")
    parts.append(f"{counts['excluded']} left out (an article --exclude-documents holds out)")
    return ", ".join(parts) + f", {counts['kept']} kept"


def relocate(folder: str, output: str, targets: Sequence[str]) -> None:
    """The stages' records (a dataset's run.json, a member's train.json and card, a Conv head's conv.json) name the
    build folder, which the swap removes: made to name the detector dir instead."""
    from entailgen.training.fitting.model_card import write_card as model_card

    final = os.path.abspath(output.rstrip("/"))  # as the build folder is named (FileSystems.split)
    moved = lambda v: final + v[len(folder):] if v == folder or v.startswith(folder + os.sep) else v  # noqa: E731
    for target in targets:
        for name in ("run.json", "train.json", "conv.json"):
            path = os.path.join(target, name)
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    record = json.load(f)
                written(path, json.dumps(_mapped(record, moved), indent=2) + "\n")
        if os.path.isfile(os.path.join(target, "train.json")):
            model_card(target)


def _mapped(value, fn):
    """A JSON value with fn applied to every string in it."""
    if isinstance(value, dict):
        return {k: _mapped(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped(v, fn) for v in value]
    return fn(value) if isinstance(value, str) else value


def own_files(folder: str) -> list[str]:
    """Every file under folder (relative, '/'-separated) but the build marker."""
    return [os.path.relpath(os.path.join(root, f), folder).replace(os.sep, "/")
            for root, _, files in os.walk(folder) for f in files if f != MARKER]


def write_card(folder: str, meta: dict) -> None:
    """README.md: what the detector is, how it was built and how to use it."""
    r = meta["recipe"]
    lines = ["# entailgen detector", "",
             f"Built by `entailgen detector` from {meta['documents']['kept']} documents "
             f"({meta['documents']['excluded']} left out as articles --exclude-documents holds out, "
             f"{meta['documents']['repeated']} repeated ones kept once, {meta['documents']['dead_letters']} dead "
             "letters in `dead_letters.jsonl`).", "",
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
                              conv=args.conv, conv_rows=args.conv_rows, seed=args.seed, members=tuple(args.members),
                              exclude_documents=tuple(args.exclude_documents or ()))
    try:
        options.check()
        for path in [*inputs, *options.exclude_documents]:
            if os.path.isdir(path) and path in options.exclude_documents:
                raise ValueError(f"--exclude-documents {path} is a folder; give its files (e.g. "
                                 f"{os.path.join(path, '*.json')}): it reads {EXCLUDED}")
            if not os.path.isfile(path):
                raise ValueError(f"no such file: {path}")
        check_inputs(get_family("claims"), None, inputs, DOCUMENTS)  # an empty file, a misnamed .gz: as run claims
        from entailgen.training.fitting.models import pick_device

        pick_device(options.device)  # no GPU for --device cuda: one line now, not after the datasets are built
        if options.exclude_documents:
            from entailgen.training.benchmarks.held_out import held_out

            try:
                held_out(options.exclude_documents)  # a bad benchmark file: one line now, not after reading the inputs
            except ValueError as e:
                raise ValueError(f"--exclude-documents reads {EXCLUDED}: {e}")
        check_output(args.output, DETECTOR, inputs, args.overwrite)
        check_encoder(options.encoder)  # last: it loads the encoder
        say = (lambda text: None) if args.quiet else (lambda text: print(text, file=sys.stderr, flush=True))
        meta = build_detector(inputs, args.output, options, overwrite=args.overwrite, quiet=args.quiet, say=say)
    except (OutputError, ValueError) as e:
        raise UsageError(str(e))
    if not args.quiet:
        rows = ", ".join(f"{m['name']} {m['rows'].get('train', {}).get('used')} rows" for m in meta["members"])
        print(f"detector: {meta['documents']['kept']} documents ({meta['excluded_documents']['count']} left out), "
              f"members trained on {rows}", file=sys.stderr)
    print(args.output)
    return 0


def check_encoder(encoder: Optional[str]) -> None:
    """The encoder the members are trained from, loaded as `entailgen train` loads it (and its positions checked
    against train's --max-length): one line now (ModelDirError), not after three stages."""
    from transformers.utils import logging as hf_logging

    from entailgen.training.fitting.encoder import load_encoder
    from entailgen.training.fitting.trainer import TrainOptions, check_max_length

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # a check, not news: no "Loading weights" bar
    try:
        model, tokenizer = load_encoder(encoder or TrainOptions.encoder)
    finally:
        if shown:
            hf_logging.enable_progress_bar()
    try:
        check_max_length(TrainOptions.max_length, model, tokenizer)
    except ValueError as e:
        raise ValueError(f"--encoder {encoder}: {e} (the members train at `entailgen train`'s default)")


def register(commands) -> None:
    """Add `detector` to the CLI."""
    d = commands.add_parser("detector", help=COMMAND_HELP["detector"],
                            description="Build entailgen's best detector (claims + DAE members) from documents.")
    d.add_argument("--members", nargs="+", default=list(MEMBERS), metavar="MEMBER",
                   help="the members to build: claims, dae or both (default: both); dae alone is the DAE arc "
                        "model, whose arcs give words their own scores, and fits a CPU")
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
                   help="SummaC benchmark files (evaluate --benchmark summac's layouts): their test-cut articles "
                        "stay out; a spans --articles file: all its articles")
    d.add_argument("--overwrite", action="store_true", help="replace a detector dir an earlier build wrote")
    add_quiet(d, "the detector dir")
    d.set_defaults(handler=_detector)
