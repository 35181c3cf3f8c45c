"""The trainer's fit and the scorers run where Beam is absent (bench/airgapped.py on a GPU node): importing them, and
the public API, loads no apache_beam module. import-linter checks the modules' own imports; this also catches a
package's __init__ that imports Beam on the way."""
import subprocess
import sys

BLOCK_BEAM = """
import importlib.abc, sys
class NoBeam(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] == "apache_beam":
            raise ImportError("Beam imported: " + name)
sys.meta_path.insert(0, NoBeam())
import entailgen.training.fitting.trainer, entailgen.training.scoring.scorers  # noqa: E401
import entailgen.training.scoring.document_scorer
import entailgen.training.scoring.summac, entailgen.training.scoring.evaluation
from entailgen.training import DaeScorer, DocumentScorer, EnsembleScorer, PairScorer, TrainOptions, evaluate
print(sorted(m for m in sys.modules if m.split(".")[0] == "apache_beam"))
"""


def test_the_scorers_and_the_trainers_fit_import_no_beam():
    done = subprocess.run([sys.executable, "-c", BLOCK_BEAM], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr.strip().splitlines()[-1:]
    assert done.stdout.strip() == "[]"
