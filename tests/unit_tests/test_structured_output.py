"""Structured output that survives the model: each malformed kind is re-asked or parsed anyway.

Every test scripts the replies an endpoint could give (truncated, refused, empty, text instead
of a tool call, invalid JSON, missing or extra fields, answers that do not fit what was asked)
and checks what :func:`attempt_structured` and the engine make of them.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage

from deep_research.engines.base import ClaimCheck
from deep_research.engines.llm.engine import LLMEngine
from deep_research.engines.llm.providers import build_chat_model
from deep_research.engines.llm.structured import attempt_structured, json_object
from deep_research.engines.llm.validation import verbatim
from deep_research.engines.offline.engine import OfflineEngine
from deep_research.engines.schemas import EvidencePicks, StepNotes, VerdictBatch
from deep_research.state.models import Claim, EvidenceSpan, Passage, PlanStep, Verdict

from .scripted_model import DEFAULT_USAGE, ScriptedChatModel, _usage, invalid_json, structured, text

STEP = PlanStep(id="s1", title="Solar", intent="capacity")
NOTES = {"notes": "Capacity doubled [E1].", "sufficient": True}
ASK = [HumanMessage("take notes")]


def truncated_call() -> AIMessage:
    """A tool call whose arguments stop mid-way because the output limit was reached."""
    message = invalid_json(StepNotes, '{"notes": "Capacity doub')
    message.response_metadata = {"finish_reason": "length"}
    return message


def refused() -> AIMessage:
    return AIMessage(
        content="",
        additional_kwargs={"refusal": "I can't help with that."},
        usage_metadata=_usage(DEFAULT_USAGE),
    )


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (truncated_call(), "were cut off at the output limit"),
        (refused(), "declined to answer (I can't help with that.)"),
        (text(""), "the reply was empty"),
        (text("I think the capacity doubled."), "text instead of a call to StepNotes"),
        (invalid_json(StepNotes), "not valid JSON"),
        (structured(StepNotes, notes="no flag"), "sufficient: Field required"),
        (structured(StepNotes, notes="Cites [E7].", sufficient=True), "notes cite E7"),
        (text('{"notes": ' + "[" * 60_000 + "]" * 60_000 + "}"), "text instead of"),
    ],
    ids=[
        "truncated",
        "refusal",
        "empty",
        "text",
        "invalid-json",
        "missing-field",
        "bad-key",
        "nested-60000-deep",
    ],
)
async def test_each_malformed_kind_is_re_asked_with_its_problem(
    bad: AIMessage, problem: str
) -> None:
    model = ScriptedChatModel(responses=[bad, structured(StepNotes, **NOTES)])
    engine = LLMEngine(model, name="m", structured="tools")

    reply = await engine.notes("q", STEP, [span("Capacity doubled in 2024.")])

    assert reply.value == StepNotes(**NOTES)
    assert not reply.fallback
    assert len(model.calls) == 2
    assert problem in str(model.calls[1][-1].content)
    assert reply.usage.calls == 2


def too_deep_to_parse(messages: Any, tools: Any) -> AIMessage:
    """An endpoint's tool call nested 60,000 deep: what the client's parse of it raises."""
    return json.loads("[" * 60_000 + "]" * 60_000)  # type: ignore[no-any-return]


async def test_a_tool_call_too_deep_for_the_client_to_parse_is_re_asked() -> None:
    model = ScriptedChatModel(responses=[too_deep_to_parse, structured(StepNotes, **NOTES)])
    engine = LLMEngine(model, name="m", structured="tools")

    reply = await engine.notes("q", STEP, [span("Capacity doubled in 2024.")])

    assert reply.value == StepNotes(**NOTES) and not reply.fallback
    assert "were not valid JSON" in str(model.calls[-1][-1].content)


async def test_extra_fields_are_ignored() -> None:
    model = ScriptedChatModel(responses=[structured(StepNotes, **NOTES, mood="cheerful")])

    result = await attempt_structured(model, StepNotes, ASK, mode="tools")

    assert result.value == StepNotes(**NOTES)
    assert result.attempts == 1


@pytest.mark.parametrize(
    "reply",
    [
        json.dumps(NOTES),
        f"Sure! Here it is:\n```json\n{json.dumps(NOTES)}\n```",
        f"<think>The user wants notes.</think>\n{json.dumps(NOTES)}",
        json.dumps({"name": "StepNotes", "arguments": NOTES}),
        json.dumps({"StepNotes": NOTES}),
    ],
    ids=["bare", "fenced", "thinking", "call-shaped", "wrapped"],
)
async def test_json_in_text_instead_of_a_tool_call_is_accepted(reply: str) -> None:
    model = ScriptedChatModel(responses=[text(reply)])

    result = await attempt_structured(model, StepNotes, ASK, mode="tools")

    assert result.value == StepNotes(**NOTES)
    assert result.attempts == 1


async def test_json_mode_binds_no_tools_and_parses_the_text() -> None:
    model = ScriptedChatModel(responses=[text("not json"), text(json.dumps(NOTES))])

    result = await attempt_structured(model, StepNotes, ASK, mode="json")

    assert result.value == StepNotes(**NOTES)
    assert result.mode == "json"
    assert all(kwargs.get("tools") is None for kwargs in model.call_kwargs)
    assert "one JSON object for StepNotes" in str(model.calls[0][-1].content)
    assert "text instead of one JSON object for StepNotes" in str(model.calls[1][-1].content)


async def test_auto_mode_falls_back_to_json_after_three_tool_attempts() -> None:
    model = ScriptedChatModel(
        responses=[text("no"), text("no"), text("no"), text(json.dumps(NOTES))]
    )

    result = await attempt_structured(model, StepNotes, ASK, mode="auto")

    assert result.value == StepNotes(**NOTES)
    assert (result.attempts, result.mode) == (4, "json")
    assert model.call_kwargs[2].get("tools") and model.call_kwargs[3].get("tools") is None


async def test_tools_mode_never_asks_in_json() -> None:
    model = ScriptedChatModel(responses=[text("no"), text("no"), text("no")])

    result = await attempt_structured(model, StepNotes, ASK, mode="tools")

    assert result.value is None
    assert result.attempts == 3
    assert "text instead of a call to StepNotes" in result.problem


async def test_an_endpoint_without_tool_calling_is_asked_in_json_at_once() -> None:
    requests: list[dict[str, Any]] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        requests.append(body)
        if body.get("tools"):
            error = {"message": "this model does not support tools", "type": "invalid_request"}
            return httpx.Response(400, json={"error": error})
        message = {"role": "assistant", "content": json.dumps(NOTES)}
        return httpx.Response(
            200,
            json={
                "id": "c",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10},
            },
        )

    async with httpx.AsyncClient(transport=httpx.MockTransport(endpoint)) as client:
        model = build_chat_model(
            "m", api_key="sk-test", base_url="http://fake.test/v1", http_async_client=client
        )
        model.streaming = False  # type: ignore[attr-defined]
        model.max_retries = 0  # type: ignore[attr-defined]
        reply = await LLMEngine(model, name="m").notes("q", STEP, [span("Capacity doubled.")])

    assert reply.value == StepNotes(**NOTES)
    assert [bool(r.get("tools")) for r in requests] == [True, False]


def span(quote: str, index: int = 1) -> EvidenceSpan:
    return EvidenceSpan(
        id=f"ev_{index}",
        url=f"https://example.org/{index}",
        document_id=f"doc_{index}",
        step_id="s1",
        quote=quote,
        start=0,
        end=len(quote),
    )


def check(claim_id: str, sentence: str, *quotes: str) -> ClaimCheck:
    claim = Claim(id=claim_id, text=sentence, position_start=0, position_end=len(sentence))
    return ClaimCheck(claim, [span(q, i) for i, q in enumerate(quotes, 1)])


def verdict(claim_id: str, **fields: Any) -> dict[str, Any]:
    return {"claim_id": claim_id, "verdict": "SUPPORTED", "confidence": 0.9, **fields}


async def test_a_judge_answering_about_other_claims_falls_back_to_the_offline_checker() -> None:
    """The observed failure: every id the judge answered with was one it had not been given."""
    checks = [
        check("cl_1", "Capacity doubled in 2024.", "Capacity doubled in 2024, the agency said."),
        check("cl_2", "Prices rose 5%.", "Prices fell 5% last year."),
    ]
    wrong = structured(VerdictBatch, verdicts=[verdict("claim_1"), verdict("claim_2")])
    model = ScriptedChatModel(responses=[wrong] * 5)

    reply = await LLMEngine(model, name="m").judge(checks)

    assert len(model.calls) == 3  # the calls fit the schema: no JSON mode
    assert [v.checked_by for v in reply.value] == ["fallback", "fallback"]
    offline = (await OfflineEngine().judge(checks)).value
    assert [v.verdict for v in reply.value] == [v.verdict for v in offline]
    assert reply.value[0].verdict is Verdict.SUPPORTED
    assert reply.fallback


async def test_verdicts_are_kept_across_attempts() -> None:
    checks = [check("a", "X rose.", "X rose."), check("b", "Y fell.", "Y fell.")]
    model = ScriptedChatModel(
        responses=[
            structured(VerdictBatch, verdicts=[verdict("a", evidence_key="E1")]),
            structured(VerdictBatch, verdicts=[verdict("b", verdict="PARTIAL")]),
        ]
    )

    reply = await LLMEngine(model, name="m").judge(checks)

    assert len(model.calls) == 2
    assert "no usable verdict yet for claims b" in str(model.calls[1][-1].content)
    assert [(v.verdict, v.checked_by) for v in reply.value] == [
        (Verdict.SUPPORTED, "model"),
        (Verdict.PARTIAL, "model"),
    ]
    assert not reply.fallback


async def test_a_quote_not_in_the_evidence_is_re_asked() -> None:
    checks = [check("a", "Output grew.", "Output grew by 5% in 2024.")]
    model = ScriptedChatModel(
        responses=[
            structured(VerdictBatch, verdicts=[verdict("a", evidence_key="E1", quote="grew 7%")]),
            structured(
                VerdictBatch, verdicts=[verdict("a", evidence_key="E1", quote="grew by 5%")]
            ),
        ]
    )

    reply = await LLMEngine(model, name="m").judge(checks)

    assert "the quote is not verbatim in E1" in str(model.calls[1][-1].content)
    assert reply.value[0].quote == "grew by 5%"
    assert reply.value[0].checked_by == "model"


def test_verbatim_ignores_case_spacing_quote_styles_and_ellipses() -> None:
    passage = "The “Hornsdale” reserve  stores 194 MWh,\nthe operator said in 2023."
    assert verbatim('the "hornsdale" reserve stores 194 MWh', passage)
    assert verbatim("Hornsdale… said in 2023.", passage)
    assert not verbatim("stores 195 MWh", passage)
    assert not verbatim("said in 2023 … Hornsdale", passage)


def test_json_object_raises_without_json() -> None:
    with pytest.raises(ValueError, match="no JSON object"):
        json_object("just words {not json}")


def passage(i: int, text: str) -> Passage:
    return Passage(
        id=f"p{i}",
        document_id=f"d{i}",
        url=f"https://example.org/{i}",
        start=0,
        end=len(text),
        text=text,
    )


async def test_picks_that_copy_nothing_are_re_asked_and_unknown_passages_dropped() -> None:
    passages = [passage(1, "Hornsdale stores 194 MWh. It opened in 2017."), passage(2, "LFP.")]
    invented = {"passage": "P1", "quote": "Hornsdale is on the Moon.", "relevance": 0.9}
    unknown = {"passage": "P7", "quote": "Hornsdale stores 194 MWh.", "relevance": 0.9}
    good = {"passage": "P1", "quote": "It opened in 2017.", "relevance": 0.4}
    model = ScriptedChatModel(
        responses=[
            structured(EvidencePicks, quotes=[invented, unknown]),
            structured(EvidencePicks, quotes=[invented, unknown, good]),
        ]
    )

    reply = await LLMEngine(model, name="m").pick_evidence("q", STEP, ["q"], passages)

    retry = str(model.calls[1][-1].content)
    assert "passage P7 was not shown" in retry and "quote from P1 is not copied" in retry
    # one usable pick is enough: unknown passages are dropped, the invented quote is left for
    # the caller, which cannot locate it and counts it dropped
    assert [q.quote for q in reply.value] == [invented["quote"], good["quote"]]


async def test_picks_the_model_never_gives_are_the_offline_windows() -> None:
    passages = [passage(1, "Solar capacity doubled in 2024. Prices fell.")]
    model = ScriptedChatModel(responses=[text("no")] * 5)

    reply = await LLMEngine(model, name="m").pick_evidence("solar", STEP, ["solar"], passages)

    offline = await OfflineEngine().pick_evidence("solar", STEP, ["solar"], passages)
    assert reply.fallback and reply.value == offline.value


async def test_an_answer_naming_none_of_the_fields_is_no_answer() -> None:
    """Every field of EvidencePicks has a default: ``{"unexpected": 1}`` would pick nothing."""
    bad = AIMessage(
        "", tool_calls=[{"name": "EvidencePicks", "args": {"unexpected": 1}, "id": "c"}]
    )
    model = ScriptedChatModel(responses=[bad, structured(EvidencePicks, quotes=[])])

    result = await attempt_structured(model, EvidencePicks, ASK, mode="tools")

    assert result.value == EvidencePicks(quotes=[]) and result.attempts == 2
    assert "name none of its fields (quotes)" in str(model.calls[1][-1].content)


async def test_an_empty_report_is_asked_again_then_written_offline() -> None:
    evidence = [span("Capacity doubled in 2024, the agency said.")]
    model = ScriptedChatModel(responses=[text(""), text("## Solar\n\nCapacity doubled [E1].")])

    reply = await LLMEngine(model, name="m").write_report("q", "b", [STEP], evidence)

    assert reply.value == "## Solar\n\nCapacity doubled [E1]." and not reply.fallback
    assert reply.usage.calls == 2

    model = ScriptedChatModel(responses=[text("  "), text("")])
    reply = await LLMEngine(model, name="m").write_report("q", "b", [STEP], evidence)

    offline = await OfflineEngine().write_report("q", "b", [STEP], evidence)
    assert reply.fallback and reply.value == offline.value and reply.value.strip()
