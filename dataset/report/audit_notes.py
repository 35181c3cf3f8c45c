"""How a card reads the audits' numbers (transforms.hypothesis_only, transforms.claims.claim_only) in words."""
from __future__ import annotations

AUDIT_EXPLANATION = (
    "How to read the audit. For each phenomenon, 'majority_accuracy' is the test accuracy of always answering the "
    "label most frequent in train, and 'hypothesis_only_accuracy' that of a bag-of-words naive Bayes classifier "
    "trained on the train hypotheses alone, never shown the premise (Poliak 2020, ch. 5). A recast gives each premise "
    "one entailed and one not-entailed hypothesis, so on a large test split the majority class scores about 50 "
    "(other sets, such as NLI pairs, need not be balanced). A hypothesis-only score "
    "well above the majority means the hypothesis words leak the label: in recast NER the not-entailed entity type is "
    "drawn from the corpus prior, so some types ('a person') are more often entailed than others; in recast "
    "factuality most annotated events happened, so 'happened' is more often entailed than 'did not happen'. A model "
    "can exploit such cues without doing inference, so compare your model with this baseline, not with 50. Recast "
    "sentiment pairs both hypotheses with the same premise and speaker, so the hypothesis carries no label "
    "information: with balanced reviews the hypothesis-only score is 50 and any gain above it must come from "
    "the premise. 'n_train' and 'n_test' give the pairs behind each number (on a few test pairs both scores are "
    "noise: see the findings below the table); 'splits' says whether the dataset's own "
    "train/test splits were used or, when one was empty, a split derived by hashing each premise (one premise never "
    "lands in both)."
)

CLAIMS_AUDIT_EXPLANATION = (
    "How to read the claims audit. A majority-class baseline and a claim-only (hypothesis-only) bag-of-words naive "
    "Bayes classifier are trained on the train claims of all transformations, never shown the document, and scored "
    "on the test claims of each transformation ('all': every test claim). Within one transformation every claim has "
    "the same label (sampled and back-translated sentences are CORRECT, swaps and negation INCORRECT), so the "
    "per-transformation score says how often the claim words alone give that label away: if negation claims score "
    "near 100, the inserted or removed 'not' predicts the label and a model can cheat without reading the document. "
    "Compare a trained model with 'all', not with 50. 'splits' says whether the dataset's own train/test splits were "
    "used or, when one was empty, a split derived by hashing each document id.")

MIN_TEST_PAIRS = 30  # below this, one pair moves an accuracy by more than 3 points: the numbers mean nothing yet
CLEAR_GAP = 5.0  # points of hypothesis-only accuracy over the majority class that count as a leak


def audit_findings(result: dict) -> list[str]:
    """One sentence per phenomenon saying what its numbers show, or that its test split is too small to show it."""
    findings = []
    for phenomenon, r in result.items():
        if not isinstance(r, dict) or r.get("n_test") is None:
            continue
        n_test, majority, alone = r["n_test"], r.get("majority_accuracy"), r.get("hypothesis_only_accuracy")
        if not n_test or majority is None or alone is None:
            missing = "test" if not n_test else "train"
            findings.append(f"{phenomenon}: no {missing} pairs, so neither baseline could be measured.")
        elif n_test < MIN_TEST_PAIRS:
            findings.append(f"{phenomenon}: only {n_test} test pair{'s' if n_test != 1 else ''}, too few for "
                            f"{alone} (hypothesis only) and {majority} (majority class) to mean anything: one pair "
                            f"moves them by {100 / n_test:.1f} points. Use more input before reading this audit.")
        elif alone - majority >= CLEAR_GAP:
            findings.append(f"{phenomenon}: the hypothesis alone scores {alone}, {alone - majority:.1f} points above "
                            f"the majority class ({majority}) on {n_test} test pairs: its words give part of the "
                            "label away.")
        else:
            findings.append(f"{phenomenon}: the hypothesis alone scores {alone} against {majority} for the majority "
                            f"class on {n_test} test pairs: no clear cue in the hypothesis words alone.")
    return findings
