"""Record types and their schemas: the bottom of the package; nothing here imports from above."""
from entailgen.schemas.records import *  # noqa: F401,F403
from entailgen.schemas.records import __all__  # noqa: F401
