"""entailgen: synthetic textual-entailment training corpora with Apache Beam."""
__version__ = "0.1.0"
