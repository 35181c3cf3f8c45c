"""Augmentations: extra training examples made from existing ones, each tagged with its kind so a trainer can filter.

dae family (ArcExample, Goyal & Durrett 2020 §5.3): word_swap, synonym, hallucination, overlap;
span_deletion (the cuts of Falke et al. 2019's summarisers); dialogue (a dialogue phrase before x, dialogue_arcs.py).
nli-dialogue family (RtePair, Steen et al. 2023 §2.1): dialogue.
Each module has pure functions (tested without Beam); the four that edit x and re-parse it (word_swap, hallucination,
span_deletion, dialogue_arcs) each give an EditAndLabel that common.py's one ReparsingAugment runs, the others a thin
PTransform; randomness only via schemas.ids.seeded_rng.
"""
