"""No import cycles in the package or its drivers, counting every import statement: the ones under `TYPE_CHECKING`
and the ones inside functions too. A cycle that only type checkers follow still ties two modules together (neither
can be understood, moved or tested without the other), and a deferred import that closes a cycle only hides it.

The graph is read from the source with `ast`, nothing is imported. `browser_toolset/drivers` is a link to the
top-level `drivers/`, whose modules are `browser_toolset.drivers.*` to everyone, so they are named that way here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "browser_toolset"

Graph = dict[str, set[str]]


def module_files() -> dict[str, Path]:
    """Every module of the package, by dotted name; the drivers under their package name."""
    files: dict[str, Path] = {}
    for top, folder in ((PACKAGE, ROOT / PACKAGE), (f"{PACKAGE}.drivers", ROOT / "drivers")):
        for path in sorted(folder.rglob("*.py")):
            relative = path.relative_to(folder)
            if top == PACKAGE and relative.parts[0] == "drivers":
                continue  # the link: read from drivers/ under the same names
            parts = [top, *relative.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


def _target(name: str, known: Mapping[str, Path]) -> str | None:
    """The package's own module `name` stands for: itself, or the nearest package above it that exists."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports_of(module: str, path: Path, known: Mapping[str, Path], root: str = PACKAGE) -> set[str]:
    """The modules of package `root` that `module` imports anywhere in its source."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            # `from package import module` imports the module; `from module import name` the module alone.
            names = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source for alias in node.names]
        else:
            continue
        for name in names:
            target = _target(name, known) if name.split(".")[0] == root else None
            if target is not None and target != module:
                found.add(target)
    return found


def import_graph() -> Graph:
    known = module_files()
    return {module: imports_of(module, path, known) for module, path in known.items()}


def cycles(graph: Graph) -> list[list[str]]:
    """One cycle through each group of modules that import each other (strongly connected components, Tarjan's
    algorithm without recursion), as the modules in import order with the first repeated at the end."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterable[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in graph:
                    continue
                if successor not in index:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return [_cycle_in(group, graph) for group in groups]


def _cycle_in(group: set[str], graph: Graph) -> list[str]:
    """A shortest cycle through the group's first module, found breadth-first inside the group."""
    first = min(group)
    parents: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for successor in sorted(graph[node] & group):
                if successor == first:
                    path = [node]
                    while path[-1] != first:
                        path.append(parents[path[-1]])
                    return [*reversed(path), first]
                if successor not in parents:
                    parents[successor] = node
                    following.append(successor)
        frontier = following
    raise AssertionError(f"no cycle through {first} in {sorted(group)}")


def _report(found: list[list[str]]) -> str:
    lines = [" -> ".join(cycle) for cycle in found]
    for line in lines:
        print(f"import cycle: {line}")
    return "import cycles:\n" + "\n".join(lines)


def test_the_cycle_finder_finds_cycles_and_nothing_else() -> None:
    graph: Graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e2"}, "e2": {"e"}, "f": {"d"}}
    assert sorted(cycles(graph)) == [["a", "b", "c", "a"], ["e", "e2", "e"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_relative_and_type_only_imports_are_edges(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from .one import One\n")
    (package / "one.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .two import Two\n")
    (package / "two.py").write_text("def later():\n    from pkg import one\n")
    known = {"pkg": package / "__init__.py", "pkg.one": package / "one.py", "pkg.two": package / "two.py"}
    graph = {module: imports_of(module, path, known, root="pkg") for module, path in known.items()}
    assert graph == {"pkg": {"pkg.one"}, "pkg.one": {"pkg.two"}, "pkg.two": {"pkg.one"}}
    assert cycles(graph) == [["pkg.one", "pkg.two", "pkg.one"]]


def test_the_graph_covers_the_package_and_the_drivers() -> None:
    graph = import_graph()
    assert {"browser_toolset", "browser_toolset.values", "browser_toolset.drivers.mock"} <= graph.keys()
    assert "browser_toolset.drivers.selenium.driver" in graph["browser_toolset.drivers.selenium"]
    assert "browser_toolset.drivers.selenium.connection" in graph["browser_toolset.drivers.selenium.errors"]
    assert "browser_toolset.values" in graph["browser_toolset.drivers.selenium.driver"]


def test_no_import_cycles_in_the_package_or_its_drivers() -> None:
    found = cycles(import_graph())
    assert not found, _report(found)
