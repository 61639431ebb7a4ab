"""Where the content store's retention comes from."""

from __future__ import annotations

import json

import pytest

from deep_research.persistence.content import store_ttl
from deep_research.settings import get_settings


def test_no_retention_unless_one_is_set() -> None:
    assert store_ttl() is None


def test_langgraph_json_store_ttl_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    store = {"path": "x.py:store", "ttl": {"default_ttl": 1440, "sweep_interval_minutes": 30}}
    monkeypatch.setenv("LANGGRAPH_STORE", json.dumps(store))
    get_settings.cache_clear()
    assert store_ttl() == {"default_ttl": 1440, "sweep_interval_minutes": 30}


def test_the_setting_wins_over_langgraph_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGGRAPH_STORE", json.dumps({"ttl": {"default_ttl": 1440}}))
    monkeypatch.setenv("DEEP_RESEARCH_STORE_TTL_MINUTES", "90")
    get_settings.cache_clear()
    ttl = store_ttl()
    assert ttl is not None and ttl["default_ttl"] == 90 and ttl["refresh_on_read"] is True
