"""The layers of DESIGN.md, read from the source: imports go down only, and no cycle between subpackages.

core (errors, core, models, figures, units) -> lenses (linearization, regions, phaseplane, reference_impl)
-> applications (everything else: check, network, commands, cli, ...). Lazy imports count: the
graph is read from every ``from ... import`` in the files, wherever it stands.
"""
import ast
import pathlib

import rcpstab

PACKAGE = pathlib.Path(rcpstab.__file__).parent
CORE = {"errors", "core", "models", "figures", "units"}
LENSES = {"linearization", "regions", "phaseplane", "reference_impl"}


# reference_impl's own layers, lowest first: each may import only from the ones before it
PACKET_LAYERS = ("wire", "routers", "hosts", "protocols", "simulator", "lens", "cosim")


def import_graph(package: pathlib.Path = PACKAGE, depth: int = 1) -> dict[str, set[str]]:
    """Subpackage of ``package`` -> the other subpackages (``depth`` parts below rcpstab) it imports from."""
    edges: dict[str, set[str]] = {}
    prefix = package.relative_to(PACKAGE.parent).parts
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if len(parts) < depth + 1:
            continue
        source = parts[depth]
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = parts[:-1]  # the package the file is in (for __init__.py, the package itself)
                target = base[: len(base) - node.level + 1] + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == "rcpstab":
                target = node.module.split(".")
            else:
                continue
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


def test_graph_reader_sees_a_cycle():
    # the detector itself: a planted two-node and three-node cycle are found, a chain is not
    assert cycles({"a": {"b"}, "b": {"a"}}) and cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    assert not cycles({"a": {"b"}, "b": {"c"}})


def test_known_edges_are_read():
    # relative and absolute imports are both seen (regions uses linearization; commands use models)
    edges = import_graph()
    assert "linearization" in edges["regions"] and "models" in edges["commands"]


def test_no_import_cycle_between_subpackages():
    assert cycles(import_graph()) == []


def test_core_imports_only_core():
    edges = import_graph()
    for part in CORE:
        assert edges.get(part, set()) <= CORE, (part, edges.get(part, set()) - CORE)


def test_lenses_import_no_application():
    edges = import_graph()
    for part in LENSES:
        assert edges.get(part, set()) <= CORE | LENSES, (part, edges.get(part, set()) - CORE - LENSES)


def test_packet_layers_import_downwards_only():
    # wire <- routers <- hosts <- protocols <- simulator <- lens <- cosim; the C modules are the simulator's
    edges = import_graph(PACKAGE / "reference_impl", depth=2)
    assert set(edges) >= {"routers", "protocols", "simulator", "lens", "cosim"}  # the reader sees the subpackages
    edges.pop("__init__", None)  # the package's front door re-exports from every layer
    for source, targets in edges.items():
        allowed = set(PACKET_LAYERS[: PACKET_LAYERS.index(source)]) | ({"_datapath", "_flows"} if source == "simulator" else set())
        assert targets <= allowed, (source, targets - allowed)
