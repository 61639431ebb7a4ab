"""The notebooks are tests: each is executed top to bottom, on the offline engine.

``quickstart.ipynb`` runs in-process with its data in the test's data directory;
``server.ipynb`` talks to the test's ``langgraph dev`` (with auth), whose URL and a user's
token reach the kernel as ``DEEP_RESEARCH_SERVER_URL`` and ``DEEP_RESEARCH_TOKEN``. The
committed notebooks carry no outputs.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.integration_tests.conftest import AuthServer

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
CELL_TIMEOUT = 180


def _execute(name: str, workdir: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(workdir)}},
    )
    client.execute()
    return notebook


@pytest.mark.parametrize("name", ["quickstart.ipynb", "server.ipynb"])
def test_committed_notebooks_have_no_outputs(name: str) -> None:
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def test_quickstart_notebook_runs(tmp_path: Path) -> None:
    notebook = _execute("quickstart.ipynb", tmp_path)
    printed = "".join(
        output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", [])
    )
    assert "research_completed" not in printed  # only the chosen events are printed
    assert "plan_created" in printed and "SUPPORTED" in printed


@pytest.mark.server
def test_server_notebook_runs(
    auth_server: AuthServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DEEP_RESEARCH_SERVER_URL", auth_server.url)
    monkeypatch.setenv("DEEP_RESEARCH_TOKEN", auth_server.token("notebook-user"))
    notebook = _execute("server.ipynb", tmp_path)
    printed = "".join(
        output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", [])
    )
    assert "plan_reviewed" in printed and "Hornsdale Power Reserve cost" in printed
