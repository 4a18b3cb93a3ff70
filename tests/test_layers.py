"""The layers of docs/design.md, read from the source: imports go down only, and no cycle between subpackages.

verdicts, runtime (with errors, units, figure plumbing) < models < lenses (linear, phaseplane, packet) < cosim, network,
fct < applications (check, bifurcation, theorem1) < api < commands (and cli). Lazy imports count, and so
do plain ``import rcpstab.x`` statements: the graph is read from every import in the files, wherever it stands.
"""

import ast
import functools
import pathlib

import rcpstab

PACKAGE = pathlib.Path(rcpstab.__file__).parent

# lowest first; a part may import from its own rank and every rank below it, never above
RANKS = [
    {"errors", "units", "verdicts", "runtime", "figures", "figures_raster", "intervals"},
    {"models"},
    {"linear", "phaseplane", "packet"},
    {"cosim", "network", "fct", "plotting"},
    {"check", "bifurcation", "theorem1"},
    {"api"},
    {"commands", "cli", "__main__"},
]
# within a rank, these edges are the only ones allowed (the fluid lenses share the linear lens' grids;
# cosim is built on the multi-link fluid network and the flow simulator is fct's own)
SAME_RANK = {
    ("phaseplane", "linear"),
    ("packet", "phaseplane"),
    ("packet", "linear"),
    ("cosim", "network"),
    ("check", "bifurcation"),
    ("cli", "commands"),
    ("__main__", "cli"),
    ("runtime", "errors"),
    ("verdicts", "errors"),
    ("runtime", "units"),
    ("runtime", "verdicts"),
    ("check", "theorem1"),
    ("figures", "units"),
    ("figures", "runtime"),
    ("figures_raster", "runtime"),
}  # figures are written atomically (runtime.atomic)

# the packet lens' own layers, lowest first: each may import only from the ones before it
PACKET_LAYERS = ("wire", "routers", "hosts", "protocols", "simulator", "lens")


def _targets(node, parts, path):
    """The dotted module names (as lists) one import node reads from rcpstab."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = parts if path.name == "__init__.py" else parts[:-1]
            base = base[: len(base) - node.level + 1]
            module = base + (node.module.split(".") if node.module else [])
        elif node.module and node.module.split(".")[0] == "rcpstab":
            module = node.module.split(".")
        else:
            return []
        # `from .. import api` / `from rcpstab import api` read the part api, not only the package above it
        named = [module + [a.name] for a in node.names if _is_module(module + [a.name])]
        return [module, *named]
    elif isinstance(node, ast.Import):
        return [a.name.split(".") for a in node.names if a.name.split(".")[0] == "rcpstab"]
    return []


def _is_module(dotted):
    """True if the dotted name (a list starting at rcpstab) is a module or package of the source tree."""
    where = PACKAGE.parent.joinpath(*dotted)
    return where.is_dir() or where.with_suffix(".py").is_file()


def _statements(nodes):
    """Every statement in ``nodes`` and in the blocks nested in them (an import is a statement: the
    expressions, ~90% of the tree, need no visit)."""
    for node in nodes:
        yield node
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, block, None)
            if isinstance(inner, list):
                yield from _statements(inner)


@functools.cache
def _file_targets(path: pathlib.Path, parts: tuple[str, ...], text: str) -> tuple[tuple[str, ...], ...]:
    """Every module a source imports, read once per file and text (five tests read the same package)."""
    tree = ast.parse(text)
    return tuple(tuple(target) for node in _statements(tree.body) for target in _targets(node, list(parts), path))


def import_graph(package: pathlib.Path = PACKAGE, depth: int = 1) -> dict[str, set[str]]:
    """Part of ``package`` (``depth`` names below rcpstab) -> the other parts it imports from."""
    edges: dict[str, set[str]] = {}
    prefix = package.relative_to(PACKAGE.parent).parts
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if len(parts) < depth + 1:
            continue
        source = parts[depth]
        for target in _file_targets(path, tuple(parts), path.read_text()):
            if len(target) > depth and tuple(target[:depth]) == prefix and target[depth] != source:
                edges.setdefault(source, set()).add(target[depth])
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every elementary cycle through the graph's nodes, found by depth-first search from each node."""
    found = []
    for start in edges:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    found.append(path + [start])
                elif nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return found


def rank(part: str) -> int:
    for i, parts in enumerate(RANKS):
        if part in parts:
            return i
    raise AssertionError(f"rcpstab.{part} has no layer: add it to RANKS")


def test_reader_sees_imports_in_every_kind_of_block(tmp_path):
    # lazy imports count: the statement walk reaches every block a statement can stand in, as ast.walk does
    text = """
import rcpstab.a0
def f():
    import rcpstab.a1
    class C:
        def g(self):
            from rcpstab.a2 import z
if x:
    from rcpstab.a3 import y
elif z:
    import rcpstab.a4
else:
    import rcpstab.a5
for i in y:
    import rcpstab.a6
else:
    import rcpstab.a7
while w:
    import rcpstab.a8
else:
    import rcpstab.a9
try:
    import rcpstab.b0
except ImportError:
    import rcpstab.b1
else:
    import rcpstab.b2
finally:
    import rcpstab.b3
with open(p) as fh:
    async def h():
        async with q:
            import rcpstab.b4
        async for k in q:
            import rcpstab.b5
match v:
    case 1:
        import rcpstab.b6
try:
    pass
except* ValueError:
    import rcpstab.b7
s = "import rcpstab.not_code"
"""
    path = tmp_path / "rcpstab" / "m.py"
    found = {t[1] for t in _file_targets(path, ("rcpstab", "m"), text)}
    walked = {t[1] for node in ast.walk(ast.parse(text)) for t in _targets(node, ["rcpstab", "m"], path)}
    assert found == walked == {f"a{i}" for i in range(10)} | {f"b{i}" for i in range(8)}


def test_graph_reader_sees_a_cycle():
    # the detector itself: a planted two-node and three-node cycle are found, a chain is not
    assert cycles({"a": {"b"}, "b": {"a"}}) and cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    assert not cycles({"a": {"b"}, "b": {"c"}})


def test_reader_sees_relative_absolute_and_plain_imports(tmp_path):
    pkg = tmp_path / "rcpstab"
    (pkg / "a").mkdir(parents=True)
    (pkg / "a" / "__init__.py").write_text("from ..b import x\nimport rcpstab.c.d\nfrom rcpstab.e import f\n")
    tree = ast.parse((pkg / "a" / "__init__.py").read_text())
    parts = ["rcpstab", "a"]
    found = {t[1] for node in ast.walk(tree) for t in _targets(node, parts, pkg / "a" / "__init__.py")}
    assert found == {"b", "c", "e"}


def test_reader_sees_parts_imported_by_name_from_the_package():
    # `from .. import api` reads rcpstab.api: an upward import written that way must not hide (a name that is
    # not a module, like __version__, is not a part)
    path = PACKAGE / "verdicts" / "planted.py"
    text = "from .. import api\nfrom rcpstab import linear\nfrom . import judgement\nfrom .. import __version__\n"
    targets = _file_targets(path, ("rcpstab", "verdicts", "planted"), text)
    parts = {t[1] for t in targets if len(t) > 1}
    assert parts == {"api", "linear", "verdicts"}
    assert rank("api") > rank("verdicts") and rank("linear") > rank("verdicts")


def test_known_edges_are_read():
    edges = import_graph()
    assert "models" in edges["linear"] and "api" in edges["commands"] and "packet" in edges["cosim"]


def test_no_import_cycle_between_subpackages():
    assert cycles(import_graph()) == []


def test_every_part_has_a_layer():
    for path in PACKAGE.iterdir():
        if path.name.startswith(("_", ".")) and path.name != "__main__.py":
            continue
        if path.is_dir() and (path / "__init__.py").exists() or path.suffix == ".py":
            rank(path.stem)


def test_imports_go_down_the_layers():
    bad = []
    for source, targets in import_graph().items():
        for target in targets:
            if rank(target) > rank(source) or (rank(target) == rank(source) and (source, target) not in SAME_RANK):
                bad.append((source, target))
    assert bad == []


def test_commands_import_no_engine():
    # the command line is a thin shell over the API: it reads the API, errors, units and its own helpers only
    allowed = {"api", "errors", "units", "__init__"}
    bad = {}
    for source in ("commands", "cli"):
        extra = import_graph().get(source, set()) - allowed - {"commands", "cli"}
        if extra:
            bad[source] = extra
    assert bad == {}


def test_packet_layers_import_downwards_only():
    # wire <- routers <- hosts <- protocols <- simulator <- lens; the C module is the simulator's
    edges = import_graph(PACKAGE / "packet", depth=2)
    assert set(edges) >= {"routers", "protocols", "simulator", "lens"}  # the reader sees the subpackages
    edges.pop("__init__", None)  # the package's front door re-exports from every layer
    for source, targets in edges.items():
        allowed = set(PACKET_LAYERS[: PACKET_LAYERS.index(source)]) | ({"_datapath"} if source == "simulator" else set())
        assert targets <= allowed, (source, targets - allowed)
