"""The dev-server helper copies a langgraph.json with paths the server can resolve anywhere."""

from __future__ import annotations

import json
from pathlib import Path

from deep_research.server.devserver import portable_config

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_every_relative_path_of_the_project_config_is_made_absolute(tmp_path: Path) -> None:
    # langgraph dev resolves these against its working directory, which is not the repository.
    written = json.loads(portable_config(REPO_ROOT / "langgraph.json", tmp_path).read_text())

    specs = [
        *(g["path"] if isinstance(g, dict) else g for g in written["graphs"].values()),
        written["checkpointer"]["path"],
        written["store"]["path"],
        written["auth"]["path"],
        written["http"]["app"],
    ]
    files = [Path(spec.partition(":")[0]) for spec in specs]
    assert all(path.is_absolute() and path.exists() for path in files), specs
    assert written["graphs"]["deep_research"].endswith("src/deep_research/server/graph.py:graph")
    assert written["graphs"]["research"]["description"]  # a graph's object form keeps its fields
    assert written["source"] == {"kind": "uv", "root": str(REPO_ROOT)}  # installs by uv.lock
    assert "dependencies" not in written  # langgraph-cli refuses both
    assert written["auth"]["openapi"]["securitySchemes"]  # everything else is kept as it was


def test_specs_that_are_not_relative_paths_are_left_alone(tmp_path: Path) -> None:
    config = tmp_path / "src" / "langgraph.json"
    config.parent.mkdir()
    config.write_text(
        json.dumps(
            {
                "dependencies": ["langchain-openai", "."],
                "graphs": {"a": "some.module:graph", "b": "./graph.py:graph"},
            }
        )
    )

    written = json.loads(portable_config(config, tmp_path).read_text())

    assert written["dependencies"] == ["langchain-openai", str(config.parent)]
    assert written["graphs"] == {"a": "some.module:graph", "b": f"{config.parent}/graph.py:graph"}
