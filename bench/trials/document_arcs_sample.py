"""Print a seeded sample of a document-arcs dataset's rows per rule, every arc with its label, for a person to judge
(issue 64: at least 50 per rule). Usage: python -m entailgen.bench.trials.document_arcs_sample DATASET_DIR [N] [SEED]"""
from __future__ import annotations

import random
import sys

from entailgen.schemas.reader import read_dataset
from entailgen.transforms.document_arcs.labels import RULES, hypothesis_label

MARK = {1: "1", 0: "0", None: "?"}


def main(argv: list[str]) -> int:
    directory, n, seed = argv[0], int(argv[1]) if len(argv) > 1 else 50, int(argv[2]) if len(argv) > 2 else 0
    rows = sorted(read_dataset(directory, None, as_records=True), key=lambda r: r.id)
    for rule in RULES:
        of_rule = [r for r in rows if r.kind == rule]
        picked = random.Random(seed).sample(of_rule, min(n, len(of_rule)))
        print(f"===== {rule}: {len(picked)} of {len(of_rule)}")
        for k, row in enumerate(picked, 1):
            print(f"--- {rule} #{k} [{row.generator.rsplit(':', 1)[-1]}] hypothesis label "
                  f"{MARK[hypothesis_label(row)]}")
            print(f"P: {row.premise}")
            print(f"H: {row.hypothesis}")
            print("   " + "  ".join(f"{a.rel}({a.head_lemma},{a.child_lemma})={MARK[a.entailed]}" for a in row.arcs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
