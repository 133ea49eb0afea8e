"""scripts/docs-check.py (`make docs-check`): it passes on the repository as it is, and fails on
a dead link, a dead anchor, a reference to a section whose heading is gone, an unknown
accessoryctl subcommand or option, and an unknown make target, each named."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness import REPO, products

SCRIPT = REPO / "scripts" / "docs-check.py"


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--products", str(products()), "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_repository_passes() -> None:
    run = check(REPO)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "README's commands are fine" in run.stdout


def test_dead_links_and_unknown_commands_fail(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    # A Makefile with the one target the README below uses (the real one's comments name
    # documents this folder does not have).
    (tmp_path / "Makefile").write_text("test:\n\ttrue\n")
    (tmp_path / "docs" / "here.md").write_text("# Here\n\n## A section\n\nBack to [the README](../README.md).\n")
    (tmp_path / "README.md").write_text(
        "# Test\n\n"
        "See [here](docs/here.md), [its section](docs/here.md#a-section) and [the web](https://example.org).\n"
        "Gone: [old notes](docs/gone.md) and [no such part](docs/here.md#nowhere).\n\n"
        "```sh\n"
        "accessoryctl --socket /tmp/x.sock list\n"
        "accessoryctl transact modem ATI --timeout 500\n"
        "accessoryctl frobnicate modem\n"
        "accessoryctl transact modem ATI --no-such-option\n"
        "make test\n"
        "make no-such-target\n"
        "```\n\n"
        "Inline too: `accessoryctl --host ssh://h list` is fine, `accessoryctl teleport` is not.\n"
    )
    run = check(tmp_path)
    assert run.returncode == 1, run.stdout
    problems = [line for line in run.stdout.splitlines() if not line.endswith("documents")]
    assert any("dead link docs/gone.md" in line for line in problems), run.stdout
    assert any("dead link docs/here.md#nowhere" in line for line in problems), run.stdout
    assert any("no subcommand frobnicate" in line for line in problems), run.stdout
    assert any("no subcommand teleport" in line for line in problems), run.stdout
    assert any("accessoryctl transact has no option --no-such-option" in line for line in problems), run.stdout
    assert any("no target no-such-target" in line for line in problems), run.stdout
    assert len(problems) == 6, run.stdout  # the valid links and commands are not reported


def test_references_to_sections_whose_heading_is_gone_fail(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "Sources").mkdir()
    (tmp_path / "docs" / "here.md").write_text("# Here\n\n## A section: with more\n\nText.\n")
    (tmp_path / "README.md").write_text(
        "# Test\n\n## Numbers\n\n"
        'Fine: (docs/here.md, "A section"), the README\'s "Numbers" section, (here.md, *A section: with more*).\n'
        'Gone: (docs/here.md, "A sect"), the README\'s "Benchmarks" section, (docs/missing.md, "Anything").\n'
    )
    (tmp_path / "Sources" / "Thing.swift").write_text(
        '/// A thing (docs/here.md, "Nowhere"); fine: docs/here.md#a-section-with-more; gone: docs/here.md#nowhere.\n'
        "struct Thing {}\n"
    )
    (tmp_path / "Makefile").write_text('## The numbers (README, "Numbers").\ntest:\n\ttrue\n')
    run = check(tmp_path)
    assert run.returncode == 1, run.stdout
    problems = [line for line in run.stdout.splitlines() if not line.endswith("documents")]
    assert any('README.md:6: docs/here.md, "A sect": no such heading' in line for line in problems), run.stdout
    assert any('README.md:6: README, "Benchmarks": no such heading' in line for line in problems), run.stdout
    assert any('README.md:6: docs/missing.md, "Anything": no such file' in line for line in problems), run.stdout
    assert any('Sources/Thing.swift:1: docs/here.md, "Nowhere": no such heading' in line for line in problems), run.stdout
    assert any("Sources/Thing.swift:1: docs/here.md#nowhere: no such heading" in line for line in problems), run.stdout
    assert len(problems) == 5, run.stdout  # the references that still hold are not reported
