"""The package's import graph, read from the source with `ast`: no module imports itself back
through others (a cycle means a module cannot be understood, or loaded, on its own), and no
package reaches into another's private names (a leading underscore is a promise to change freely).

Every import counts, a function's local ``import`` too: a local import only hides a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "shanghai_net"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / PACKAGE).rglob("*.py"))}


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def imports(modules: dict[str, Path]) -> list[tuple[str, str, str | None]]:
    """(importer, imported module, name or None) for every import of one of ``modules``.
    ``from package import name`` counts as importing the submodule ``name`` where there is one."""
    out = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                out += [(module, a.name, None) for a in node.names if a.name in modules]
            elif isinstance(node, ast.ImportFrom):
                target = _absolute(module, path.name == "__init__.py", node)
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in modules:
                        out.append((module, sub, None))
                    elif target in modules:
                        out.append((module, target, alias.name))
    return out


def _package(module: str) -> str:
    """The subpackage a module belongs to (``shanghai_net.rules``), or the module at the top."""
    parts = module.split(".")
    return ".".join(parts[:2])


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan), and self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                found.append(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _edges(found: list[tuple[str, str, str | None]]) -> dict[str, set[str]]:
    """Module -> the modules it imports (a package's ``__init__`` counts as the package)."""
    edges: dict[str, set[str]] = {}
    for importer, imported, _ in found:
        edges.setdefault(importer, set()).add(imported)
    return edges


def test_no_module_imports_itself_back():
    assert [sorted(c) for c in cycles(_edges(imports(_modules())))] == []


def test_no_package_imports_another_packages_private_names():
    private = {(a, b, name) for a, b, name in imports(_modules())
               if name and name.startswith("_") and not name.startswith("__")
               and _package(a) != _package(b)}
    assert private == set()


@pytest.mark.parametrize(("edges", "want"), [
    ({"a": {"b"}, "b": {"c"}}, []),
    ({"a": {"b"}, "b": {"a"}}, [frozenset("ab")]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [frozenset("abc")]),
    ({"a": {"a"}}, [frozenset("a")]),
])
def test_cycles_are_found(edges, want):
    assert cycles(edges) == want


def test_the_reader_sees_relative_and_local_imports(tmp_path):
    """The graph is read as Python reads the imports: relative to the module, in any scope."""
    pkg = tmp_path / "p"
    (pkg / "q").mkdir(parents=True)
    for name in ("p/__init__.py", "p/q/__init__.py"):
        (tmp_path / name).write_text("")
    (pkg / "q" / "a.py").write_text("from .b import thing\n")
    (pkg / "q" / "b.py").write_text("def f():\n    from ..c import _hidden\n")
    (pkg / "c.py").write_text("from .q import a\n")
    modules = {".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
               for p in tmp_path.rglob("*.py")}
    found = imports(modules)
    assert ("p.q.a", "p.q.b", "thing") in found
    assert ("p.q.b", "p.c", "_hidden") in found
    assert ("p.c", "p.q.a", None) in found
    assert cycles(_edges(found)) == [frozenset({"p.q.a", "p.q.b", "p.c"})]
