"""The layout stays true to the data flow: no import circle, imports run one way, modules stay small.

Every import counts, also those inside functions: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

from assistant.settings import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "assistant"
MAX_LINES = 450

# What each package may not import (by module-name prefix).
FORBIDDEN = {
    "assistant.library": ("assistant.answering", "assistant.app", "assistant.cli", "assistant.evaluation",
                          "assistant.components"),
    "assistant.backends": ("assistant.answering", "assistant.app", "assistant.cli", "assistant.evaluation",
                           "assistant.components", "assistant.library"),
    "assistant.answering": ("assistant.app", "assistant.cli", "assistant.evaluation", "assistant.components"),
    "assistant.evaluation": ("assistant.app", "assistant.cli"),
    "assistant.settings": ("assistant.",),
    "assistant.secrets": ("assistant.",),
}
# The composition root is imported only by the entry points.
ROOT_IMPORTERS = ("assistant.app", "assistant.cli", "assistant.evaluation")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PROJECT_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The project modules a file imports: `from a.b import c` is a.b.c when that is a module, else a.b."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("assistant"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("assistant"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                out.add(sub if sub in known else node.module)
    return out & known


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(path, known) - {name} for name, path in mods.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def in_package(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def violations(edges: dict[str, set[str]]) -> list[str]:
    bad = []
    for src, targets in edges.items():
        for dst in targets:
            for package, banned in FORBIDDEN.items():
                if in_package(src, package) and any(dst.startswith(b) or dst == b.rstrip(".") for b in banned):
                    bad.append(f"{src} imports {dst}")
            if dst == "assistant.components" and not any(in_package(src, p) for p in ROOT_IMPORTERS):
                bad.append(f"{src} imports the composition root")
    return sorted(set(bad))


def test_there_is_no_import_circle_between_modules():
    assert find_cycle(graph()) is None, " -> ".join(find_cycle(graph()) or [])


def test_imports_run_one_way_down_the_data_flow():
    assert violations(graph()) == []


def test_the_checks_catch_a_circle_and_a_wrong_direction():
    edges = {"assistant.library.store": {"assistant.answering.retrieval"},
             "assistant.answering.retrieval": {"assistant.library.store"}}
    assert find_cycle(edges) == [
        "assistant.answering.retrieval", "assistant.library.store", "assistant.answering.retrieval"]
    assert violations(edges) == ["assistant.library.store imports assistant.answering.retrieval"]
    assert violations({"assistant.answering.pipeline": {"assistant.components"}}) == [
        "assistant.answering.pipeline imports assistant.components",
        "assistant.answering.pipeline imports the composition root",
    ]


def test_pages_import_the_app_package_only():
    bad = []
    for page in [PROJECT_ROOT / "app.py", *sorted((PROJECT_ROOT / "pages").glob("*.py"))]:
        for node in ast.walk(ast.parse(page.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                if name.startswith("assistant") and not (name == "assistant" and _imports_app(node)) \
                        and not in_package(name, "assistant.app"):
                    bad.append(f"{page.name} imports {name}")
    assert bad == []


def _imports_app(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and [a.name for a in node.names] == ["app"]


def test_no_module_is_over_the_size_limit():
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules().items()}
    assert {n: s for n, s in sizes.items() if s > MAX_LINES} == {}


def test_each_package_says_what_flows_in_and_out():
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "in" in doc.lower() and "out" in doc.lower(), init
