"""Reject flags that are neither entailgen's nor Apache Beam's, instead of Beam silently discarding a typo."""
from __future__ import annotations

from apache_beam.options.pipeline_options import PipelineOptions, _BeamArgumentParser


def check_beam_flags(args: list[str]) -> None:
    """Raise ValueError naming the arguments Beam would not understand either (parsed as Beam itself does)."""
    parser = _BeamArgumentParser(allow_abbrev=False)
    for cls in {str(c): c for c in PipelineOptions.__subclasses__()}.values():
        cls._add_argparse_args(parser)
    _, unknown = parser.parse_known_args(args)
    if unknown:
        raise ValueError(f"unrecognized arguments (neither entailgen nor Apache Beam flags): {' '.join(unknown)}")
