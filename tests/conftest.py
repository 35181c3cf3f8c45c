"""Shared fixtures: one spaCy parser per test session (loading it is the slow part)."""
import pytest

from entailgen.transforms.parser import Parser, ParserConfig


@pytest.fixture(scope="session", autouse=True)
def onnx_graphs(tmp_path_factory):
    """The ONNX graphs scorers build (training.scoring.onnx_runtime: --precision auto on CPU) in one folder per session,
    not in each test's own cache: a graph is named by its model's checksum, so a module's model is exported once."""
    patch = pytest.MonkeyPatch()
    patch.setenv("ENTAILGEN_ONNX_CACHE", str(tmp_path_factory.mktemp("onnx")))
    yield
    patch.undo()


@pytest.fixture(scope="session")
def parser() -> Parser:
    """The default (spaCy, offline English model) parser."""
    return Parser(ParserConfig())


@pytest.fixture(scope="session")
def parse(parser):
    """Parse one text into a ParsedSentence."""
    from entailgen.schemas.sources import SourceText
    from entailgen.transforms.parser import parse_units

    def _parse(text: str, source_id: str = "t:1", role: str = "text"):
        (sentence,) = parse_units(parser, [SourceText(text, "test", source_id, role)])
        return sentence

    return _parse
