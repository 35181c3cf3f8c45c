"""No import circle inside any folder of the package: each folder's modules import one another one way only, so a
reader can start at the bottom of a folder and a change there cannot loop back (function-local imports count too)."""
import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the entailgen package: the repository root
SKIP = {"tests", "bench", "docs", "samples", "build", ".venv", ".pp", ".git", ".ci", "schemas/__pycache__"}


def package_folders():
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP and not d.startswith((".", "_")) and not d.endswith(".egg-info")]
        if "__init__.py" in files:
            yield folder


def module_name(folder: str, file: str) -> str:
    rel = os.path.relpath(os.path.join(folder, file), ROOT)[:-3].replace(os.sep, ".")
    return "entailgen" if rel == "__init__" else "entailgen." + rel.removesuffix(".__init__")


def sibling_imports(folder: str) -> dict[str, set[str]]:
    """Module -> the modules of the same folder it imports (anywhere in its code)."""
    modules = {module_name(folder, f): os.path.join(folder, f) for f in os.listdir(folder)
               if f.endswith(".py") and f != "__init__.py"}
    graph = {}
    for name, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        targets = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def a_circle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle in the graph (modules in order, the first repeated at the end), or []."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_circle_finder_finds_a_circle_and_passes_a_line():
    assert a_circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert a_circle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_every_folder_is_found():
    folders = {os.path.relpath(f, ROOT) for f in package_folders()}
    assert {".", "training", "training/fitting", "training/scoring", "training/benchmarks", "runners",
            "transforms", "transforms/claims", "dataset"} <= folders


@pytest.mark.parametrize("folder", sorted(package_folders()), ids=lambda f: os.path.relpath(f, ROOT))
def test_no_import_circle_inside_the_folder(folder):
    assert a_circle(sibling_imports(folder)) == []
