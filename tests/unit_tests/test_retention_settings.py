"""Where the retention of checkpoints (on the server) and of the content store comes from."""

from __future__ import annotations

import json

import pytest

from deep_research.errors import ConfigurationError
from deep_research.persistence.content import store_ttl
from deep_research.persistence.purge import CheckpointRetention, checkpoint_retention
from deep_research.settings import get_settings


def test_no_retention_unless_one_is_set() -> None:
    assert store_ttl() is None
    assert checkpoint_retention() is None


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


def _langgraph_checkpointer(monkeypatch: pytest.MonkeyPatch, ttl: dict[str, object]) -> None:
    """What ``langgraph dev`` hands its process for ``checkpointer`` of ``langgraph.json``."""
    checkpointer = {"path": "./src/deep_research/persistence/server.py:checkpointer", "ttl": ttl}
    monkeypatch.setenv("LANGGRAPH_CHECKPOINTER", json.dumps(checkpointer))
    get_settings.cache_clear()


def test_langgraph_json_checkpointer_ttl_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    ttl = {"strategy": "delete", "default_ttl": 1440, "sweep_interval_minutes": 30}
    _langgraph_checkpointer(monkeypatch, ttl)
    assert checkpoint_retention() == CheckpointRetention(ttl_minutes=1440, sweep_minutes=30)


def test_checkpointer_ttl_without_strategy_or_interval_deletes_hourly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _langgraph_checkpointer(monkeypatch, {"default_ttl": 90})
    assert checkpoint_retention() == CheckpointRetention(ttl_minutes=90, sweep_minutes=60)


def test_the_checkpoint_settings_win_over_langgraph_json(monkeypatch: pytest.MonkeyPatch) -> None:
    _langgraph_checkpointer(monkeypatch, {"default_ttl": 1440, "sweep_interval_minutes": 30})
    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES", "90")
    monkeypatch.setenv("DEEP_RESEARCH_CHECKPOINT_SWEEP_MINUTES", "5")
    get_settings.cache_clear()
    assert checkpoint_retention() == CheckpointRetention(ttl_minutes=90, sweep_minutes=5)


def test_keep_latest_is_left_to_langgraph(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _langgraph_checkpointer(monkeypatch, {"strategy": "keep_latest", "default_ttl": 60})
    assert checkpoint_retention() is None
    assert "'keep_latest' is not applied" in caplog.text


@pytest.mark.parametrize(
    "ttl",
    [{"default_ttl": 0}, {"default_ttl": "60"}, {"default_ttl": 60, "sweep_interval_minutes": -1}],
)
def test_an_unusable_checkpointer_ttl_stops_the_server(
    monkeypatch: pytest.MonkeyPatch, ttl: dict[str, object]
) -> None:
    _langgraph_checkpointer(monkeypatch, ttl)
    with pytest.raises(ConfigurationError, match=r"checkpointer\.ttl\..* positive number"):
        checkpoint_retention()
