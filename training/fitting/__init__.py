"""Fitting: a model fine-tuned on entailgen datasets (encoder, model heads, features, data, trainer, checkpoint) and
its accuracy on a dataset's held-out split. Knows nothing of scoring documents or of benchmarks."""
