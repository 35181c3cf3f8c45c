"""Recasting annotations into RTE pairs (Poliak 2020 ch. 3, the Diverse NLI Collection): ner, factuality, sentiment;
dnc exports the pairs in the DNC's JSON layout."""
