"""Markdown pieces every card section writes with: a table, a counted noun."""
from __future__ import annotations

from typing import Any


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table (| escaped in cells)."""
    cell = lambda v: str(v).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def plural(n: int, noun: str) -> str:
    """'1 row', '2 rows'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
