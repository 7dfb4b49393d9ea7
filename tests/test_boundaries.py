"""The project's import boundaries, read from the source with ast (imports inside functions count;
imports under ``if TYPE_CHECKING:`` do not, as they never run).

briefs/ renders documents only: it reads no database (no warehouse module, no SQL) and writes no
verdict word of its own; what it renders is computed in planning/.

The rooms depend one way:
cli, app -> briefs -> planning -> costmodel, warehouse -> pricing, benchmarks -> tokendesk
(the commands in cli/ may use every room but app/, and nothing imports them; audit/ may
depend on tokendesk only). Streamlit belongs to app/ alone, the warehouse imports neither benchmarks
nor pricing (whoever builds it hands it the seed's price check), no module imports another in a
circle, and no other installed distribution claims one of our top-level names.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Each room's layer: a room may import rooms of a lower layer and its own room, nothing above.
LAYERS: dict[str, int] = {
    "cli": 6,
    "app": 5,
    "briefs": 4,
    "planning": 3,
    "costmodel": 2,
    "warehouse": 2,
    "pricing": 1,
    "benchmarks": 1,
    "tokendesk": 0,
}
# Rooms with an explicit allow-list instead of a layer.
ALLOWED_ONLY: dict[str, set[str]] = {"audit": {"audit", "tokendesk"}}
# Rooms the warehouse must not reach even though they sit below it: it stores prices and results,
# it does not fetch or judge prices nor import or run benchmarks. (The price check the bundled seed
# must pass is handed to it by whoever builds it; see the test below.)
WAREHOUSE_MUST_NOT_IMPORT = {"benchmarks", "pricing"}
# The command room wires the rooms together (fetch -> check -> store): it may use any room but
# the dashboard, and nothing outside it imports it (it sits above every other room).
COMMANDS = "cli"

ROOMS = sorted([*LAYERS, *ALLOWED_ONLY])


def project_modules() -> dict[str, Path]:
    """Every module of every room that exists, by its import name."""
    modules: dict[str, Path] = {}
    for room in ROOMS:
        base = ROOT / room
        if not (base / "__init__.py").exists():
            continue
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


MODULES = project_modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _type_checking_only(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` except the bodies of ``if TYPE_CHECKING:`` blocks."""
    for child in ast.iter_child_nodes(node):
        if _type_checking_only(child):
            assert isinstance(child, ast.If)
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def imported_names(name: str) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import that runs, wherever it sits in the file."""
    tree = ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))
    package = name if _is_package(name) else name.rpartition(".")[0]
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, node.module] if node.module else anchor)
            else:
                base = node.module or ""
            yield base, node.lineno
            # `from pkg import sub` imports the submodule pkg.sub when there is one.
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    yield f"{base}.{alias.name}", node.lineno


def project_target(imported: str) -> str | None:
    """The project module an import resolves to (the longest known prefix), or None."""
    parts = imported.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def import_graph() -> dict[str, dict[str, int]]:
    graph: dict[str, dict[str, int]] = {name: {} for name in MODULES}
    for name in MODULES:
        for imported, line in imported_names(name):
            target = project_target(imported)
            if target and target != name:
                graph[name].setdefault(target, line)
    return graph


GRAPH = import_graph()


def find_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph[node]:
            if succ not in index:
                connect(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return components


def room(name: str) -> str:
    return name.split(".")[0]


def test_the_graph_sees_the_project() -> None:
    # A guard for the checks below: a parser that found nothing would pass them all.
    assert len(MODULES) > 50
    assert "tokendesk.records" in GRAPH["warehouse.store"] or any(
        room(t) == "tokendesk" for t in GRAPH["warehouse.store"]
    )


# A dashboard page is one thing in two files, its model and its view, and both carry its name.
PAGE_HALVES = ("app.models", "app.views")


def shared_file_names(paths: dict[str, Path]) -> dict[str, list[str]]:
    """File names that more than one module carries, with those modules (``__init__.py`` and a
    page's model + view pair apart): two jobs under one name are a wrong import away."""
    by_name: dict[str, list[str]] = {}
    for name, path in paths.items():
        if path.name != "__init__.py":
            by_name.setdefault(path.name, []).append(name)
    return {
        file: sorted(names)
        for file, names in by_name.items()
        if len(names) > 1 and not _one_page(names)
    }


def _one_page(names: list[str]) -> bool:
    return len(names) == 2 and sorted(n.rsplit(".", 1)[0] for n in names) == list(PAGE_HALVES)


def test_the_shared_name_finder_can_fail() -> None:
    found = shared_file_names(
        {
            "briefs.charts": Path("briefs/charts.py"),
            "app.charts": Path("app/charts.py"),
            "app.models.costs": Path("app/models/costs.py"),
            "app.views.costs": Path("app/views/costs.py"),
            "cli.costs": Path("cli/costs.py"),
            "app.models.prices": Path("app/models/prices.py"),
            "app.views.prices": Path("app/views/prices.py"),
            "pricing": Path("pricing/__init__.py"),
            "warehouse": Path("warehouse/__init__.py"),
        }
    )
    assert found == {
        "charts.py": ["app.charts", "briefs.charts"],
        "costs.py": ["app.models.costs", "app.views.costs", "cli.costs"],
    }


def test_no_file_name_appears_in_two_packages() -> None:
    shared = shared_file_names(MODULES)
    assert not shared, "one file name, several modules (rename each to what it does): " + "; ".join(
        f"{file}: {', '.join(names)}" for file, names in sorted(shared.items())
    )


def test_finds_a_cycle_when_there_is_one() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert find_cycles(graph) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b": 1}, "b": {}}) == []


def test_no_import_cycles() -> None:
    cycles = find_cycles(GRAPH)
    assert not cycles, "import cycles among project modules: " + "; ".join(
        " <-> ".join(c) for c in cycles
    )


def test_dependencies_point_one_way() -> None:
    wrong = []
    for name, targets in GRAPH.items():
        source = room(name)
        for target, line in targets.items():
            dest = room(target)
            if dest == source:
                continue
            if source in ALLOWED_ONLY:
                ok = dest in ALLOWED_ONLY[source]
            elif source == COMMANDS:
                ok = dest != "app"
            elif dest in ALLOWED_ONLY:
                ok = False
            else:
                ok = LAYERS[dest] < LAYERS[source]
            if source == "warehouse" and dest in WAREHOUSE_MUST_NOT_IMPORT:
                ok = False
            if not ok:
                wrong.append(f"{MODULES[name].relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "imports against the declared direction:\n" + "\n".join(wrong)


def _opens_a_warehouse(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "open"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "Warehouse"
    )


def test_every_warehouse_the_project_builds_checks_its_seed_prices() -> None:
    # The warehouse fills a new file from the bundled seed only when the caller hands it the price
    # integrity check; so every open in the project's code passes it, or says it builds nothing.
    wrong = []
    opens = 0
    for name, path in MODULES.items():
        if room(name) == "warehouse":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not _opens_a_warehouse(node):
                continue
            assert isinstance(node, ast.Call)
            opens += 1
            keywords = {k.arg: k.value for k in node.keywords}
            build = keywords.get("build")
            if "seed_check" in keywords or (
                isinstance(build, ast.Constant) and build.value is False
            ):
                continue
            wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert opens > 10  # a guard: finding no call at all would pass
    assert not wrong, "Warehouse.open without seed_check (or build=False): " + ", ".join(wrong)


def test_only_the_dashboard_imports_streamlit() -> None:
    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{line}"
        for name in MODULES
        if room(name) != "app"
        for imported, line in imported_names(name)
        if imported.split(".")[0] == "streamlit"
    ]
    assert not wrong, "streamlit imported outside app/: " + ", ".join(wrong)


@pytest.mark.parametrize("top_level", ROOMS)
def test_no_other_distribution_provides_our_names(top_level: str) -> None:
    providers = set(importlib.metadata.packages_distributions().get(top_level, []))
    assert providers <= {"tokendesk"}, f"{top_level!r} is also provided by {sorted(providers)}"


def test_the_cost_formula_has_one_home() -> None:
    # $/1K tokens = $/h ÷ (tok/s × 3.6) is written in tokendesk.metrics only; everything else uses
    # it (the SQL of the cost joins is generated from it). Prose may quote the figure.
    wrong = []
    for name, path in MODULES.items():
        if name == "tokendesk.metrics":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value == 3.6 and type(node.value) is float:
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            # Text pieces of strings and f-strings: "(tok/s * 3.6)" in SQL, "(upper bound for p95)".
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and ("* 3.6)" in node.value or "(upper bound for " in node.value)
            ):
                wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not wrong, (
        "the cost formula or FTL label written outside tokendesk.metrics: " + ", ".join(wrong)
    )


def test_the_percentile_list_has_one_home() -> None:
    # ("p50", "p90", "p95", "p99") is tokendesk.metrics.PERCENTILES; others import it.
    wrong = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for name, path in MODULES.items()
        if name != "tokendesk.metrics"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Tuple | ast.List)
        and [getattr(e, "value", None) for e in node.elts] == ["p50", "p90", "p95", "p99"]
    ]
    assert not wrong, "percentile list written outside tokendesk.metrics: " + ", ".join(wrong)


def test_tests_take_shared_data_from_helpers_not_from_other_tests() -> None:
    # Shared builders live in tests/factories.py (and small helper modules); a test module or a
    # conftest is never imported by another module.
    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                leaf = node.module.rsplit(".", 1)[-1]
                if node.module.startswith("tests") and (
                    leaf.startswith("test_") or leaf == "conftest"
                ):
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {node.module}")
    assert not wrong, "\n".join(wrong)


# -- briefs/ renders documents only ---------------------------------------------------------------
DOCUMENTS = "briefs"
#: What a module that reads a database imports: the warehouse room and the engine under it.
DATABASE_ROOMS = {"warehouse", "duckdb"}
#: A statement's keywords as SQL writes them (upper case), or a statement in lower case.
SQL = re.compile(
    r"\b(SELECT|FROM|WHERE|JOIN|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\b"
    r"|\bselect\b[^\n]*?\bfrom\b|\binsert\s+into\b|\bdelete\s+from\b|\bupdate\s+\w+\s+set\b"
    r"|\b(create|alter|drop)\s+(or\s+replace\s+)?(temp\w*\s+)?(table|view|index)\b",
)


def _all_imports(name: str) -> Iterator[tuple[str, int]]:
    """Every module ``name`` imports, ``if TYPE_CHECKING:`` blocks included."""
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module, node.lineno


def sql_strings(path: Path) -> list[int]:
    """The lines of the string constants in ``path`` that read as SQL."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.search(node.value)
    ]


def test_the_sql_finder_finds_the_warehouse_statements() -> None:
    # A guard for the test below: a finder that matched nothing would pass it.
    assert sql_strings(MODULES["warehouse.as_of"])
    assert not SQL.search("what changed from one date to the next, selected for the reader")


def test_briefs_read_no_database() -> None:
    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{line} imports {imported}"
        for name in MODULES
        if room(name) == DOCUMENTS
        for imported, line in _all_imports(name)
        if imported.split(".")[0] in DATABASE_ROOMS
    ]
    assert not wrong, "briefs/ renders what planning/ computed; it imports no database: " + (
        ", ".join(wrong)
    )


def test_briefs_hold_no_sql() -> None:
    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{line}"
        for name in MODULES
        if room(name) == DOCUMENTS
        for line in sql_strings(MODULES[name])
    ]
    assert not wrong, "SQL in briefs/ (the warehouse owns every statement): " + ", ".join(wrong)


def test_briefs_write_no_verdict_word() -> None:
    # keep / buy / no-buy / defer and their rules live in planning.verdicts; a brief imports them.
    from planning.verdicts import VERDICT_WORDS

    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{node.lineno}"
        for name in MODULES
        if room(name) == DOCUMENTS
        for node in ast.walk(ast.parse(MODULES[name].read_text()))
        if isinstance(node, ast.Constant) and node.value in VERDICT_WORDS
    ]
    assert not wrong, "a verdict word written in briefs/: " + ", ".join(wrong)


# Libraries that compute: a command that imports one is computing a figure itself, which the
# pages could then not show (the rooms compute; a command parses, calls them and prints).
COMPUTING_LIBRARIES = {"numpy", "pandas", "scipy"}


def _top_level_functions(name: str) -> set[str]:
    tree = ast.parse(MODULES[name].read_text())
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def computations_the_pages_import() -> dict[str, str]:
    """Every function or class app/ imports from another room: name -> the module defining it."""
    found: dict[str, str] = {}
    for name in MODULES:
        if room(name) != "app":
            continue
        for node in _runtime_nodes(ast.parse(MODULES[name].read_text())):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            if node.module not in MODULES or room(node.module) == "app":
                continue
            defined = _top_level_functions(node.module)
            found.update({a.name: node.module for a in node.names if a.name in defined})
    return found


def test_commands_import_no_computing_library() -> None:
    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{line} imports {imported}"
        for name in MODULES
        if room(name) == COMMANDS
        for imported, line in imported_names(name)
        if imported.split(".")[0] in COMPUTING_LIBRARIES
    ]
    assert not wrong, "a command computes (move it to a room the pages use):\n" + "\n".join(wrong)


def _command_callbacks(name: str) -> set[str]:
    """The functions a command module registers as commands: ``@x.command(...)`` above them or
    ``x.command(...)(function)``."""
    tree = ast.parse(MODULES[name].read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(
            isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "command"
            for d in node.decorator_list
        ):
            found.add(node.name)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Call)
            and getattr(node.func.func, "attr", "") == "command"
        ):
            found.update(a.attr if isinstance(a, ast.Attribute) else a.id for a in node.args)
    return found


def test_commands_define_nothing_the_pages_import() -> None:
    # A function a page imports from a room and a command module defining one of the same name
    # is the same computation written twice: the command must call the room's. (A command's own
    # callback may share a name, as `tokendesk gate` does with the plausibility gate.)
    shared = computations_the_pages_import()
    assert {"with_hour_split", "gate"} <= set(shared)  # a guard: finding nothing would pass
    callbacks = {name: _command_callbacks(name) for name in MODULES if room(name) == COMMANDS}
    assert {"gate", "costs", "run_cmd"} <= set().union(*callbacks.values())
    wrong = [
        f"{MODULES[name].relative_to(ROOT)} defines {defined} (see {shared[defined]})"
        for name, commands in callbacks.items()
        for defined in sorted((_top_level_functions(name) - commands) & set(shared))
    ]
    assert not wrong, "\n".join(wrong)


#: A command module's size, and a command function's, past which it is doing a room's work.
MAX_COMMAND_MODULE_LINES = 600
MAX_COMMAND_FUNCTION_LINES = 100


def long_functions(source: str) -> list[tuple[str, int, int]]:
    """(name, line, length) of every function over the limit with no comment just above it
    (above its decorators) saying why."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        length = (node.end_lineno or node.lineno) - start + 1
        explained = start >= 2 and lines[start - 2].lstrip().startswith("#")
        if length > MAX_COMMAND_FUNCTION_LINES and not explained:
            found.append((node.name, node.lineno, length))
    return found


def test_the_long_function_finder_can_fail() -> None:
    body = "\n".join(f"    x = {i}" for i in range(MAX_COMMAND_FUNCTION_LINES))
    assert long_functions(f"def f():\n{body}\n") == [("f", 1, MAX_COMMAND_FUNCTION_LINES + 1)]
    assert long_functions(f"# why it is long\ndef f():\n{body}\n") == []


def test_commands_are_small() -> None:
    wrong = []
    for name, path in MODULES.items():
        if room(name) != COMMANDS:
            continue
        source = path.read_text()
        if len(source.splitlines()) > MAX_COMMAND_MODULE_LINES:
            wrong.append(f"{path.relative_to(ROOT)}: over {MAX_COMMAND_MODULE_LINES} lines")
        wrong += [
            f"{path.relative_to(ROOT)}:{line} {function}: {length} lines, no comment says why"
            for function, line, length in long_functions(source)
        ]
    assert not wrong, "\n".join(wrong)
