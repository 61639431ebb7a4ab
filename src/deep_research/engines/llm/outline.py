"""The report's outline, planned from what the question explicitly asks for.

The planner writes down the question's requirements (:class:`~deep_research.state.Requirements`:
its items, dimensions, periods, regions, formats and the judgement it asks for), and
reflection names those the research did not meet. :func:`report_outline` turns them, with
the plan, into the outline the writer follows: a question of several items by several
dimensions gets a comparison table and a section per dimension treating every item; a
question that names items gets a section per item; any other follows the plan's steps. Every
period and region it names is covered, the formats it asks for win over these defaults, and a
question that asks for a judgement gets a section stating a position.

The outline is instructions to the writer in English; the writer titles its sections in the
report's language.
"""

from __future__ import annotations

from collections.abc import Sequence

from deep_research.state.models import PlanStep, Requirements

REPORT_WORDS = {
    "light": "1,000 words (for Chinese or Japanese, about 1,800 characters)",
    "medium": "2,300 words (for Chinese or Japanese, about 3,000 characters)",
    "extended": "3,300 words (for Chinese or Japanese, about 4,200 characters)",
}
"""Target report length by depth, calibrated on the reports of a leading system on Deep
Research Bench (docs/models.md: extended is their median, medium their lower quartile, light
about their shortest)."""

MAX_SECTIONS = 12
"""Most body sections the outline lists one by one (more items or dimensions are grouped)."""


def _listed(names: Sequence[str]) -> str:
    return "; ".join(name.strip() for name in names if name.strip())


def _body(requirements: Requirements, plan: Sequence[PlanStep]) -> list[str]:
    """The body sections: by dimension for a grid, by item for named items, else by step."""
    items = [i for i in requirements.items if i.strip()]
    dimensions = [d for d in requirements.dimensions if d.strip()]
    if len(items) >= 2 and dimensions:
        lines = [
            f"A comparison table: one row per item ({_listed(items)}), one column per "
            f"dimension ({_listed(dimensions)}), each row citing its evidence in its last "
            "cell; write 'not found' in a cell the evidence does not cover.",
        ]
        if len(dimensions) <= MAX_SECTIONS:
            lines += [
                f"A section on {d.strip()}, treating every item in turn and comparing them."
                for d in dimensions
            ]
        else:
            lines.append("A section per group of related dimensions, treating every item.")
        return lines
    if len(items) >= 2:
        if len(items) > MAX_SECTIONS:
            return [f"A section per group of related items, covering every one: {_listed(items)}."]
        return [f"A section on {i.strip()}, with the same kinds of facts for each." for i in items]
    steps = [s for s in plan if not s.replaced]
    return [f"A section on what the research found for: {s.title}." for s in steps[:MAX_SECTIONS]]


def report_outline(
    requirements: Requirements,
    plan: Sequence[PlanStep],
    unmet: Sequence[str] = (),
) -> str:
    """The outline the writer follows, as numbered sections and the rules that go with them.

    Args:
        requirements: What the question explicitly asks for (empty: the plan alone).
        plan: The research steps (replaced steps are left out).
        unmet: Requirements the research did not meet (reflection's checklist).
    """
    judgement = requirements.judgement.strip()
    sections = ["Summary: the direct answer to the question, with its key figures."]
    if judgement:
        sections[0] += " State the position you reach (see the assessment section)."
    sections += _body(requirements, plan)
    if judgement:
        sections.append(
            f"An assessment answering the judgement asked for ({judgement}): state a clear "
            "position, the cited facts and the reasoning that lead to it, and the conditions "
            "under which it would change."
        )
    sections.append("Conclusion: answer the question directly and state what remains uncertain.")
    lines = [f"{n}. {section}" for n, section in enumerate(sections, 1)]
    covered = [
        f"Cover every {kind} the question names ({_listed(names)}), with figures for each "
        "where the evidence gives them."
        for kind, names in (("period", requirements.periods), ("region", requirements.regions))
        if _listed(names)
    ]
    formats = _listed(requirements.formats)
    if formats:
        covered.append(
            f"The question asks for these formats: {formats}. Follow them exactly; they take "
            "precedence over this outline's structure and the style defaults."
        )
    if unmet:
        covered.append(
            "The research could not establish: "
            f"{_listed(unmet)}. Say so, without keys, where each belongs."
        )
    return "\n".join([*lines, *covered])
