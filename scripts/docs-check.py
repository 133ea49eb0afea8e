#!/usr/bin/env python3
"""Checks the documentation against the tree and the built programs (`make docs-check`).

Fails (exit 1, one line per problem) on:
- a relative link in README.md, docs/*.md or python/*.md whose file or folder does not exist,
  or whose `#anchor` names no heading of the Markdown file it points at;
- a reference to a section by name that no longer has its heading, anywhere in the tree's
  Markdown, Swift, Python and shell files and the Makefile: `docs/x.md, "Section"`,
  `README's "Section"`, `README.md, *Section*`, and a bare `docs/x.md#anchor` outside a
  Markdown link (the quoted name must be a heading of that file, or the start of one);
- a command in README.md (code blocks and inline code) that no longer exists: each
  `accessoryctl <subcommand>` and each of its `--options`, each `accessoryd --option`, each
  `accessory-sim --option`, each `make <target>`, checked against the programs' `--help` and
  the Makefile;
- the module graph in docs/architecture.md (between scripts/module-graph.py's markers) when it
  is not what scripts/module-graph.py makes of Package.swift now (only where there is a
  Package.swift).

Usage: scripts/docs-check.py --products DIR [--root DIR]
(DIR: `swift build --show-bin-path`, where accessoryctl, accessoryd and accessory-sim are built.)
"""

from __future__ import annotations

import argparse
import difflib
import glob
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from functools import lru_cache
from typing import Any, Dict, Iterator, List, Optional, Set, Tuple

LINK = re.compile(r"(?<!\!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|^\s*\[[^\]]+\]:\s*(\S+)", re.M)
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.M)
FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1\s*$", re.M | re.S)
INLINE = re.compile(r"`([^`\n]+)`")
OPTION = re.compile(r"^\s+(?:-\w, )?(--[a-z0-9][a-z0-9-]*)", re.M)


def documents(root: str) -> List[str]:
    names = ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root)) + sorted(glob.glob("python/*.md", root_dir=root))
    return [name for name in names if os.path.exists(os.path.join(root, name))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to dashes."""
    text = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@lru_cache(maxsize=None)
def anchors(path: str) -> Set[str]:
    text = strip_fences(open(path, encoding="utf-8").read())
    seen: Dict[str, int] = {}
    out: Set[str] = set()
    for match in HEADING.finditer(text):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    out.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", text))
    return out


def strip_fences(text: str) -> str:
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def check_links(root: str, name: str) -> Iterator[str]:
    path = os.path.join(root, name)
    text = strip_fences(open(path, encoding="utf-8").read())
    text = INLINE.sub("", text)  # `[x](y)` inside inline code is an example, not a link
    targets = [m.group(1) or m.group(2) for m in LINK.finditer(text)] + IMAGE.findall(text)
    for target in targets:
        target = target.strip("<>")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, …
            continue
        file_part, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(resolved):
            yield f"{name}: dead link {target} (no {os.path.relpath(resolved, root)})"
            continue
        if anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            yield f"{name}: dead link {target} (no heading #{anchor} in {os.path.relpath(resolved, root)})"


# -- references to sections by name ---------------------------------------------------------

# `docs/x.md, "Section"`, `README's "Section"`, `README.md, *Section*`, `performance.md, "Section"`.
SECTION_REFERENCE = re.compile(
    r"(?<![\w/.-])(README(?:\.md)?|(?:[\w.-]+/)*[\w.-]+\.md)(?:'s)?,?[ \t]+(?:section[ \t]+)?"
    r"(?:\"([^\"\n]+)\"|“([^”\n]+)”|\*([^*\n]+)\*)"
)
# A bare `docs/x.md#anchor`: in Markdown outside a link (links are checked above), elsewhere anywhere.
BARE_ANCHOR = re.compile(r"(?<![\w/.(-])((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)")
SOURCE_SUFFIXES = (".md", ".swift", ".py", ".sh")
# This script and its test write references of every form as examples, the test's on purpose broken.
SKIPPED_FILES = {"scripts/docs-check.py", "python/tests/test_docs_check.py"}
SKIPPED_FOLDERS = {".build", ".build-static", ".build-tsan", ".git", "node_modules", "__pycache__", ".mypy_cache"}


def source_files(root: str) -> Iterator[str]:
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS and not d.startswith(".build"))
        for file in sorted(files):
            name = os.path.relpath(os.path.join(folder, file), root)
            if (file.endswith(SOURCE_SUFFIXES) or file == "Makefile") and name not in SKIPPED_FILES:
                yield name


def heading_texts(path: str) -> List[str]:
    """The headings of a Markdown file as plain lower-case text (markup and links dropped)."""
    text = strip_fences(open(path, encoding="utf-8").read())
    plain = []
    for match in HEADING.finditer(text):
        heading = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", match.group(2))
        plain.append(" ".join(heading.split()).lower())
    return plain


def names_a_heading(section: str, headings: List[str]) -> bool:
    """Whether `section` is a heading, or the start of one up to a word's end ("Interference"
    for "Interference: 8 clients …")."""
    wanted = " ".join(section.split()).lower()
    return any(h == wanted or (h.startswith(wanted) and not h[len(wanted)].isalnum()) for h in headings)


def resolve_document(root: str, referrer: str, document: str) -> Optional[str]:
    """The Markdown file a reference names: README is the root's; a path with a folder is from
    the root (or, failing that, from the referring file's folder); a bare name is beside the
    referring file, else in docs/."""
    if document in {"README", "README.md"}:
        candidates = [os.path.join(root, "README.md")]
    elif "/" in document:
        candidates = [os.path.join(root, document), os.path.join(root, os.path.dirname(referrer), document)]
    else:
        candidates = [os.path.join(root, os.path.dirname(referrer), document), os.path.join(root, "docs", document)]
    return next((os.path.normpath(c) for c in candidates if os.path.isfile(c)), None)


def check_section_references(root: str, name: str) -> Iterator[str]:
    text = open(os.path.join(root, name), encoding="utf-8", errors="replace").read()
    is_markdown = name.endswith(".md")
    if is_markdown:
        text = strip_fences(text)
    for match in SECTION_REFERENCE.finditer(text):
        document = match.group(1)
        section = next(g for g in match.groups()[1:] if g is not None)
        line = text.count("\n", 0, match.start()) + 1
        path = resolve_document(root, name, document)
        if path is None:
            yield f"{name}:{line}: {document}, \"{section}\": no such file"
        elif not names_a_heading(section, heading_texts(path)):
            yield f"{name}:{line}: {document}, \"{section}\": no such heading in {os.path.relpath(path, root)}"
    scan = LINK.sub("", text) if is_markdown else text
    for match in BARE_ANCHOR.finditer(scan):
        document, anchor = match.group(1), match.group(2)
        path = resolve_document(root, name, document)
        if path is not None and anchor not in anchors(path):
            line = text.count("\n", 0, text.find(match.group(0))) + 1
            yield f"{name}:{line}: {document}#{anchor}: no such heading in {os.path.relpath(path, root)}"


# -- commands --------------------------------------------------------------------------------


class Programs:
    """What the built programs and the Makefile accept, read from their help and the Makefile."""

    def __init__(self, root: str, products: str) -> None:
        self.root = root
        self.products = products

    def help(self, program: str, *arguments: str) -> Optional[str]:
        path = os.path.join(self.products, program)
        if not os.access(path, os.X_OK):
            raise SystemExit(f"docs-check: {path} is not built (swift build --product {program})")
        run = subprocess.run([path, *arguments, "--help"], capture_output=True, text=True, timeout=30)
        return run.stdout if run.returncode == 0 else None

    @lru_cache(maxsize=None)
    def subcommands(self) -> Set[str]:
        text = self.help("accessoryctl") or ""
        section = text.split("SUBCOMMANDS:", 1)[1] if "SUBCOMMANDS:" in text else ""
        return set(re.findall(r"^\s{2}([a-z][a-z0-9-]*)", section, re.M))

    @lru_cache(maxsize=None)
    def options(self, program: str, subcommand: Optional[str] = None) -> Tuple[Set[str], Set[str]]:
        """The options, and those of them that take a value."""
        text = self.help(program, *([subcommand] if subcommand else [])) or ""
        # ArgumentParser's own options, which its help does not list.
        builtin = {"--help", "-h", "--version", "--generate-completion-script", "--experimental-dump-help"}
        names = set(OPTION.findall(text)) | builtin
        valued = set(re.findall(r"^\s+(?:-\w, )?(--[a-z0-9-]+) <", text, re.M)) | {"--generate-completion-script"}
        return names, valued

    @lru_cache(maxsize=None)
    def make_targets(self) -> Set[str]:
        text = open(os.path.join(self.root, "Makefile"), encoding="utf-8").read()
        return set(re.findall(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?!=)", text, re.M))


def command_lines(text: str) -> Iterator[str]:
    for match in FENCE.finditer(text):
        for line in match.group(2).splitlines():
            yield line
    for match in INLINE.finditer(strip_fences(text)):
        yield match.group(1)


def words(line: str) -> List[str]:
    line = line.split(" #", 1)[0]
    try:
        return shlex.split(line, comments=False)
    except ValueError:
        return line.split()


def check_commands(root: str, programs: Programs) -> Iterator[str]:
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    problems: List[str] = []
    for line in command_lines(text):
        tokens = words(line.lstrip("$ "))
        for index, token in enumerate(tokens):
            program = os.path.basename(token)
            rest = tokens[index + 1 :]
            for stop, word in enumerate(rest):
                if word in {"|", "||", "&&", ";", "&"} or word.startswith((">", "<", "2>")):
                    rest = rest[:stop]
                    break
            if program == "accessoryctl":
                problems += check_accessoryctl(rest, programs, line)
            elif program in {"accessoryd", "accessory-sim"}:
                known, _ = programs.options(program)
                problems += [
                    f"README.md: `{line.strip()}`: {program} has no option {word}"
                    for word in rest
                    if word.startswith("--") and word.split("=", 1)[0] not in known
                ]
            elif token == "make" and rest and index == 0:
                target = next((word for word in rest if "=" not in word and not word.startswith("-")), None)
                if target and re.fullmatch(r"[a-z][a-z0-9_-]*", target) and target not in programs.make_targets():
                    problems.append(f"README.md: `{line.strip()}`: the Makefile has no target {target}")
    yield from dict.fromkeys(problems)


def check_accessoryctl(rest: List[str], programs: Programs, line: str) -> List[str]:
    where = f"README.md: `{line.strip()}`"
    global_options, global_valued = programs.options("accessoryctl")
    problems = []
    index = 0
    while index < len(rest) and rest[index].startswith("-"):
        option = rest[index].split("=", 1)[0]
        if option not in global_options:
            problems.append(f"{where}: accessoryctl has no option {option}")
        index += 2 if option in global_valued and "=" not in rest[index] else 1
    if index >= len(rest):
        return problems
    subcommand = rest[index]
    if not re.fullmatch(r"[a-z][a-z0-9-]*", subcommand):
        return problems  # a placeholder (<command>, SUBCOMMAND, …)
    if subcommand not in programs.subcommands():
        return problems + [f"{where}: accessoryctl has no subcommand {subcommand}"]
    known, _ = programs.options("accessoryctl", subcommand)
    for word in rest[index + 1 :]:
        if word.startswith("--") and word.split("=", 1)[0] not in known | global_options:
            problems.append(f"{where}: accessoryctl {subcommand} has no option {word.split('=', 1)[0]}")
    return problems


# -- the module graph ------------------------------------------------------------------------

GRAPH_DOCUMENT = "docs/architecture.md"


def module_graph_script() -> Any:
    """scripts/module-graph.py as a module (its file name is not an identifier)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "module-graph.py")
    spec = importlib.util.spec_from_file_location("module_graph", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_module_graph(root: str) -> Iterator[str]:
    if not os.path.exists(os.path.join(root, "Package.swift")):
        return
    graph = module_graph_script()
    expected = graph.generated_block(graph.dump_package(root), root)
    path = os.path.join(root, GRAPH_DOCUMENT)
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    start, end = text.find(graph.BEGIN), text.find(graph.END)
    if start < 0 or end < start:
        yield f"{GRAPH_DOCUMENT}: no module graph between the markers of scripts/module-graph.py"
        return
    found = text[start : end + len(graph.END)] + "\n"
    if found != expected:
        line = text.count("\n", 0, start) + 1
        diff = difflib.unified_diff(
            found.splitlines(), expected.splitlines(), "in the document", "from Package.swift", lineterm="", n=0
        )
        changes = "\n    ".join(l for l in diff if not l.startswith(("---", "+++", "@@")))
        yield (
            f"{GRAPH_DOCUMENT}:{line}: the module graph is not Package.swift's "
            f"(write scripts/module-graph.py's output in its place):\n    {changes}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--products", required=True, help="the folder of the built programs")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    options = parser.parse_args()
    root = os.path.abspath(options.root)
    problems: List[str] = []
    names = documents(root)
    for name in names:
        problems += check_links(root, name)
    for name in source_files(root):
        problems += check_section_references(root, name)
    problems += check_commands(root, Programs(root, options.products))
    problems += check_module_graph(root)
    for problem in problems:
        print(f"docs-check: {problem}")
    if problems:
        print(f"docs-check: {len(problems)} problem(s) in {len(names)} documents")
        return 1
    print(
        f"docs-check: {len(names)} documents, their links, section references, README's commands "
        "and the module graph are fine"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
