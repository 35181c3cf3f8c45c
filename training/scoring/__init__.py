"""Scoring: a trained model used on text (pairs, whole documents the SummaC way, detectors), the numbers it computes
in (precision, ONNX), its score modes, the score cache and what it cannot score. Builds on fitting, never on
benchmarks."""
