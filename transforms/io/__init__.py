"""Input readers: each input format's units -> source records (schemas/sources.py) or DeadLetters, nothing lost."""
from entailgen.transforms.io.base import DEAD, ReaderConfig, detokenize
from entailgen.transforms.io.formats import CHUNKED, FORMATS, detect_format, detect_format_of, reader_for
from entailgen.transforms.io.read import ReadInputs, read_file
from entailgen.transforms.io.texts import texts_of

__all__ = ["DEAD", "ReaderConfig", "detokenize", "CHUNKED", "FORMATS", "detect_format", "detect_format_of",
           "reader_for", "ReadInputs", "read_file", "texts_of"]
