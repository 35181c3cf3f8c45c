"""The claims family's transformations (Kryściński et al. 2020, FactCC) over documents split into SummaC blocks."""
