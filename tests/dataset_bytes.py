"""A finished dataset's bytes, for the tests that say two runs build the same dataset."""


def files(root):
    """Every file of a dataset but run.json (which records times and flags), by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "run.json"}
