"""The model card (README.md of a model dir): what was trained on what, with the metrics of every evaluation."""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
from typing import Sequence

EVAL_DIR = "eval"
KEY_IN_NAME = 96  # the most characters of files and options a report's name holds (a file name may hold 255)


def cell(value) -> str:
    """A metric as shown: '-' where there is none (no such arcs, no baseline), never 'None'."""
    return "-" if value is None else str(value)


def never_predicted(classes: dict) -> list[str]:
    """The labels dev holds that the kept model never predicts there: its dev accuracy is the other labels' alone."""
    return [name for name, c in classes.items() if c["gold"] and not c["predicted"]]


def dev_classes_line(trained: dict) -> list[str]:
    """The card's line on dev predictions by label, the never-predicted ones named; none for a train.json without
    them (an older entailgen's, or no dev split)."""
    classes = trained.get("dev_classes") or {}
    if not any(c["gold"] for c in classes.values()):
        return []
    never = never_predicted(classes)
    return ["Dev examples by label, gold / predicted by the kept model: "
            + ", ".join(f"{name} {c['gold']} / {c['predicted']}" for name, c in classes.items()) + "."
            + (f" **Never predicted on dev: {', '.join(never)}** (the dev accuracy is the other labels' alone)."
               if never else ""), ""]


def metrics_table(result: dict) -> str:
    """The headline rows of one evaluation as a markdown table: model next to its baselines."""
    rows = ["| set | n | model | majority | lexical match / hypothesis-only | F1 (not entailed) |",
            "|---|---|---|---|---|---|"]
    groups = [("all", result["overall"])] + ([("§4 kinds (Table 2)", result["table_2"])] if "table_2" in result else [])
    groups += sorted(result.get("per_kind", {}).items()) + sorted(result.get("per_phenomenon", {}).items())
    for name, m in groups:
        rows.append(f"| {name} | {m['n']} | {cell(m['accuracy'])} | {cell(m['majority_accuracy'])} | "
                    f"{cell(m.get('lexical_match_accuracy', m.get('hypothesis_only_accuracy')))} | "
                    f"{cell(m['f1']) if 'f1' in m else ''} |")
    return "\n".join(rows)


def datasets_table(trained: dict) -> list[str]:
    """Each dataset a model was trained on: where, what, its manifest sha256, the mix weight and the rows an epoch
    drew from it; and the claims view where claims rows were made into pairs (none for a single dataset of old)."""
    used = trained.get("datasets")
    if not used or (len(used) == 1 and used[0]["record_type"] != "ClaimExample" and trained["options"].get("mix") in
                    (None, [])):
        return []
    rows = ["", "| dataset | pipeline | manifest sha256 | weight | rows in split | rows used per epoch | pairs used |",
            "|---|---|---|---|---|---|---|"]
    rows += [f"| `{u['path']}` | {u['pipeline']} | `{u['manifest_sha256'][:16]}…` | {cell(u['weight'])} | "
             f"{u['split_rows']} | {u['rows_used']} | {u['counts'].get('used', 0)} |" for u in used]
    if any(u["record_type"] == "ClaimExample" for u in used) and trained["task"] != "dae":
        rows += ["", f"Claims rows as pairs in the `{trained['options']['claims_view']}` view (entailgen.transforms.views)"
                 + "".join(f"; `{u['path']}`: {u.get('negatives', 0)} sampled not-entailed blocks, "
                           f"{u.get('contradicted', 0)} blocks a swap contradicts"
                           for u in used if u["record_type"] == "ClaimExample") + "."]
    return rows


def titled(title: str, model: dict) -> str:
    """A benchmark section's heading: its title, then the score mode in brackets where it is not plain e."""
    mode = ", ".join(mode_words(model))
    return title + (f" ({mode})" if mode else "")


def mode_words(model: dict) -> list[str]:
    """The score mode an evaluation ran in, in words, where it is not plain e (training.scoring.score_modes)."""
    mode = model.get("score_mode") or {}
    if mode.get("score", "e") == "e" and not mode.get("mc_dropout"):
        return []
    return [f"score {mode['score']}"] + ([f"MC dropout {mode['mc_dropout']} passes (seed {mode.get('seed', 0)})"]
                                         if mode.get("mc_dropout") else [])


def files_line(model: dict) -> list[str]:
    """The files a benchmark section scored, as given (two folders' q2.csv told apart): none for a report of old."""
    files = model.get("files") or []
    return [f"Scored on {', '.join(f'`{os.fspath(f)}`' for f in files)}.", ""] if files else []


def benchmark_section(report: dict) -> list[str]:
    """A human-labelled benchmark's section, as its evaluator wrote it into the report (each benchmark module's
    card_section); a report of an older entailgen, which kept none, is named with the command that writes it again."""
    if report.get("card_section"):
        return list(report["card_section"])
    return [f"## The {report['benchmark']} benchmark", "", *files_line(report.get("model", {})),
            "A report of an older entailgen: `entailgen evaluate MODEL_DIR --benchmark "
            f"{report['benchmark']} FILE...` writes its table here again.", ""]


def write_card(model_dir: str) -> str:
    """(Re)write MODEL_DIR/README.md from train.json and eval/*.json."""
    with open(os.path.join(model_dir, "train.json"), encoding="utf-8") as f:
        trained = json.load(f)
    o = trained["options"]
    task = "DAE arc model (Goyal & Durrett 2020 §3)" if trained["task"] == "dae" else "sentence-pair classifier"
    lines = [f"# entailgen {trained['task']} model", "", f"A {task} fine-tuned from `{o['encoder']}` on "
             + (f"`{trained['dataset']}` ({trained['dataset_pipeline']} dataset, manifest sha256 "
                f"`{trained['dataset_manifest_sha256'][:16]}…`)." if isinstance(trained["dataset"], str) else
                f"{len(trained['dataset'])} datasets:"), *datasets_table(trained),
             "", f"Options: epochs {o['epochs']}, batch {o['batch_size']}, lr {o['lr']}, max length {o['max_length']}, "
             f"max arcs {o['max_arcs']}, seed {o['seed']}, device {trained['device']}; "
             f"best epoch {trained['best_epoch']} "
             f"by dev accuracy {trained['dev_accuracy']}"
             + (f"; {trained['steps']} steps in {trained['train_s']} s ({trained['examples_per_s']} examples/s)"
                if "train_s" in trained else "") + ".", "",  # train.json of an older entailgen has no timing
             "Examples read and left out (never silently): "
             + "; ".join(f"{split}: " + ", ".join(f"{k} {v}" for k, v in c.items())
                         for split, c in trained["counts"].items()),
             "", *dev_classes_line(trained)]
    for path in sorted(glob.glob(os.path.join(model_dir, EVAL_DIR, "*.json"))):
        with open(path, encoding="utf-8") as f:
            result = json.load(f)
        if "benchmark" in result:  # eval/benchmark-<name>.json, written by `evaluate --benchmark`
            lines += benchmark_section(result)
            continue
        lines += [f"## Evaluation on {result['dataset_name']} ({result['split']} split)", "", metrics_table(result), ""]
        if result.get("precision"):  # evaluations older than --precision name none (they were fp32)
            lines += [f"Scored in {result['precision']} (`--precision`).", ""]
        if "sentence" in result:
            s = result["sentence"]
            lines += [f"Sentence level ({s['definition']}): accuracy {cell(s['accuracy'])} on {s['n']} hypotheses, "
                      f"majority {cell(s['majority_accuracy'])}.", ""]
    lines += ["Use it with `entailgen.training.DaeScorer(MODEL_DIR)` (dae) or `entailgen evaluate MODEL_DIR DATASET`.",
              ""]
    path = os.path.join(model_dir, "README.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return path


def benchmark_report_name(benchmark: str, files: Sequence[str], *how: str) -> str:
    """eval/benchmark-<name>.<file stems><how>.json (each `how` part with its leading '-', '' for a default): named by
    the files it scored and how, so an evaluation of other files, or made another way, is kept beside an earlier one."""
    key = "+".join(re.sub(r"[^\w.-]", "_", os.path.splitext(os.path.basename(os.fspath(f).rstrip("/")))[0])
                   for f in files) + "".join(how)
    if len(key) > KEY_IN_NAME:  # a long list of files or members: its head, then the whole key's digest
        key = f"{key[:KEY_IN_NAME - 9]}-{hashlib.sha256(key.encode()).hexdigest()[:8]}"
    return f"benchmark-{benchmark}.{key}.json"


def kept_report_name(model_dir: str, benchmark: str, files: Sequence[str], *how: str) -> str:
    """benchmark_report_name, or where MODEL_DIR/eval holds that name's report of other files (the same names in
    other folders) that name with '-at-' and the digest of these files' absolute paths: it is never replaced."""
    name = benchmark_report_name(benchmark, files, *how)
    paths = [os.path.abspath(f) for f in files]
    try:
        with open(os.path.join(model_dir, EVAL_DIR, name), encoding="utf-8") as f:
            earlier = [os.path.abspath(p) for p in json.load(f)["model"]["files"]]
    except FileNotFoundError:  # the name is free
        return name
    except (OSError, ValueError, KeyError, TypeError):  # a file it cannot read as a report: kept, as another's
        earlier = None
    if earlier == paths:  # the same files scored again: their report is replaced
        return name
    digest = hashlib.sha256("\0".join(paths).encode()).hexdigest()[:8]
    return benchmark_report_name(benchmark, files, f"-at-{digest}", *how)


def save_evaluation(model_dir: str, name: str, result: dict) -> str:
    """MODEL_DIR/eval/<name>, written atomically (nan refused), and the model card rewritten; returns its path."""
    path = os.path.join(model_dir, EVAL_DIR, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".partial", "w", encoding="utf-8") as f:  # a model dir is local (checkpoint.copy_to_local)
        f.write(json.dumps(result, indent=2, ensure_ascii=False, allow_nan=False) + "\n")  # keys in the result's order
    os.replace(path + ".partial", path)
    if os.path.isfile(os.path.join(model_dir, "train.json")):
        write_card(model_dir)
    return path
