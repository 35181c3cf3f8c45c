"""Relation recast by distant supervision (Mintz et al. 2009; Goodrich et al. 2019 §3; the DNC's KG relations): an
entity pair in a sentence whose triple the KB holds gives an entailed "X <relation phrase> Y ." hypothesis, the same
pair with a relation the KB does not hold a not-entailed one, and pairs the KB knows nothing of (r0) a capped number
of not-entailed ones."""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Optional

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems

from entailgen.schemas.ids import content_id, seeded_rng
from entailgen.schemas.records import ENTAILED, ParsedSentence, RtePair, Skipped, Token
from entailgen.schemas.sources import DncPair
from entailgen.transforms.io.option_files import option_file_lines
from entailgen.transforms.recast.common import DEAD, SKIPPED, RecastFn, recast_dead, rte_pair

PHENOMENON = "relation"
STAGE = "recast_relation"
DNC_TEMPLATE = "relation/dnc"
TEMPLATES_FILE = str(Path(__file__).with_name("relation_templates.tsv"))
# How a row's label was made (its provenance 'label_made').
KB, KB_NEGATIVE, NO_RELATION, DNC = "kb", "kb_negative", "no_relation", "dnc"
# spaCy types that name amounts, not entities a KB holds facts about: never mentions.
NUMERIC_TYPES = frozenset({"CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY"})


def normalise(text: str) -> str:
    """Case- and whitespace-normalised text, the key of exact alias matching."""
    return " ".join(text.split()).casefold()


def _relation_key(name: str) -> str:
    """A relation name as KBs write it ('P19', 'place_of_birth', 'Place of birth') in one comparable form."""
    return normalise(name.replace("_", " "))


@dataclass(frozen=True)
class RelationTemplate:
    """A relation's hypothesis phrase with X (subject) and Y (object), and the entity types each slot takes."""

    relation: str
    label: str
    phrase: str
    subject_types: tuple[str, ...]
    object_types: tuple[str, ...]

    def fits(self, subject_type: str, object_type: str) -> bool:
        """Whether mentions of these types can fill X and Y; an unknown type ('', an alias-only match) fits any."""
        return ((not subject_type or subject_type in self.subject_types)
                and (not object_type or object_type in self.object_types))

    def hypothesis(self, subject: str, obj: str) -> str:
        """The DNC-style hypothesis "Kazakhstan is bordered by Russia .", first letter upper-cased."""
        text = " ".join(subject if w == "X" else obj if w == "Y" else w for w in self.phrase.split()) + " ."
        return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Templates:
    """The relation templates by property id, and the lookup from a KB's relation names (id or label) to that id."""

    by_relation: Mapping[str, RelationTemplate]
    names: Mapping[str, str]

    def resolve(self, name: str) -> str:
        """The template id a KB relation name stands for, else the name itself (a relation without a template)."""
        return self.names.get(_relation_key(name), name)

    def fitting(self, subject_type: str, object_type: str) -> list[str]:
        """Relations whose template takes these types, in a stable order."""
        return sorted(r for r, t in self.by_relation.items() if t.fits(subject_type, object_type))


def parse_templates(lines: Iterable[str], where: str = "templates") -> Templates:
    """Templates from TSV lines `property<TAB>label<TAB>phrase<TAB>subject types<TAB>object types` ('#' comments and
    a 'property' header skipped); a bad line raises ValueError naming it."""
    by_relation: dict[str, RelationTemplate] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#") or line.startswith("property\t"):
            continue
        cells = [c.strip() for c in line.rstrip("\r\n").split("\t")]
        if len(cells) != 5 or not all(cells):
            raise ValueError(f"{where}:{number}: want 5 tab-separated fields (property, label, phrase, subject "
                             f"types, object types), got {len(cells)}")
        relation, label, phrase, subject_types, object_types = cells
        words = phrase.split()
        if words.count("X") != 1 or words.count("Y") != 1:
            raise ValueError(f"{where}:{number}: phrase {phrase!r} must hold X and Y once each, as words")
        if relation in by_relation:
            raise ValueError(f"{where}:{number}: relation {relation} is defined twice")
        by_relation[relation] = RelationTemplate(relation, label, phrase, tuple(subject_types.split(",")),
                                                 tuple(object_types.split(",")))
    if not by_relation:
        raise ValueError(f"{where}: no relation templates")
    names = {}
    for relation, template in sorted(by_relation.items()):
        names.setdefault(_relation_key(template.label), relation)
        names[_relation_key(relation)] = relation
    return Templates(by_relation, names)


def _read_lines(path: str) -> list[str]:
    """The lines of a UTF-8 text file, local or on any Beam filesystem (gs://), numbered as an editor numbers them
    (a byte-order mark stripped); a line that is not UTF-8 is a ValueError naming the file and the line."""
    lines = option_file_lines(path)
    bad = next((line.number for line in lines if line.text is None), None)
    if bad is not None:
        raise ValueError(f"{FileSystems.split(path)[1]}:{bad}: not UTF-8")
    return [line.text for line in lines]


def load_templates(path: Optional[str] = None) -> Templates:
    """The shipped templates, or the file that --relation-templates names instead."""
    path = path or TEMPLATES_FILE
    return parse_templates(_read_lines(path), FileSystems.split(path)[1])


@dataclass(frozen=True)
class KnowledgeBase:
    """KB triples by (subject, object) entity, and normalised aliases (names included) -> entities."""

    triples: Mapping[tuple[str, str], tuple[str, ...]]  # (subject, object) -> relation ids, sorted
    aliases: Mapping[str, tuple[str, ...]]  # normalised alias -> entities (canonical names as the KB writes them)
    max_alias_chars: int = 0

    def held(self, subjects: Iterable[str], objects: Iterable[str]) -> tuple[tuple[str, str, str], ...]:
        """Every (subject, relation, object) triple the KB holds between any of these entities, sorted."""
        return tuple(sorted((s, r, o) for s in subjects for o in objects for r in self.triples.get((s, o), ())))


def parse_kb(lines: Iterable[str], templates: Templates, where: str = "kb") -> KnowledgeBase:
    """A KB from TSV lines `subject<TAB>relation<TAB>object[<TAB>subject aliases[<TAB>object aliases]]`, aliases
    '|'-separated; relation names map to template ids. A bad line raises ValueError naming it."""
    triples: dict[tuple[str, str], set[str]] = {}
    aliases: dict[str, set[str]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = [c.strip() for c in line.rstrip("\r\n").split("\t")]
        if len(cells) < 3 or len(cells) > 5 or not all(cells[:3]):
            raise ValueError(f"{where}:{number}: want subject<TAB>relation<TAB>object[<TAB>subject aliases"
                             f"[<TAB>object aliases]], got {len(cells)} fields")
        subject, relation, obj = cells[:3]
        triples.setdefault((subject, obj), set()).add(templates.resolve(relation))
        for entity, names in ((subject, cells[3] if len(cells) > 3 else ""),
                              (obj, cells[4] if len(cells) > 4 else "")):
            for name in [entity] + names.split("|"):
                if normalise(name):
                    aliases.setdefault(normalise(name), set()).add(entity)
    if not triples:
        raise ValueError(f"{where}: no KB triples")
    return KnowledgeBase({k: tuple(sorted(v)) for k, v in sorted(triples.items())},
                         {k: tuple(sorted(v)) for k, v in sorted(aliases.items())},
                         max((len(a) for a in aliases), default=0))


def load_kb(path: str, templates: Templates) -> KnowledgeBase:
    """The KB file (local or gs://), read whole: once per worker, in setup."""
    return parse_kb(_read_lines(path), templates, FileSystems.split(path)[1])


@dataclass(frozen=True)
class EntityMention:
    """A mention: character span in the premise, its words, spaCy type ('' if only the KB found it), KB entities."""

    start: int
    end: int
    text: str
    entity_type: str
    entities: tuple[str, ...] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """What the mention refers to: its KB entities, else its own normalised words."""
        return self.entities or (normalise(self.text),)


@dataclass(frozen=True)
class MentionPair:
    """An ordered (subject, object) pair of mentions of different entities, with the KB triples that hold for it."""

    subject: EntityMention
    object: EntityMention
    held: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class RelationSentence:
    """A parsed sentence with its mentions and mention pairs: what the KB says about it, before any label is drawn."""

    source: str
    source_id: str
    text: str
    mentions: tuple[EntityMention, ...]
    pairs: tuple[MentionPair, ...]


def _offsets(tokens: list[Token]) -> list[int]:
    """The character offset of each token in the text the tokens spell (spaCy keeps the text exactly)."""
    offsets, position = [], 0
    for token in tokens:
        offsets.append(position)
        position += len(token.text) + (1 if token.space_after else 0)
    return offsets


def spelled(sentence: ParsedSentence) -> str:
    """The premise: the sentence's text, or where its tokens spell it otherwise (Stanza's multi-word tokens), their
    spelling, so mention spans always index the premise."""
    text = "".join(t.text + (" " if t.space_after else "") for t in sentence.tokens).rstrip()
    return sentence.text if text == sentence.text else text


def _lookup(kb: KnowledgeBase, text: str) -> tuple[str, ...]:
    """The KB entities an exact (normalised) name stands for; a leading 'the' of a spaCy span may be dropped."""
    key = normalise(text)
    return kb.aliases.get(key) or (kb.aliases.get(key[4:], ()) if key.startswith("the ") else ())


def entity_mentions(sentence: ParsedSentence, kb: KnowledgeBase) -> list[EntityMention]:
    """spaCy entity spans plus exact KB alias matches, longest first without overlaps, in text order."""
    tokens, text = sentence.tokens, spelled(sentence)
    offsets = _offsets(tokens)
    ends = [o + len(t.text) for o, t in zip(offsets, tokens)]
    candidates: dict[tuple[int, int], tuple[str, tuple[str, ...]]] = {}  # token span -> (type, entities)
    i = 0
    while i < len(tokens):  # spaCy spans: a run of tokens with one entity type
        j = i + 1
        if tokens[i].ner != "O":
            while j < len(tokens) and tokens[j].ner == tokens[i].ner:
                j += 1
            if tokens[i].ner not in NUMERIC_TYPES:
                candidates[(i, j)] = (tokens[i].ner, _lookup(kb, text[offsets[i]:ends[j - 1]]))
        i = j
    for i in range(len(tokens)):  # KB aliases: exact matches on token boundaries
        for j in range(i + 1, len(tokens) + 1):
            if ends[j - 1] - offsets[i] > kb.max_alias_chars:
                break
            entities = kb.aliases.get(normalise(text[offsets[i]:ends[j - 1]]))
            if entities and (i, j) not in candidates:
                types = Counter(t.ner for t in tokens[i:j] if t.ner not in ("O", *NUMERIC_TYPES))
                candidates[(i, j)] = (min(types, key=lambda t: (-types[t], t)) if types else "", entities)
            elif entities:
                candidates[(i, j)] = (candidates[(i, j)][0], entities)
    taken: set[int] = set()
    chosen = []
    for (i, j), (entity_type, entities) in sorted(candidates.items(), key=lambda c: (c[0][0] - c[0][1], c[0][0])):
        if taken.isdisjoint(range(i, j)):
            taken.update(range(i, j))
            chosen.append(EntityMention(offsets[i], ends[j - 1], text[offsets[i]:ends[j - 1]], entity_type,
                                        entities))
    return sorted(chosen, key=lambda m: m.start)


def mention_pairs(sentence: ParsedSentence, kb: KnowledgeBase) -> RelationSentence:
    """Every ordered pair of mentions of different entities, with the triples the KB holds for it."""
    mentions = entity_mentions(sentence, kb)
    pairs = tuple(MentionPair(a, b, kb.held(a.entities, b.entities)) for a in mentions for b in mentions
                  if a is not b and set(a.keys).isdisjoint(b.keys))
    return RelationSentence(sentence.source, sentence.source_id, spelled(sentence), tuple(mentions), pairs)


@dataclass(frozen=True)
class RelationConfig:
    """Templates, the cap on no-relation (r0) pairs per sentence, and the seed of the drawn relations."""

    templates: Templates
    negatives_per_sentence: int = 1
    seed: int = 0


@dataclass(frozen=True)
class RelationPrior:
    """Corpus counts of KB relations per (subject type, object type); the not-entailed relation is drawn from them."""

    by_types: Mapping[tuple[str, str], Mapping[str, int]] = field(default_factory=dict)

    def alternatives(self, subject_type: str, object_type: str, held: set[str],
                     templates: Templates) -> list[tuple[str, int]]:
        """Relations seen for this type pair that the KB does not hold for the entities, with their counts; none
        seen: every other template that fits the types, counted once."""
        seen = sorted((r, n) for r, n in self.by_types.get((subject_type, object_type), {}).items() if r not in held)
        return seen or [(r, 1) for r in templates.fitting(subject_type, object_type) if r not in held]


def _fitting_triples(pair: MentionPair, templates: Templates) -> list[tuple[str, str, str]]:
    """The KB triples of a pair that have a template taking the pair's mention types."""
    fits = set(templates.fitting(pair.subject.entity_type, pair.object.entity_type))
    return [t for t in pair.held if t[1] in fits]


def relation_prior(sentences: Iterable[RelationSentence], templates: Templates) -> RelationPrior:
    """The corpus relation prior (pure): the KB relations found per mention type pair."""
    fn = RelationPriorFn(templates)
    accumulator = fn.create_accumulator()
    for sentence in sentences:
        accumulator = fn.add_input(accumulator, sentence)
    return fn.extract_output(accumulator)


class RelationPriorFn(beam.CombineFn):
    """Combine RelationSentences into their RelationPrior (a corpus-level side input, like NER's tag prior)."""

    def __init__(self, templates: Templates):
        self.templates = templates

    def create_accumulator(self):
        return Counter()

    def add_input(self, counts, sentence: RelationSentence):
        for pair in sentence.pairs:
            for _, relation, _ in _fitting_triples(pair, self.templates):
                counts[(pair.subject.entity_type, pair.object.entity_type, relation)] += 1
        return counts

    def merge_accumulators(self, accumulators):
        merged = Counter()
        for counts in accumulators:
            merged.update(counts)
        return merged

    def extract_output(self, counts) -> RelationPrior:
        by_types: dict[tuple[str, str], dict[str, int]] = {}
        for (subject_type, object_type, relation), n in sorted(counts.items()):
            by_types.setdefault((subject_type, object_type), {})[relation] = n
        return RelationPrior(by_types)


def _provenance(how: str, triple: tuple[str, str, str], pair: MentionPair) -> str:
    """The row's provenance as compact, key-sorted JSON: how the label was made, the triple, the mention spans."""
    return json.dumps({"label_made": how, "triple": list(triple),
                       "subject": [pair.subject.start, pair.subject.end, pair.subject.entity_type],
                       "object": [pair.object.start, pair.object.end, pair.object.entity_type]},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _pair(sentence: RelationSentence, pair: MentionPair, relation: str, how: str, triple: tuple[str, str, str],
          templates: Templates) -> RtePair:
    """One RtePair: the sentence and the relation's hypothesis over the pair's own words."""
    hypothesis = templates.by_relation[relation].hypothesis(pair.subject.text, pair.object.text)
    row = rte_pair(sentence.text, hypothesis, how == KB, PHENOMENON, f"relation/{relation}", sentence.source,
                   sentence.source_id)
    return dataclasses.replace(row, provenance=_provenance(how, triple, pair))


def _draw(sentence: RelationSentence, pair: MentionPair, purpose: str, alternatives: list[tuple[str, int]],
          seed: int) -> str:
    """A relation drawn by prior weight, seeded by the run seed and the pair's identity."""
    rng = seeded_rng(seed, content_id(sentence.source, sentence.source_id, pair.subject.start, pair.object.start),
                     purpose)
    return rng.choices([r for r, _ in alternatives], weights=[n for _, n in alternatives])[0]


def type_mismatches(sentence: RelationSentence, templates: Templates) -> int:
    """Pairs left out because no template takes their types (or none of the templates of the KB's relations for
    them does)."""
    return sum(1 for p in sentence.pairs
               if not templates.fitting(p.subject.entity_type, p.object.entity_type)
               or (_covered(p, templates) and not _fitting_triples(p, templates)))


def _covered(pair: MentionPair, templates: Templates) -> list[tuple[str, str, str]]:
    """The KB triples of a pair whose relation has a template."""
    return [t for t in pair.held if t[1] in templates.by_relation]


def uncovered_relations(sentence: RelationSentence, templates: Templates) -> list[str]:
    """The relation of each KB triple held for the sentence's pairs that no template covers: counted, not ignored."""
    return [t[1] for p in sentence.pairs for t in p.held if t[1] not in templates.by_relation]


def recast_relation(sentence: RelationSentence, prior: RelationPrior,
                    config: RelationConfig) -> "list[RtePair] | Skipped":
    """Per KB pair: each held triple entailed, one relation the KB does not hold not entailed (kb_negative); pairs
    the KB knows nothing of give at most negatives_per_sentence not-entailed pairs (no_relation); pairs no template
    fits are left out. A sentence with no pair left is Skipped with the reason (NoTemplate:RELATIONS when the KB's
    relations for it have no template)."""
    templates = config.templates
    if len(sentence.mentions) < 2:
        return Skipped(sentence.source, sentence.source_id, STAGE, "FewerThanTwoMentions")
    if not sentence.pairs:
        return Skipped(sentence.source, sentence.source_id, STAGE, "OneEntityOnly")
    pairs: list[RtePair] = []
    unrelated: list[MentionPair] = []  # r0: the KB relates them in neither direction (Mintz et al. 2009)
    related = {(p.subject, p.object) for p in sentence.pairs if p.held}
    for pair in sentence.pairs:
        types = (pair.subject.entity_type, pair.object.entity_type)
        if not templates.fitting(*types):
            continue
        if not pair.held:
            if (pair.object, pair.subject) not in related:
                unrelated.append(pair)
            continue
        entailed = _fitting_triples(pair, templates)
        if not entailed:
            continue
        pairs.extend(_pair(sentence, pair, t[1], KB, t, templates) for t in entailed)
        alternatives = prior.alternatives(*types, {t[1] for t in pair.held}, templates)
        if alternatives:
            relation = _draw(sentence, pair, "relation-kb-negative", alternatives, config.seed)
            subject, _, obj = entailed[0]
            pairs.append(_pair(sentence, pair, relation, KB_NEGATIVE, (subject, relation, obj), templates))
    rng = seeded_rng(config.seed, content_id(sentence.source, sentence.source_id), "relation-no-relation")
    chosen = sorted(rng.sample(range(len(unrelated)), min(config.negatives_per_sentence, len(unrelated))))
    for pair in (unrelated[k] for k in chosen):
        alternatives = prior.alternatives(pair.subject.entity_type, pair.object.entity_type, set(), templates)
        relation = _draw(sentence, pair, "relation-no-relation", alternatives, config.seed)
        triple = (pair.subject.entities[0] if pair.subject.entities else pair.subject.text, relation,
                  pair.object.entities[0] if pair.object.entities else pair.object.text)
        pairs.append(_pair(sentence, pair, relation, NO_RELATION, triple, templates))
    if not pairs:
        uncovered = sorted(set(uncovered_relations(sentence, templates)))
        reason = ("TypeMismatch" if type_mismatches(sentence, templates) == len(sentence.pairs)
                  else f"NoTemplate:{','.join(uncovered)}" if uncovered else "NoKbPair")
        return Skipped(sentence.source, sentence.source_id, STAGE, reason)
    unique = {p.id: p for p in pairs}  # one mention pair's words can repeat in a sentence: one row per content id
    return [unique[k] for k in dict.fromkeys(p.id for p in pairs)]


def dnc_rte_pair(pair: DncPair) -> RtePair:
    """A pair already recast by the DNC (recast_kg_relations) as an RtePair of this phenomenon, label kept."""
    row = rte_pair(pair.context, pair.hypothesis, pair.label == ENTAILED, PHENOMENON, DNC_TEMPLATE, pair.source,
                   pair.source_id)
    return dataclasses.replace(row, provenance=json.dumps({"label_made": DNC}, separators=(",", ":")))


class _MentionPairsFn(beam.DoFn):
    """ParsedSentence -> RelationSentence, with the KB read once per worker in setup(); a failure is a DeadLetter."""

    def __init__(self, kb_path: str, templates: Templates):
        self.kb_path = kb_path
        self.templates = templates
        self.kb: Optional[KnowledgeBase] = None
        self.dead = beam.metrics.Metrics.counter("entailgen", f"{STAGE}_dead")

    def setup(self):
        self.kb = load_kb(self.kb_path, self.templates)

    def process(self, sentence: ParsedSentence):
        try:
            yield mention_pairs(sentence, self.kb)
        except Exception as error:  # one sentence's failure is its dead letter, not the bundle's
            self.dead.inc()
            yield beam.pvalue.TaggedOutput(DEAD, recast_dead(sentence, STAGE, error))


class _RecastRelationFn(RecastFn):
    """RecastFn that also counts the mention pairs left out for their types, and skips each KB triple whose relation
    no template covers (in a sentence that still gives pairs; a skipped sentence's reason names them)."""

    def __init__(self, config: RelationConfig):
        super().__init__(STAGE, lambda sentence, prior: recast_relation(sentence, prior, config))
        self.templates = config.templates
        self.mismatched = beam.metrics.Metrics.counter("entailgen", f"{STAGE}_type_mismatch_pairs")

    def process(self, sentence, *side_inputs):
        self.mismatched.inc(type_mismatches(sentence, self.templates))
        outs = list(super().process(sentence, *side_inputs))
        yield from outs
        if any(isinstance(out, RtePair) for out in outs):  # a skipped sentence already names them in its reason
            for relation in uncovered_relations(sentence, self.templates):
                yield beam.pvalue.TaggedOutput(SKIPPED, Skipped(sentence.source, sentence.source_id, STAGE,
                                                                f"NoTemplate:{relation}"))


class RecastRelation(beam.PTransform):
    """ParsedSentence -> {'pairs': RtePair, 'dead': DeadLetter, 'skipped': Skipped}; the relation prior is computed
    from the corpus's KB pairs."""

    def __init__(self, kb_path: str, config: RelationConfig):
        super().__init__()
        self.kb_path = kb_path
        self.config = config

    def expand(self, sentences):
        found = sentences | "MentionPairs" >> beam.ParDo(
            _MentionPairsFn(self.kb_path, self.config.templates)).with_outputs(DEAD, main="found")
        prior = found.found | "RelationPrior" >> beam.CombineGlobally(RelationPriorFn(self.config.templates))
        recast = found.found | "Recast" >> beam.ParDo(_RecastRelationFn(self.config), beam.pvalue.AsSingleton(
            prior)).with_outputs(DEAD, SKIPPED, main="pairs")
        dead = (found[DEAD], recast[DEAD]) | "Dead" >> beam.Flatten()
        return {"pairs": recast.pairs, "dead": dead, "skipped": recast[SKIPPED]}
