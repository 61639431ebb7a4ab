"""Models by ``provider:model`` name, per-role models, and what a served run may pick."""

from __future__ import annotations

import json
import sys
import types
from typing import Any

import pytest
from langchain_openai import ChatOpenAI

from deep_research.context import Context
from deep_research.engines import load_engine
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.llm.providers import build_chat_model, model_label, split_model
from deep_research.engines.schemas import SearchQueries, StepNotes, VerdictBatch
from deep_research.errors import ConfigurationError, ModelNotAllowedError
from deep_research.services import Services
from deep_research.settings import get_settings
from deep_research.state.models import PlanStep

from .scripted_model import ScriptedChatModel, structured
from .test_structured_output import check, span


@pytest.mark.parametrize(
    ("spec", "split"),
    [
        ("gpt-4.1-mini", (None, "gpt-4.1-mini")),
        ("openai:gpt-4.1-mini", ("openai", "gpt-4.1-mini")),
        ("ollama:qwen3:8b", ("ollama", "qwen3:8b")),
        ("qwen3:8b", (None, "qwen3:8b")),  # an Ollama tag on an OpenAI-compatible server
        ("Anthropic:claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
        ("bedrock_converse:anthropic.claude-3", ("bedrock_converse", "anthropic.claude-3")),
        ("anthropic:", (None, "anthropic:")),
    ],
)
def test_split_model(spec: str, split: tuple[str | None, str]) -> None:
    assert split_model(spec) == split
    assert model_label(spec) == split[1]


def test_a_bare_name_and_openai_prefix_are_the_openai_compatible_endpoint() -> None:
    for spec in ("my-model", "openai:my-model"):
        model = build_chat_model(spec, api_key="sk-test", base_url="http://127.0.0.1:9/v1")
        assert isinstance(model, ChatOpenAI)
        assert model.model_name == "my-model"
        assert model.openai_api_base == "http://127.0.0.1:9/v1"


def test_a_provider_whose_package_is_missing_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "langchain_aws", None)  # importing it fails

    with pytest.raises(ConfigurationError) as raised:
        build_chat_model("bedrock_converse:amazon.nova-lite", api_key=None, base_url=None)

    assert str(raised.value) == (
        "model 'bedrock_converse:amazon.nova-lite' needs the langchain-aws package: "
        'pip install "deep-research[aws]"'
    )


class _FakeAnthropic:
    def __init__(self, **kwargs: Any) -> None:
        if "model" not in kwargs:
            raise ValueError("model is required")
        if kwargs["model"] == "no-key":
            raise ValueError("Did not find anthropic_api_key,\nplease set ANTHROPIC_API_KEY")
        self.kwargs = kwargs


def test_a_provider_prefix_builds_that_integration(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("langchain_anthropic")
    module.ChatAnthropic = _FakeAnthropic  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "langchain_anthropic", module)

    model: Any = build_chat_model("anthropic:claude-sonnet-4-5", api_key=None, base_url=None)

    assert isinstance(model, _FakeAnthropic)
    assert model.kwargs["model"] == "claude-sonnet-4-5"
    assert model.kwargs["max_retries"] == 2
    with pytest.raises(ConfigurationError, match=r"^could not set up model 'anthropic:no-key': "):
        build_chat_model("anthropic:no-key", api_key=None, base_url=None)


def _set(monkeypatch: pytest.MonkeyPatch, **variables: str) -> None:
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    load_engine.cache_clear()


def test_role_models_come_from_the_settings_and_the_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _set(
        monkeypatch,
        OPENAI_API_KEY="sk-test",
        DEEP_RESEARCH_MODEL="big",
        DEEP_RESEARCH_JUDGE_MODEL="small",
        DEEP_RESEARCH_STRUCTURED_OUTPUT="json",
    )

    engine = Services().engine_for(Context())
    assert isinstance(engine, LLMEngine)
    assert engine.structured == "json"
    assert {role: getattr(m, "model_name", None) for role, m in engine.roles.items()} == {
        "writer": "big",
        "judge": "small",
    }
    engine = Services().engine_for(Context(notes_model="tiny", judge_model="big"))
    assert isinstance(engine, LLMEngine)
    assert sorted(engine.roles) == ["notes", "writer"]  # the judge is the writer's model
    assert getattr(engine.roles["notes"], "model_name", None) == "tiny"


def test_offline_is_not_a_role_model(monkeypatch: pytest.MonkeyPatch) -> None:
    _set(monkeypatch, OPENAI_API_KEY="sk-test")
    with pytest.raises(ConfigurationError, match="must be models"):
        load_engine("big", judge_model="offline")


def test_a_served_run_may_pick_only_offered_role_models(monkeypatch: pytest.MonkeyPatch) -> None:
    _set(monkeypatch, OPENAI_API_KEY="sk-test", DEEP_RESEARCH_MODEL="big")
    served = Services(served=True)

    for field in ("model", "judge_model", "notes_model"):
        with pytest.raises(ModelNotAllowedError, match="'pricey'"):
            served.engine_for(Context(**{field: "pricey"}))
    _set(monkeypatch, DEEP_RESEARCH_JUDGE_MODEL="small", DEEP_RESEARCH_ALLOWED_MODELS="tiny")
    assert {"big", "small", "tiny", "offline"} <= get_settings().served_models
    engine = served.engine_for(Context(judge_model="tiny", notes_model="small"))
    assert isinstance(engine, LLMEngine)


async def test_the_check_of_a_served_context_covers_role_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from langgraph_sdk import Auth

    from deep_research.server.auth import check_context

    _set(monkeypatch, DEEP_RESEARCH_MODEL="big")
    await check_context({"model": "big", "judge_model": "offline"})
    for field in ("model", "judge_model", "notes_model"):
        with pytest.raises(Auth.exceptions.HTTPException) as refused:
            await check_context({field: "pricey"})
        assert refused.value.status_code == 403


async def test_each_role_asks_its_own_model() -> None:
    step = PlanStep(id="s1", title="Solar")
    writer = ScriptedChatModel(responses=[])
    notes = ScriptedChatModel(
        responses=[
            structured(SearchQueries, queries=["solar 2024"]),
            structured(StepNotes, notes="Grew [E1].", sufficient=True),
        ]
    )
    verdict = {"claim_id": "a", "verdict": "SUPPORTED", "confidence": 0.9}
    judge = ScriptedChatModel(responses=[structured(VerdictBatch, verdicts=[verdict])])
    engine = LLMEngine(writer, name="w", roles={"notes": notes, "judge": judge})

    assert (await engine.queries("q", step, [], 2)).value == ["solar 2024"]
    assert (await engine.notes("q", step, [span("Solar grew.")])).value.sufficient
    verdicts = (await engine.judge([check("a", "Solar grew.", "Solar grew.")])).value
    assert verdicts[0].checked_by == "model"
    assert (len(writer.calls), len(notes.calls), len(judge.calls)) == (0, 2, 1)


class _SdkError(Exception):
    """An error of a provider's own client, as an unmapped integration raises it."""


@pytest.fixture
def ollama_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded stand-in of the ``ollama`` client whose base error is :class:`_SdkError`."""
    monkeypatch.setitem(sys.modules, "ollama", types.SimpleNamespace(ResponseError=_SdkError))


def _raising(error: Exception) -> Any:
    def respond(messages: Any, tools: Any) -> Any:
        raise error

    return respond


async def test_errors_of_provider_clients_become_engine_errors_and_bugs_propagate(
    ollama_client: None,
) -> None:
    from deep_research.errors import EngineError

    engine = LLMEngine(ScriptedChatModel(responses=[_raising(_SdkError("model not found"))]), "m")
    with pytest.raises(EngineError, match="the model endpoint failed: _SdkError: model not found"):
        await engine.answer("q", [])

    engine = LLMEngine(ScriptedChatModel(responses=[_raising(KeyError("bug"))]), "m")
    with pytest.raises(KeyError):
        await engine.answer("q", [])


async def test_temperature_seed_and_each_roles_output_cap_reach_the_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 42 (5): no max_tokens was ever sent, and no run could be repeated."""
    import httpx

    from deep_research.engines.llm.providers import Sampling

    sent: list[dict[str, Any]] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        message = {"role": "assistant", "content": "ok"}
        return httpx.Response(
            200,
            json={
                "id": "c",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            },
        )

    async with httpx.AsyncClient(transport=httpx.MockTransport(endpoint)) as client:
        model = build_chat_model(
            "smollm2",
            api_key="sk-test",
            base_url="http://local.test/v1",
            http_async_client=client,
            sampling=Sampling(temperature=0.0, seed=7, max_tokens=300),
        )
        model.streaming = False  # type: ignore[attr-defined]
        await model.ainvoke("hi")

    (request,) = sent
    assert request["temperature"] == 0.0 and request["seed"] == 7
    # llama-cpp-python reads max_tokens only; OpenAI's name is sent too
    assert request["max_tokens"] == 300 and request["max_completion_tokens"] == 300

    _set(monkeypatch, OPENAI_API_KEY="sk-test", DEEP_RESEARCH_MODEL="big", DEEP_RESEARCH_SEED="3")
    engine = Services().engine_for(
        Context(temperature=0, writer_max_tokens=2000, judge_max_tokens=500)
    )
    assert isinstance(engine, LLMEngine)
    caps = {role: getattr(m, "max_tokens", None) for role, m in engine.roles.items()}
    assert caps == {"writer": 2000, "judge": 500, "notes": None}
    assert {getattr(m, "seed", None) for m in engine.roles.values()} == {3}  # from the settings
    assert {getattr(m, "temperature", None) for m in engine.roles.values()} == {0}


def test_sampling_settings_are_fields_of_the_studio_form() -> None:
    from pydantic import TypeAdapter

    from deep_research.context import Context as Knobs

    schema = TypeAdapter(Knobs).json_schema()
    for name in (
        "temperature",
        "seed",
        "writer_max_tokens",
        "judge_max_tokens",
        "notes_max_tokens",
    ):
        assert name in schema["properties"]
        assert schema["properties"][name].get("description")
