"""The card's "Known limits": what each family's labels cannot promise, and the limits every dataset shares."""
from __future__ import annotations

from entailgen.dataset.report.card.facts import CardFacts, has_arcs

LIMITS = {
    "dae": (
        "Bottom-of-beam labels are noisy: an arc of a low-ranked output that is neither in the input's nor in the "
        "gold paraphrase's parse is labelled not entailed even when it is a fair rewording; arcs found only in the "
        "top-1 output are left unlabelled (null) for that reason. Treat 0 as 'probably not entailed'.",
        "Labels are per dependency arc; function relations (punct, det, case, aux, auxpass, dep, cop, mark) carry "
        "none, and parser errors become label errors.",
    ),
    "recast": (
        "Hypotheses come from a few templates (\"X is a Y\", \"The E happened\", \"N liked the I\"), so the template "
        "and words like 'not' give away the label without the premise: read the hypothesis-only audit first.",
        "Not-entailed NER hypotheses take a tag drawn from the phrase's prior tag distribution; for ambiguous "
        "phrases that tag can be true.",
    ),
    "claims": (
        "Block rows (--pairs blocks) keep the document-level label, which is noisy per block: the evidence for a "
        "CORRECT claim sits in one or two blocks, and the other blocks neither entail nor contradict it.",
        "Labels come from FactCC's rules, not from people: a swapped mention can be true by chance (a number repeated "
        "in the document), and noised copies are ungrammatical on purpose. Read the claim-only audit: where one "
        "transformation is guessable from the claim alone (negation's 'not'), a model can cheat.",
    ),
    "document-arcs": (
        "Hypotheses are made by four rules on a document's own sentences (evidence_removal, recombination, "
        "restatement, extrinsic_attachment: the kind column) and labelled arc by arc against a SummaC block of that "
        "document by DAE §4's rule generalised to it: 1 when the block's parse has the arc (head lemma, child lemma, "
        "relation), 0 where the rule makes it unsupported, null where the rule cannot be sure. Lemma keys cannot see "
        "a paraphrase (\"top picks\" against \"good picks\" is 0) nor that an arc the block has belongs to another "
        "event; the share of labels a person judged wrong, per rule, is on docs/families/document-arcs.md.",
        "A hypothesis's own label is not stored (label is null at arc level): read as a pair it is 0 when one arc is "
        "0, else 1 (transforms.views.sentence_label). Recombined and attached sentences can be "
        "ungrammatical ('in Sunday', 'a former book'): the words are the document's, the grammar not always.",
    ),
    "nli-dialogue": (
        "A dialogue phrase is prepended with the original label kept; a hedging phrase ('I think') can weaken what "
        "the hypothesis claims, so the kept label is an approximation.",
    ),
}
# Relation recast (distant supervision): said only on cards of datasets that recast relations.
RELATION_LIMITS = (
    "Relation pairs are labelled by distant supervision (Mintz et al. 2009; Goodrich et al. 2019 §3): an entailed "
    "pair only says the KB holds the triple and both entities occur in the sentence, not that the sentence states "
    "it. This is noisy: Goodrich et al. (Table 6) found many facts the KB marked false to be true by human judgement.",
    "KBs are incomplete: a not-entailed relation pair (kb_negative, no_relation in each row's provenance) is only a "
    "relation the KB does not hold, so some not-entailed labels are wrong.",
)
PARSER_LIMIT = ("Dependency parses come from a statistical parser (see Parser above); arcs and their labels inherit "
                "its errors.")
COMMON_LIMITS = (
    "Splits are assigned by a hash of the source context, so related examples stay together; they are not "
    "stratified by label.",
)
SAMPLE_LIMIT = ("Built from the embedded sample corpora: at most a few hundred lines each, for trying the pipeline. "
                "The numbers on this card say nothing about a real corpus.")


def section(facts: CardFacts) -> list[str]:
    """What the labels cannot promise: the family's limits, the parser's, the shared ones, and the inputs' own."""
    manifest, sample_digests, licences = facts.manifest, facts.sample_digests, facts.licences
    relation = "relation" in ((manifest.get("config") or {}).get("family") or {}).get("phenomena", ())
    parser = [PARSER_LIMIT] if has_arcs(manifest["record_type"]) else []
    limits = [*LIMITS.get(manifest["pipeline"], ()), *(RELATION_LIMITS if relation else ()), *parser, *COMMON_LIMITS]
    if any(i["sha256"] in sample_digests for i in manifest["inputs"]):
        limits.append(SAMPLE_LIMIT)
    if "unknown" in licences.values():
        limits.append("Some inputs have no known licence: check their terms before sharing this dataset.")
    return [f"- {line}" for line in limits] + [""]
