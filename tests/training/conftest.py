"""The trainer tests share one tiny WordPiece encoder, built once per session from a config."""
from trainer_fixtures import tiny_encoder  # noqa: F401 (a fixture: pytest finds it here)
