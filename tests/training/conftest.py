"""The trainer tests share one tiny WordPiece encoder, built once per session from a config."""
import pytest

from trainer_fixtures import tiny_encoder  # noqa: F401 (a fixture: pytest finds it here)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Score caches (evaluate --benchmark) in the test's own folder, never in the user's ~/.cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
