"""The floors of the pipeline, checked from the source text (independent of import-linter).

An import graph is built over every module of `grammar`, `lang`, `autodiff` and `backend`
from their syntax trees, counting imports written anywhere (inside functions too). It
must have no circle, no import may run against the floors' order (DESIGN.md, "Layout"),
and at most 10 imports of the project's own modules may be written inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("grammar", "lang", "autodiff", "backend")

#: Lowest floor first; a module belongs to the floor of its longest matching prefix.
FLOORS = ("grammar", "lang.core", "autodiff", "backend", "lang.door")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _targets(node: ast.AST, module: str, is_package: bool, known: dict[str, Path]) -> list[str]:
    """The project modules an import statement loads (the longest known prefix of each)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        base = node.module or ""
        if node.level:
            here = module.split(".") if is_package else module.split(".")[:-1]
            here = here[: len(here) - (node.level - 1)]
            base = ".".join(here + ([base] if base else []))
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    out = []
    for name in names:
        parts = name.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts:
            out.append(".".join(parts))
    return out


def _graph() -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """Edges module -> imported modules, and the imports written inside functions."""
    known = _modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    local: list[tuple[str, int, str]] = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))

        def visit(node: ast.AST, in_function: bool, module: str = module,
                  path: Path = path) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for target in _targets(child, module, path.name == "__init__.py", known):
                        if target != module:
                            edges[module].add(target)
                            if in_function:
                                local.append((module, child.lineno, target))
                inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
                visit(child, inner)

        visit(tree, False)
    return edges, local


def _floor(module: str) -> int:
    best = max((f for f in FLOORS if module == f or module.startswith(f + ".")), key=len,
               default=None)
    if best is None:  # a package's own __init__ (lang): above nothing, below nothing
        return -1
    return FLOORS.index(best)


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_sees_imports_inside_functions() -> None:
    """The checker itself: a circle made only by a function-local import is found."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(edges) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []
    tree = ast.parse("def f():\n    from lang.core import values\n")
    node = tree.body[0].body[0]  # type: ignore[attr-defined]
    assert _targets(node, "x", False, {"lang.core.values": ROOT}) == ["lang.core.values"]


def test_no_import_circle() -> None:
    edges, _ = _graph()
    assert len(edges) > 60  # the walk found the packages
    assert _circles(edges) == []


def test_every_import_runs_down_the_floors() -> None:
    edges, _ = _graph()
    upward = sorted(f"{m} -> {t}" for m, ts in edges.items() for t in ts
                    if _floor(m) >= 0 and _floor(t) > _floor(m))
    assert upward == []


def test_few_imports_inside_functions() -> None:
    _, local = _graph()
    assert len(local) <= 10, local


@pytest.mark.parametrize("package", ["grammar", "lang", "lang.core", "lang.door", "autodiff",
                                     "backend"])
def test_each_package_says_what_it_is(package: str) -> None:
    init = ROOT / package.replace(".", "/") / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert doc and "import" in doc.lower(), f"{init} needs a docstring naming what it may import"
