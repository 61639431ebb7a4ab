"""The typed interrupts: clarification answers and plan reviews (approve, add, remove, reword)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from deep_research.context import Context
from deep_research.engines import OfflineEngine
from deep_research.graph import build_graph
from deep_research.nodes.review_plan import apply_plan_edits
from deep_research.persistence.checkpointer import make_serde
from deep_research.report.chat import chat_markdown
from deep_research.sources import SAMPLE_CORPUS, LocalCorpus
from deep_research.sources.local import default_index_path
from deep_research.state import PlanStep
from deep_research.state.interrupts import (
    ClarificationRequest,
    PlanReviewRequest,
    parse_clarification_answer,
)

PLAN = [
    PlanStep(id="s01", title="LFP cost", intent="cost per kWh", evidence_needed="prices"),
    PlanStep(id="s02", title="NMC cost", intent="cost of NMC"),
    PlanStep(id="s03", title="Fire safety", intent="incidents"),
]


def test_a_clarification_answer_is_a_string_or_an_answer_object() -> None:
    assert parse_clarification_answer("  costs ") == "costs"
    assert parse_clarification_answer({"answer": "safety"}) == "safety"
    assert parse_clarification_answer(None) == ""
    for bad in (42, ["costs"], {"text": "costs"}, {"answer": "x" * 5000}):
        with pytest.raises(ValueError):
            parse_clarification_answer(bad)


@pytest.mark.parametrize("approval", [None, True, "", "approve", " OK ", {"approve": True}])
def test_approval_keeps_the_plan(approval: Any) -> None:
    assert apply_plan_edits(PLAN, approval) == PLAN


def test_edits_add_remove_and_reword_steps_in_the_order_given() -> None:
    edited = apply_plan_edits(
        PLAN,
        {
            "steps": [
                {"id": "s03", "title": "Thermal runaway incidents"},  # reworded, moved first
                "Hornsdale Power Reserve cost",  # added as a title
                {"title": "Recycling", "intent": "end of life"},  # added with an intent
                {"id": "s01"},  # kept as it was; s02 is removed
            ]
        },
    )
    assert [(s.id, s.title) for s in edited] == [
        ("s01", "Thermal runaway incidents"),
        ("s02", "Hornsdale Power Reserve cost"),
        ("s03", "Recycling"),
        ("s04", "LFP cost"),
    ]
    assert edited[0].intent == "incidents"  # a reworded step keeps what was not changed
    assert edited[2].intent == "end of life"
    assert edited[3].evidence_needed == "prices"


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ({"steps": []}, "at least one step"),
        ({"steps": [{"id": "s09", "title": "x"}]}, "no step 's09'"),
        ({"steps": [{"id": "s01"}, {"id": "s01"}]}, "appears twice"),
        ({"steps": [{"intent": "no title"}]}, "needs a title"),
        ({"steps": ["  "]}, "needs a title"),
        ({"steps": ["a", "b", "c", "d"]}, "at most 3 steps"),
        ({"approve": False}, "approve"),
        ({"steps": ["a"], "extra": 1}, "extra"),
        ("rewrite everything", "not an approval"),
        (7, "PlanReviewResponse"),
    ],
)
def test_invalid_reviews_are_refused_with_a_reason(response: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        apply_plan_edits(PLAN, response, max_steps=3)


def test_payloads_are_the_typed_models_dumped() -> None:
    request = PlanReviewRequest(brief="b", steps=PLAN, max_steps=3)
    payload = request.model_dump(mode="json")
    assert payload["type"] == "plan_review" and payload["error"] is None
    assert payload["steps"][0] == {
        "id": "s01",
        "title": "LFP cost",
        "intent": "cost per kWh",
        "evidence_needed": "prices",
        "round": 1,
        "replaced": False,
        "replaced_by": None,
    }
    assert PlanReviewRequest.model_validate(payload) == request
    question = ClarificationRequest(question="Which chemistry?").model_dump(mode="json")
    assert question == {"type": "clarification", "question": "Which chemistry?", "error": None}


def test_payloads_also_have_the_human_in_the_loop_shape() -> None:
    """The keys the CLI, Studio and the web app read stay; LangChain's HITL keys are added."""
    asked = ClarificationRequest(question="Which chemistry?", error="too long").payload()
    assert {k: asked[k] for k in ("type", "question", "error")} == {
        "type": "clarification",
        "question": "Which chemistry?",
        "error": "too long",
    }
    [action] = asked["action_requests"]
    assert action["name"] == "clarifying_question" and action["args"] == {"answer": ""}
    assert action["arguments"] == action["args"]  # where Agent Inbox reads them
    assert (
        action["description"].startswith("Which chemistry?") and "too long" in action["description"]
    )
    [review] = asked["review_configs"]
    assert review["action_name"] == "clarifying_question"
    assert {"edit", "respond", "approve"} <= set(review["allowed_decisions"])

    request = PlanReviewRequest(brief="What do batteries cost?", steps=PLAN, max_steps=3)
    shown = request.payload()
    assert (
        PlanReviewRequest.model_validate(
            {k: v for k, v in shown.items() if k not in ("action_requests", "review_configs")}
        )
        == request
    )
    [action] = shown["action_requests"]
    assert action["name"] == "review_plan"
    assert action["args"] == {"steps": [{"id": s.id, "title": s.title} for s in PLAN]}
    assert action["arguments"] == action["args"]
    assert "s02. NMC cost" in action["description"]
    assert shown["review_configs"] == [
        {"action_name": "review_plan", "allowed_decisions": ["approve", "edit"]}
    ]


@pytest.mark.parametrize(
    ("decision", "answer"),
    [
        ({"type": "approve"}, ""),
        ({"type": "edit", "edited_action": {"name": "x", "args": {"answer": " LFP "}}}, "LFP"),
        ({"type": "respond", "message": "grid costs"}, "grid costs"),
        ({"type": "reject", "message": "safety only"}, "safety only"),
    ],
)
def test_a_clarification_is_answered_by_a_hitl_decision(decision: Any, answer: str) -> None:
    assert parse_clarification_answer({"decisions": [decision]}) == answer


@pytest.mark.parametrize(
    ("response", "answer"),
    [
        ({"type": "accept", "args": None}, ""),
        ({"type": "ignore", "args": None}, ""),
        ({"type": "response", "args": "grid costs"}, "grid costs"),
        ({"type": "edit", "args": {"action": "x", "args": {"answer": "LFP"}}}, "LFP"),
    ],
)
def test_agent_inbox_responses_answer_the_clarification(response: Any, answer: str) -> None:
    assert parse_clarification_answer([response]) == answer


def test_agent_inbox_responses_review_the_plan() -> None:
    assert apply_plan_edits(PLAN, [{"type": "accept", "args": None}]) == PLAN
    edit = {"type": "edit", "args": {"action": "review_plan", "args": {"steps": "A\nB"}}}
    assert [s.title for s in apply_plan_edits(PLAN, [edit])] == ["A", "B"]
    with pytest.raises(ValueError, match="decision"):
        apply_plan_edits(PLAN, [{"type": "response", "args": "shorter"}])


@pytest.mark.parametrize(
    "steps",
    [
        [{"id": "s03"}, "Recycling"],
        '[{"id": "s03"}, "Recycling"]',  # chat clients edit arguments as text
    ],
)
def test_a_plan_is_edited_by_a_hitl_decision(steps: Any) -> None:
    edit = {"type": "edit", "edited_action": {"name": "review_plan", "args": {"steps": steps}}}
    edited = apply_plan_edits(PLAN, {"decisions": [edit]})
    assert [s.title for s in edited] == ["Fire safety", "Recycling"]
    lines = {"type": "edit", "edited_action": {"args": {"steps": "Cost\n\nSafety\n"}}}
    assert [s.title for s in apply_plan_edits(PLAN, {"decisions": [lines]})] == ["Cost", "Safety"]
    assert apply_plan_edits(PLAN, {"decisions": [{"type": "approve"}]}) == PLAN


@pytest.mark.parametrize(
    "response",
    [
        {"decisions": []},
        {"decisions": [{"type": "approve"}, {"type": "approve"}]},
        {"decisions": [{"type": "reject", "message": "no"}]},
        {"decisions": [{"type": "edit"}]},
        {"decisions": ["approve"]},
    ],
)
def test_invalid_hitl_decisions_are_refused(response: Any) -> None:
    with pytest.raises(ValueError, match="decision"):
        apply_plan_edits(PLAN, response)


async def test_an_invalid_review_asks_again_and_a_valid_edit_is_researched(
    tmp_path: Any,
) -> None:
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(allow_clarification=False, review_plan=True, depth="light")
    question = {"messages": [HumanMessage("How did grid battery prices fall?")]}
    first = await graph.ainvoke(question, config, context=context)
    proposed = first["__interrupt__"][0].value
    assert proposed["type"] == "plan_review" and proposed["error"] is None

    again = await graph.ainvoke(
        Command(resume={"steps": [{"id": "nope"}]}), config, context=context
    )
    payload = again["__interrupt__"][0].value
    assert "no step 'nope'" in payload["error"]
    assert payload["steps"] == proposed["steps"]

    kept = proposed["steps"][0]["id"]
    events: list[dict[str, Any]] = []
    edit = {"steps": [{"id": kept, "title": "Lithium-ion battery pack prices"}, "Hornsdale cost"]}
    async for chunk in graph.astream(
        Command(resume=edit), config, context=context, stream_mode="custom"
    ):
        events.append(chunk)
    state = (await graph.aget_state(config)).values
    assert [s.title for s in state["plan"]] == ["Lithium-ion battery pack prices", "Hornsdale cost"]
    assert {f.step_id for f in state["findings"]} == {"s01", "s02"}
    assert state["report"] is not None
    reviewed = [e["data"] for e in events if e["type"] == "plan_reviewed"]
    assert reviewed == [
        {
            "edited": True,
            "steps": [
                {"id": "s01", "title": "Lithium-ion battery pack prices"},
                {"id": "s02", "title": "Hornsdale cost"},
            ],
        }
    ]


async def test_an_invalid_clarification_answer_asks_again(tmp_path: Any) -> None:
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(depth="light")
    first = await graph.ainvoke({"messages": [HumanMessage("batteries")]}, config, context=context)
    asked = first["__interrupt__"][0].value
    assert asked["type"] == "clarification"
    assert (await graph.aget_state(config)).next == ("ask_clarification",)

    again = await graph.ainvoke(Command(resume=["not", "text"]), config, context=context)
    assert again["__interrupt__"][0].value["question"] == asked["question"]
    assert again["__interrupt__"][0].value["error"]

    done = await graph.ainvoke(Command(resume={"answer": "grid costs"}), config, context=context)
    assert done["report"] is not None
    state = (await graph.aget_state(config)).values
    assert state["clarification"] == "grid costs" and state["clarifying_question"] == ""
    assert [m.content for m in state["messages"][-3:-1]] == [asked["question"], "grid costs"]


async def test_the_question_is_in_the_chat_and_a_plain_message_answers_it(tmp_path: Any) -> None:
    """As agent-chat-ui does: the question shows as a message, the reply comes as new input."""
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(depth="light")
    first = await graph.ainvoke({"messages": [HumanMessage("batteries")]}, config, context=context)
    asked = first["__interrupt__"][0].value
    paused = (await graph.aget_state(config)).values
    assert [(m.type, m.content) for m in paused["messages"]] == [
        ("human", "batteries"),
        ("ai", asked["question"]),
    ]

    done = await graph.ainvoke(
        {"messages": [HumanMessage([{"type": "text", "text": "grid storage costs"}])]},
        config,
        context=context,
    )
    assert "__interrupt__" not in done and done["report"] is not None
    state = (await graph.aget_state(config)).values
    assert state["question"] == "batteries" and state["clarification"] == "grid storage costs"
    assert state["question_nr"] == 1  # the same question, answered, not a new one
    assert [m.type for m in state["messages"]] == ["human", "ai", "human", "ai"]
    assert state["messages"][-1].content == chat_markdown(done["report"].markdown)


async def test_a_thread_paused_before_the_question_was_in_the_chat_gets_it(
    tmp_path: Any,
) -> None:
    """Threads paused by an earlier version have the question only in the interrupt."""
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(depth="light")
    first = await graph.ainvoke({"messages": [HumanMessage("batteries")]}, config, context=context)
    question = first["__interrupt__"][0].value["question"]
    paused = (await graph.aget_state(config)).values["messages"]
    await graph.aupdate_state(config, {"messages": [RemoveMessage(id=paused[-1].id)]})
    await graph.ainvoke(Command(resume="grid costs"), config, context=context)
    messages = (await graph.aget_state(config)).values["messages"]
    assert [m.text for m in messages[:3]] == ["batteries", question, "grid costs"]


async def test_a_hitl_decision_resumes_the_graph(tmp_path: Any) -> None:
    corpus = LocalCorpus(SAMPLE_CORPUS, default_index_path(tmp_path, SAMPLE_CORPUS))
    graph = build_graph(
        engine=OfflineEngine(), sources=[corpus], checkpointer=InMemorySaver(serde=make_serde())
    )
    config: Any = {"configurable": {"thread_id": uuid.uuid4().hex}}
    context = Context(depth="light", review_plan=True)
    first = await graph.ainvoke({"messages": [HumanMessage("batteries")]}, config, context=context)
    assert first["__interrupt__"][0].value["action_requests"][0]["name"] == "clarifying_question"
    answer = {"type": "respond", "message": "grid storage costs"}
    review = await graph.ainvoke(Command(resume={"decisions": [answer]}), config, context=context)
    shown = review["__interrupt__"][0].value
    assert shown["type"] == "plan_review"
    kept = shown["action_requests"][0]["args"]["steps"][:1]
    edit = {"type": "edit", "edited_action": {"name": "review_plan", "args": {"steps": kept}}}
    done = await graph.ainvoke(Command(resume={"decisions": [edit]}), config, context=context)
    state = (await graph.aget_state(config)).values
    assert done["report"] is not None and state["clarification"] == "grid storage costs"
    assert [s.title for s in state["plan"]] == [kept[0]["title"]]
