"""Draw a seeded sample of an arc dataset's rows per rule, for a person to read and judge (is the label right, is the
sentence fluent): premise, hypothesis, the words the rule changed and every arc's label, compactly.

Run: python bench/audit_rows.py DATASET [DATASET ...] [--n 50] [--seed 0] [--groups G,G,...] [--only G,G,...]
A row's group is its `kind:variant` (the variant before any `+rewrite` an error rule's sentence carried); it joins
the longest of --groups that is a prefix of it (default: each document-arcs rule, entity_role and each rewording kind
apart). The draw is the n rows of lowest sha256(seed, row id) in each group: the same rows on any machine, and a
row's place does not move when other rows are added. Several datasets (a main run and runs made to reach n rows of a
rare kind) are pooled, a row made twice counted once. A group with fewer than n rows prints all it has and says so.
The shards are read with pyarrow alone (no Beam, no parser). Changed words are a word diff of the hypothesis against
the premise sentence closest to it ("[old -> new]"); evidence removal's sentence is not in its premise, so there
the diff shows what no premise sentence says.
"""
from __future__ import annotations

import argparse
import difflib
import glob
import hashlib
import os
import re
import sys
from collections import Counter, defaultdict

import pyarrow.parquet as pq

from host import describe  # bench/host.py, beside this script

COLUMNS = ["id", "premise", "hypothesis", "arcs", "kind", "generator", "split"]
GROUPS = ("evidence_removal", "recombination", "recombination:entity_role", "restatement", "extrinsic_attachment",
          "rewording:synonym", "rewording:hypernym", "rewording:genitive", "rewording:descriptor", "rewording:number",
          "rewording:date", "rewording:reporting_verb")
MARK = {1: "1", 0: "0", None: "?"}


def read_rows(datasets: list[str]) -> list[dict]:
    """Every row of the datasets' split shards (dead letters left out), a row made in two datasets kept once."""
    rows = {}
    for dataset in datasets:
        shards = sorted(p for p in glob.glob(os.path.join(dataset, "*", "*.parquet"))
                        if os.path.basename(os.path.dirname(p)) != "dead_letters")
        if not shards:
            raise SystemExit(f"audit_rows: no parquet shards under {dataset}/<split>/")
        for shard in shards:
            for row in pq.read_table(shard, columns=COLUMNS).to_pylist():
                rows.setdefault(row["id"], row)
    return list(rows.values())


def group_of(row: dict, groups: tuple[str, ...]) -> str:
    """The longest group that is a prefix of the row's kind:variant (the kind itself when none is)."""
    variant = row["generator"].rsplit(":", 1)[-1].split("+")[0]
    key = f"{row['kind']}:{variant}"
    found = [g for g in groups if key == g or key.startswith(g + ":")]
    return max(found, key=len) if found else row["kind"]


def draw(rows: list[dict], n: int, seed: int) -> list[dict]:
    """The n rows of lowest seeded hash: deterministic, and independent of the order the shards were read in."""
    return sorted(rows, key=lambda r: hashlib.sha256(f"{seed}\0{r['id']}".encode()).hexdigest())[:n]


def words(text: str) -> list[str]:
    """Words and punctuation marks apart, so that a diff shows a changed word, not its comma."""
    return re.findall(r"\w+(?:[-'’.,]\w+)*|[^\w\s]", text)


def changes(premise: str, hypothesis: str) -> str:
    """The hypothesis's edits against the premise sentence closest to it: [old -> new], [+ added], [- removed]."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", premise) if s] or [premise]
    target = words(hypothesis)
    closest = max((words(s) for s in sentences), key=lambda s: difflib.SequenceMatcher(None, s, target).ratio())
    out = []
    for op, a, b, c, d in difflib.SequenceMatcher(None, closest, target, autojunk=False).get_opcodes():
        old, new = " ".join(closest[a:b]), " ".join(target[c:d])
        if op == "replace":
            out.append(f"[{old} -> {new}]")
        elif op == "insert":
            out.append(f"[+ {new}]")
        elif op == "delete":
            out.append(f"[- {old}]")
    return " ".join(out) if out else "(the hypothesis is a premise sentence)"


def hypothesis_mark(arcs: list[dict]) -> str:
    """0 when an arc is 0, 1 when every arc is 1, ? when the row rests on unlabelled arcs."""
    labels = [a["entailed"] for a in arcs]
    return "0" if 0 in labels else "1" if labels and all(x == 1 for x in labels) else "?"


def arc_line(arcs: list[dict]) -> str:
    """The arcs grouped by label, not-entailed first: the ones a reader checks."""
    by_label = defaultdict(list)
    for a in arcs:
        by_label[a["entailed"]].append(f"{a['rel']}({a['head_lemma']},{a['child_lemma']})")
    return " | ".join(f"{MARK[label]}: {' '.join(by_label[label])}" for label in (0, None, 1) if by_label[label])


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("datasets", nargs="+")
    args.add_argument("--n", type=int, default=50, help="rows drawn per group (default 50)")
    args.add_argument("--seed", type=int, default=0, help="mixed with each row id into the draw's hash (default 0)")
    args.add_argument("--groups", default=",".join(GROUPS), help="comma list of kind[:variant] groups")
    args.add_argument("--only", default="", help="print the rows of these groups only (the counts of all)")
    opts = args.parse_args()
    groups = tuple(g for g in opts.groups.split(",") if g)
    only = {g for g in opts.only.split(",") if g}
    rows = read_rows(opts.datasets)
    grouped = defaultdict(list)
    for row in rows:
        grouped[group_of(row, groups)].append(row)
    print(describe(f"{len(rows)} rows from {', '.join(opts.datasets)}; {opts.n} per group, seed {opts.seed}"))
    for group in sorted(grouped):
        picked = draw(grouped[group], opts.n, opts.seed)
        short = f" (fewer than {opts.n}: the group has no more)" if len(picked) < opts.n else ""
        variants = Counter(r["generator"].rsplit(":", 1)[-1] for r in picked)
        print(f"===== {group}: {len(picked)} of {len(grouped[group])} drawn{short}; "
              + ", ".join(f"{v} {c}" for v, c in sorted(variants.items())))
        if only and group not in only:
            continue
        for k, row in enumerate(picked, 1):
            print(f"--- {group} #{k} {row['generator']} {row['split']} {row['id'][:12]} "
                  f"hypothesis {hypothesis_mark(row['arcs'])}")
            print(f"P: {row['premise']}")
            print(f"H: {row['hypothesis']}")
            print(f"D: {changes(row['premise'], row['hypothesis'])}")
            print(f"A: {arc_line(row['arcs'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
