"""Execute every teaching notebook in docs/notebooks (the README's test command runs them).

Notebooks are committed without outputs; each runs here in a fresh kernel, in a scratch
directory, and fails the test on the first cell that raises.
"""

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO / "docs" / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT_S = 300  # a notebook takes well under a minute on 2 cores; this only stops a hang


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 6, [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_committed_without_outputs(path):
    import nbformat  # here, not at import: every xdist worker collects this file, one runs it

    nb = nbformat.read(path, as_version=4)
    with_outputs = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and (cell.outputs or cell.execution_count)]
    assert not with_outputs, f"{path.name}: cells {with_outputs} carry outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_cell_has_a_unique_id(path):
    """nbformat 4.5 requires cell ids (a missing one is a warning now and an error in a later nbformat);
    read the raw JSON, since nbformat.read fills missing ids in silently."""
    cells = json.loads(path.read_text())["cells"]
    ids = [cell.get("id") for cell in cells]
    assert None not in ids, f"{path.name}: cells {[i for i, c in enumerate(ids) if c is None]} have no id"
    assert len(set(ids)) == len(ids), f"{path.name}: repeated cell ids"


@pytest.mark.slow  # 4-18 s each: the quick day-to-day run (-m "not slow") leaves them to .ci/run
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path, tmp_path):
    # The scratch folder mirrors a checkout: notebooks run in docs/notebooks (as the docs build runs them)
    # and read the stored experiment results at ../../experiments/results, here a link to the real ones,
    # so the cells that plot stored results run too; what a notebook writes stays in the scratch folder.
    import nbformat
    from nbclient import NotebookClient

    cwd = tmp_path / "docs" / "notebooks"
    cwd.mkdir(parents=True)
    (tmp_path / "experiments").symlink_to(REPO / "experiments", target_is_directory=True)
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
