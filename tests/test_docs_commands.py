"""Every `bench/` script, `make` target, `entailgen` command and flag that README.md and docs/ name exists, so a
command a newcomer copies from the docs runs on today's code. The run logs (docs/benchmarks/log/) are left out: they
keep each command as it ran then.

Flags are read from the parsers the CLI itself builds (its public make_parser, one command at a time), never from
help text or module paths, so moving a command's code elsewhere does not touch this test."""
import argparse
import functools
import re
from pathlib import Path

import pytest

from entailgen.runners.cli import BEAM_COMMANDS, make_parser  # the CLI's public parser and its Beam-flag commands

ROOT = Path(__file__).resolve().parents[1]
HISTORY = ROOT / "docs" / "benchmarks" / "log"
FENCE = re.compile(r"^\s*(```|~~~)\s*(\w*)")
NOT_SHELL = {"python", "json", "yaml", "toml", "text"}  # fenced blocks that hold no command line
BENCH = re.compile(r"(?<![\w.$/-])bench/[\w./*-]*[\w*]")  # bench/speed.py, bench/trials/rules/
BENCH_MODULE = re.compile(r"-m entailgen\.(bench(?:\.\w+)+)")  # python -m entailgen.bench.trials.x
MAKE = re.compile(r"(?:^|[\s;&(])make\s+(?:[\w-]+=\S+\s+)*([a-z][\w-]*)")  # `make VAR=x target`
ENTAILGEN = re.compile(r"(?:^|[\s;&(/$])entailgen\s+(.*)|-m entailgen\.runners\.cli\s+(.*)")
COMMENT = re.compile(r"(^|\s)#.*")
NEXT = re.compile(r"\s\|\s|&&|;|\s>")  # where a command on a line ends: a pipe, the next command, a redirect


def pages() -> list[Path]:
    docs = [p for p in sorted((ROOT / "docs").rglob("*.md")) if HISTORY not in p.parents]
    return [ROOT / "README.md", *docs]


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, code) of each inline code span (one may run over a line break) and each command line of a fenced
    block (a line ending in a backslash joined to the next), where commands are written."""
    found, fence, held, prose = [], None, "", [""] * len(text.splitlines())
    for number, line in enumerate(text.splitlines(), 1):
        opening = FENCE.match(line)
        if opening:
            fence = None if fence is not None else opening.group(2).lower()
        elif fence is None:
            prose[number - 1] = line
        elif fence not in NOT_SHELL:
            held += line.rstrip()
            if held.endswith("\\"):
                held = held[:-1] + " "
            else:
                found.append((number, held))
                held = ""
    joined = "\n".join(prose)  # fenced lines blanked, so line numbers hold
    for span in re.finditer(r"`([^`]+)`", joined):
        found.append((joined.count("\n", 0, span.start()) + 1, " ".join(span.group(1).split())))
    return sorted(found)


def bench_paths(text: str) -> set[str]:
    """Every bench/ path a page names, in prose or code, and each `python -m entailgen.bench...` module as its file."""
    named = set(BENCH.findall(text))
    return named | {module.replace(".", "/") + ".py" for module in BENCH_MODULE.findall(text)}


@functools.lru_cache(maxsize=None)
def make_targets() -> frozenset[str]:
    rules = re.findall(r"^([\w.-]+(?:[ \t]+[\w.-]+)*)[ \t]*:(?!=)", (ROOT / "Makefile").read_text(), re.M)
    return frozenset(target for rule in rules for target in rule.split())


@functools.lru_cache(maxsize=None)
def command_parser(command: str) -> argparse.ArgumentParser:
    """The parser `entailgen COMMAND` parses with (each command's own parts are built only when it is named)."""
    return make_parser(command)


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next((a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})


def options(parser: argparse.ArgumentParser) -> set[str]:
    return {flag for action in parser._actions for flag in action.option_strings}


@functools.lru_cache(maxsize=None)
def beam_knows(flag: str) -> bool:
    import apache_beam.runners.dask.dask_runner  # noqa: F401 (registers the --dask_* flags, as --runner DaskRunner does)
    from entailgen.runners.beam_flags import check_beam_flags

    try:
        check_beam_flags([flag])
    except ValueError as e:  # a flag Beam knows but wants a value for is still Beam's
        return not str(e).startswith("unrecognized arguments")
    return True


def placeholder(word: str) -> bool:
    """PIPELINE, NAME, `...`, `dae|recast`: a word that stands for the subcommands rather than naming one."""
    return not re.search(r"[a-z]", word) or "|" in word


def command_problems(line: str) -> list[str]:
    """What in one `entailgen ...` command line the CLI would refuse: an unknown command or subcommand, a flag that
    neither its parser nor (for the commands that pass them on) Apache Beam accepts."""
    words = [w.strip("[](),") for w in line.split()]
    if not words or not re.fullmatch(r"[a-z][\w-]*", words[0]):
        return []  # prose such as `entailgen 0.4`, or a flag-only form
    command, rest = words[0], words[1:]
    top = make_parser(None)
    if command not in subcommands(top):
        return [f"entailgen {command}: no such command"]
    parser = subcommands(command_parser(command))[command]
    known = options(top) | options(parser)
    for word in rest:
        if word.startswith("--") or not subcommands(parser):
            continue
        children = subcommands(parser)
        if word in children:
            parser = children[word]
        elif placeholder(word):
            named = [w for w in word.split("|") if w in children] or list(children)
            known |= set().union(*(options(children[w]) for w in named))
        else:
            return [f"entailgen {command} {word}: no such subcommand"]
        known |= options(parser)
        break
    problems = []
    for word in rest:
        flag = word.split("=", 1)[0].rstrip(".")
        if not re.fullmatch(r"--[a-z][\w-]*", flag) or flag in known:
            continue
        if command in BEAM_COMMANDS and beam_knows(flag):
            continue
        problems.append(f"entailgen {command}: no flag {flag}")
    return problems


def page_problems(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    problems = [f"{path}: no such file" for path in sorted(bench_paths(text))
                if not list(ROOT.glob(path.rstrip("/")))]
    for number, code in code_lines(text):
        problems += [f"line {number}: make {target}: no such target" for target in MAKE.findall(code)
                     if target not in make_targets()]
        for part in NEXT.split(COMMENT.sub("", code)):
            match = ENTAILGEN.search(part)
            if match:
                problems += [f"line {number}: {p}" for p in command_problems(next(g for g in match.groups() if g is not None))]
    return problems


def test_a_missing_script_target_command_and_flag_are_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Run `bench/speed.py` and `bench/no_such.py`, then `make test` and `make no-such-target`.\n\n"
                    "```bash\nentailgen train out/sample --output m \\\n    --no-such-flag 3   # and --epochs\n"
                    "entailgen run dae --sample --output o --runner DirectRunner --not-beams-either\n"
                    "entailgen benchmarks fetch summac --to d --from x | entailgen nosuch\n"
                    "entailgen run PIPELINE --help --augment x\nentailgen benchmarks grab --to d\n```\n\n"
                    "```python\nentailgen evaluate --not-read-in-python\n```\n"
                    "Also `entailgen evaluate MODEL --benchmark summac DIR --typo-flag`.\n")
    assert page_problems(page) == [
        "bench/no_such.py: no such file",
        "line 1: make no-such-target: no such target",
        "line 5: entailgen train: no flag --no-such-flag",
        "line 6: entailgen run: no flag --not-beams-either",
        "line 7: entailgen nosuch: no such command",
        "line 9: entailgen benchmarks grab: no such subcommand",
        "line 15: entailgen evaluate: no flag --typo-flag",
    ]


def test_the_parsers_are_the_clis_own():
    assert "--benchmark" in options(subcommands(command_parser("evaluate"))["evaluate"])
    fetch = subcommands(subcommands(command_parser("benchmarks"))["benchmarks"])["fetch"]
    assert {"--to", "--from"} <= options(fetch)
    assert {"test", "sample", "bench-gpu"} <= make_targets()


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_named_script_target_command_and_flag_exists(page):
    assert page_problems(page) == []
