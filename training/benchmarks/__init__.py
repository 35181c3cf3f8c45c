"""Benchmarks: human-labelled sets a scorer is judged on (SummaC, rank19, TRUE, XSumFaith spans), one module per
benchmark's reader and table, the shared metrics and baselines, the held-out rule, and fetching their public data."""
