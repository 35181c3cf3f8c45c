"""Model inputs from records (pure): token ids of [CLS] premise [SEP] hypothesis [SEP] and, for the DAE arc model, the
positions of each arc's child and head last sub-words in the hypothesis, the relation ids and the labels."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

IGNORE = -100  # label of an unlabelled arc (entailed: null): the loss skips it
TOO_LONG = "too_long"
NO_ARCS = "no_arcs"
NO_LABEL = "no_labelled_arcs"
UNKNOWN_RELATION = "<unk>"


@dataclass
class Features:
    """One example's model inputs; arc fields are empty for the sentence-pair classifier."""

    input_ids: list[int]
    token_type_ids: list[int]
    child: list[int] = field(default_factory=list)
    head: list[int] = field(default_factory=list)
    relation: list[int] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    arcs: list[int] = field(default_factory=list)  # index in the example's arcs of each arc kept
    label: int = IGNORE
    truncated: bool = False  # the premise was cut to max_length (counted: a long premise is cut, never refused)


def encode_pair(tokenizer, premise: str, hypothesis_words: Sequence[str], max_length: Optional[int] = None):
    """The tokenizer's encoding of (premise words, hypothesis words), so word_ids() maps sub-words back to words; with
    max_length, the premise's last words cut to fit (the hypothesis is never cut: the caller checks it fits)."""
    if max_length is None:
        return tokenizer(premise.split(), list(hypothesis_words), is_split_into_words=True, truncation=False,
                         verbose=False)
    return tokenizer(premise.split(), list(hypothesis_words), is_split_into_words=True, truncation="only_first",
                     max_length=max_length, verbose=False)


def hypothesis_fits(tokenizer, hypothesis_words: Sequence[str], max_length: int) -> bool:
    """Whether the hypothesis leaves room for at least one premise token in max_length."""
    alone = tokenizer(list(hypothesis_words), is_split_into_words=True, add_special_tokens=False, verbose=False)
    return len(alone["input_ids"]) + tokenizer.num_special_tokens_to_add(pair=True) < max_length


def last_subword_positions(encoding, n_words: int) -> list[Optional[int]]:
    """For each hypothesis word, the position of its last sub-word (None if it got no sub-word)."""
    last: list[Optional[int]] = [None] * n_words
    for position, (word, sequence) in enumerate(zip(encoding.word_ids(), encoding.sequence_ids())):
        if sequence == 1 and word is not None and word < n_words:
            last[word] = position
    return last


def relation_id(relations: dict[str, int], relation: str) -> int:
    """A relation's index in the model's vocabulary; relations unseen in training share the <unk> entry."""
    return relations.get(relation, relations[UNKNOWN_RELATION])


def arc_features(tokenizer, example, relations: dict[str, int], max_length: int = 128,
                 max_arcs: Optional[int] = 20) -> Features | str:
    """Features of an ArcExample for the DAE arc model, or why it cannot be used (NO_ARCS; TOO_LONG only when the
    hypothesis alone leaves no room for a premise token): a longer premise has its last words cut to fit (truncated
    set, counted), as a pair's premise is."""
    encoding = encode_pair(tokenizer, example.premise, example.hypothesis_tokens)
    truncated = len(encoding["input_ids"]) > max_length
    if truncated:
        if not hypothesis_fits(tokenizer, example.hypothesis_tokens, max_length):
            return TOO_LONG
        encoding = encode_pair(tokenizer, example.premise, example.hypothesis_tokens, max_length)
    last = last_subword_positions(encoding, len(example.hypothesis_tokens))
    kept = [i for i, a in enumerate(example.arcs) if 0 <= a.child < len(last) and 0 <= a.head < len(last)
            and last[a.child] is not None and last[a.head] is not None][:max_arcs]
    if not kept:
        return NO_ARCS
    arcs = [example.arcs[i] for i in kept]
    ids = list(encoding["input_ids"])
    return Features(ids, list(encoding.get("token_type_ids") or [0] * len(ids)),
                    child=[last[a.child] for a in arcs], head=[last[a.head] for a in arcs],
                    relation=[relation_id(relations, a.rel) for a in arcs],
                    labels=[IGNORE if a.entailed is None else int(a.entailed) for a in arcs], arcs=kept,
                    truncated=truncated)


def pair_features(tokenizer, premise: str, hypothesis: str, label: int, max_length: int = 128) -> Features | str:
    """Features of a (premise, hypothesis) pair for the sentence-pair classifier; a longer pair has its premise cut to
    fit (truncated set: a document premise, SummaC's document granularity), TOO_LONG only when the hypothesis alone
    leaves no room for one premise token."""
    encoding = tokenizer(premise, hypothesis, truncation=False, verbose=False)  # a long premise is cut below
    truncated = len(encoding["input_ids"]) > max_length
    if truncated:
        hypothesis_length = len(tokenizer(hypothesis, add_special_tokens=False)["input_ids"])
        if hypothesis_length + tokenizer.num_special_tokens_to_add(pair=True) >= max_length:
            return TOO_LONG
        encoding = tokenizer(premise, hypothesis, truncation="only_first", max_length=max_length)
    ids = list(encoding["input_ids"])
    return Features(ids, list(encoding.get("token_type_ids") or [0] * len(ids)), label=label, truncated=truncated)


def collate(batch: list[Features], pad_id: int) -> dict:
    """Pad a batch into tensors; arc tensors are [batch, most arcs] with arc_mask marking real arcs."""
    import torch

    length = max(len(f.input_ids) for f in batch)
    arcs = max(len(f.child) for f in batch)
    out = {
        "input_ids": torch.tensor([f.input_ids + [pad_id] * (length - len(f.input_ids)) for f in batch]),
        "token_type_ids": torch.tensor([f.token_type_ids + [0] * (length - len(f.input_ids)) for f in batch]),
        "attention_mask": torch.tensor([[1] * len(f.input_ids) + [0] * (length - len(f.input_ids)) for f in batch]),
    }
    if arcs:
        out["child"] = torch.tensor([f.child + [0] * (arcs - len(f.child)) for f in batch])
        out["head"] = torch.tensor([f.head + [0] * (arcs - len(f.head)) for f in batch])
        out["relation"] = torch.tensor([f.relation + [0] * (arcs - len(f.relation)) for f in batch])
        out["labels"] = torch.tensor([f.labels + [IGNORE] * (arcs - len(f.labels)) for f in batch])
        out["arc_mask"] = torch.tensor([[True] * len(f.child) + [False] * (arcs - len(f.child)) for f in batch])
    else:
        out["labels"] = torch.tensor([f.label for f in batch])
    return out
