"""The layering contract covers the whole package.

import-linter (``make lint``) checks only the modules a contract names: a new top-level module
left out of the layers in pyproject.toml would be free to import anything, silently.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import deep_research

ROOT = Path(__file__).parents[2]
PACKAGE = Path(deep_research.__file__).parent
OUTSIDE_THE_LAYERS = {"__init__", "__main__"}
"""The package's own entry points, which may import from any layer."""


def _layered_modules() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["type"] == "layers"]
    names: set[str] = set()
    for layer in layers:
        for sibling in layer.replace("|", ":").split(":"):
            names.add(sibling.strip().removeprefix("deep_research."))
    return names


def test_every_top_level_module_is_in_a_layer() -> None:
    modules = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" or (path / "__init__.py").exists())
    }
    missing = modules - OUTSIDE_THE_LAYERS - _layered_modules()
    assert not missing, f"add these to the layers in pyproject.toml: {sorted(missing)}"


def test_the_layers_name_only_modules_that_exist() -> None:
    gone = {
        name
        for name in _layered_modules()
        if not (PACKAGE / f"{name}.py").exists() and not (PACKAGE / name).is_dir()
    }
    assert not gone, f"these layers name no module: {sorted(gone)}"
