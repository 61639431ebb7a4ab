"""The data folder is resolved once, when the settings load, never by a request handler.

``langgraph dev`` refuses blocking calls inside async request handlers; resolving the relative
default ``.data`` there calls ``os.getcwd`` and made every run of a fresh ``make dev`` a 500.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deep_research.settings import Settings


def _refuse_getcwd() -> str:
    raise AssertionError("os.getcwd was called after the settings loaded")


def test_a_relative_data_dir_is_absolute_once_loaded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DEEP_RESEARCH_DATA_DIR", raising=False)
    monkeypatch.delenv("DEEP_RESEARCH_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    assert settings.data_dir == tmp_path.resolve() / ".data"


def test_the_default_database_url_needs_no_file_system_call(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DEEP_RESEARCH_DATA_DIR", raising=False)
    monkeypatch.delenv("DEEP_RESEARCH_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    settings = Settings()
    with monkeypatch.context() as patch:
        patch.setattr(os, "getcwd", _refuse_getcwd)
        url = settings.resolved_database_url
    assert url == f"sqlite:///{tmp_path.resolve() / '.data' / 'deep_research.sqlite'}"


def test_a_home_relative_data_dir_is_expanded(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("DEEP_RESEARCH_DATA_DIR", "~/research")
    assert Settings().data_dir == tmp_path.resolve() / "research"
