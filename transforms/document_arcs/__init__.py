"""Document-scale arc data: hypotheses whose words are a document's own, labelled arc by arc against the
SummaC block a document scorer sees, by DAE §4's rule generalised to a document."""
