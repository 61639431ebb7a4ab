"""What docs/reports.md ("Verified claims") and docs/verification.md promise about figures.

Each promise is checked end to end, on whole sentences, through ``verify_claims`` with the
offline engine: the code ``deep-research verify`` and the graph's verify node run.
"""

from __future__ import annotations

import pytest

from deep_research.engines import OfflineEngine
from deep_research.report.verify import Judgement, verify_claims
from deep_research.state import Verdict

HPR = (
    "The expansion of Hornsdale Power Reserve, completed in 2020, raised its capacity to 150 MW "
    "and 193.5 MWh."
)


async def judge(claim: str, *evidence: str) -> Judgement:
    (judgement,) = (await verify_claims(OfflineEngine(), [(claim, list(evidence))])).value
    return judgement


async def test_the_readme_verify_example_gives_the_verdicts_it_shows() -> None:
    """README/docs: the four claims of the ``deep-research verify`` example."""
    expected = [
        ("Hornsdale Power Reserve was expanded to 150 MW in 2020.", Verdict.SUPPORTED, "stated"),
        (
            "Hornsdale Power Reserve stores 1,500 MWh.",
            Verdict.CONTRADICTED,
            "the evidence gives 193.5 MWh, not the claim's 1,500 MWh",
        ),
        (
            "The expansion was completed in 2019.",
            Verdict.CONTRADICTED,
            "the evidence gives 2020, not the claim's 2019",
        ),
        (
            "The expansion of Hornsdale Power Reserve cost A$90 million.",
            Verdict.PARTIAL,
            "the evidence does not state the claim's A$90 million",
        ),
    ]
    for claim, verdict, reasoning in expected:
        judgement = await judge(claim, HPR)
        assert (judgement.verdict, judgement.evidence_index) == (verdict, 0)
        assert judgement.reasoning.startswith(reasoning)


# (claim, evidence, verdict, the promise it keeps)
PROMISES = [
    # equal values written differently are the same figure
    ("The city has 1.2 billion people.", "The city has 1,200 million people.", "SUPPORTED"),
    ("The plant has a capacity of 0.15 GW.", "The plant has a capacity of 150 MW.", "SUPPORTED"),
    ("Storage costs $150/kWh.", "Storage costs $150,000/MWh.", "SUPPORTED"),
    ("The plant opened in March 2017.", "The plant opened on 17 March 2017.", "SUPPORTED"),
    # rounding to the precision written, and hedges
    ("The battery stores 193 MWh.", "The battery stores 193.5 MWh.", "SUPPORTED"),
    ("The battery delivers about 200 MW.", "The battery delivers 193.5 MW.", "SUPPORTED"),
    (
        "The library holds more than 250,000 volumes.",
        "The library holds 262,000 volumes.",
        "SUPPORTED",
    ),
    ("Storage costs up to $300/kWh.", "Storage costs $280/kWh.", "SUPPORTED"),
    # figures stated differently contradict
    ("The server delivers 3,000 tokens/s.", "The server delivers 300 tokens/s.", "CONTRADICTED"),
    ("The plant opened in 2019.", "The plant opened in 2021.", "CONTRADICTED"),
    ("The plant opened in December 2017.", "The plant opened in March 2017.", "CONTRADICTED"),
    ("The project cost €90 million.", "The project cost $90 million.", "CONTRADICTED"),
    # power is not energy, a price per energy not a price per power
    ("The battery stores 150 MWh.", "The battery stores 150 MW.", "CONTRADICTED"),
    (
        "The battery has a capacity of 150 MW.",
        "The battery has a capacity of 150 MWh.",
        "CONTRADICTED",
    ),
    ("The system costs $200/kW.", "The system costs $200/kWh.", "CONTRADICTED"),
    # percentages are not percentage points
    (
        "The market share rose by 5 percentage points in 2022.",
        "The market share rose by 5% in 2022.",
        "CONTRADICTED",
    ),
    (
        "The market share rose by 5% in 2022.",
        "The market share rose by 5 percentage points in 2022.",
        "CONTRADICTED",
    ),
    ("The rate rose by 50 basis points.", "The rate rose by 0.5 percentage points.", "SUPPORTED"),
    # currencies
    ("The project cost A$90 million.", "The project cost US$90 million.", "CONTRADICTED"),
    ("The project cost 90 million euros.", "The project cost 90 million dollars.", "CONTRADICTED"),
    (
        "The project cost 90 million Australian dollars.",
        "The project cost A$90 million.",
        "SUPPORTED",
    ),
    ("The project cost €90 million.", "The project cost EUR 90 million.", "SUPPORTED"),
    ("Power costs 12 cents/kWh.", "Power costs $0.12/kWh.", "SUPPORTED"),
    # magnitudes and prefixes
    ("The project cost $2 billion.", "The project cost $2 million.", "CONTRADICTED"),
    ("The plant has 1.5 GW of capacity.", "The plant has 1,500 kW of capacity.", "CONTRADICTED"),
    ("The plant has 3 GWh of storage.", "The plant has 3,000 MWh of storage.", "SUPPORTED"),
    # years: a year is a date, never a count; a different year of the same event contradicts
    ("The firm employs 2,019 people.", "The firm hired people in 2019.", "PARTIAL"),
    ("Revenue grew 12% in 2021.", "Revenue grew 12% in 2020.", "CONTRADICTED"),
    # a figure the evidence does not state makes the claim at most PARTIAL
    ("Hornsdale cost A$90 million to build in 2017.", "Hornsdale was built in 2017.", "PARTIAL"),
]


@pytest.mark.parametrize(("claim", "evidence", "verdict"), PROMISES)
async def test_figures_are_compared_as_promised(claim: str, evidence: str, verdict: str) -> None:
    judgement = await judge(claim, evidence)
    assert judgement.verdict is Verdict(verdict), judgement.reasoning


async def test_a_year_of_another_event_in_the_sentence_does_not_contradict() -> None:
    """docs: dates conflict only when the words around both figures overlap."""
    judgement = await judge(
        "Hornsdale Power Reserve opened in 2017.",
        "Hornsdale Power Reserve opened in 2017, two years before the 2019 expansion plan.",
    )
    assert judgement.verdict is Verdict.SUPPORTED


# docs/verification.md: figures in other languages' notations are the same figures
OTHER_NOTATIONS = [
    # decimal commas: French and German write 48,6 for 48.6
    ("La part du solaire est de 48,6 %.", "La part du solaire est de 48.6%.", "SUPPORTED"),
    ("La part du solaire est de 48,6 %.", "La part du solaire est de 486 %.", "CONTRADICTED"),
    ("La part du solaire est de 48,6 %.", "La part du solaire est de 48,6 %.", "SUPPORTED"),
    (
        "Le projet a coûté 1,5 milliard d'euros.",
        "Le projet a coûté 1 500 millions d'euros.",
        "SUPPORTED",
    ),
    (
        "Le projet a coûté 1,5 milliard d'euros.",
        "Le projet a coûté 15 milliards d'euros.",
        "CONTRADICTED",
    ),
    ("Die Anlage kostete 1.234,5 Mio. Euro.", "Die Anlage kostete 1,2345 Mrd. Euro.", "SUPPORTED"),
    (
        "En 2023, l'éolien a produit 48,6 TWh en France.",
        "En 2023, l'éolien a produit 48,6 térawattheures d'électricité en France.",
        "SUPPORTED",
    ),
    (
        "En 2023, l'éolien a produit 48,6 TWh en France.",
        "En 2023, l'éolien a produit 48,6 térawatts en France.",
        "CONTRADICTED",
    ),
    (
        "En 2023, l'éolien a produit 48,6 TWh en France.",
        "En 2023, l'éolien a produit 48 600 gigawattheures en France.",
        "SUPPORTED",
    ),
    # spaces group thousands
    ("Le parc a une capacité de 1 200 MW.", "Le parc a une capacité de 1,2 GW.", "SUPPORTED"),
    ("Le parc a une capacité de 1 200 MW.", "Le parc a une capacité de 1 200 MWh.", "CONTRADICTED"),
    # English grouping stays English
    ("The park has a capacity of 1,200 MW.", "The park has a capacity of 1.2 GW.", "SUPPORTED"),
    ("The park has a capacity of 1,200 MW.", "The park has a capacity of 12 MW.", "CONTRADICTED"),
    # numbers written in Chinese characters
    ("储能容量为一百五十兆瓦时。", "储能容量为150 MWh。", "SUPPORTED"),
    ("储能容量为一百五十兆瓦时。", "储能容量为150兆瓦时。", "SUPPORTED"),
    ("储能容量为一百五十兆瓦时。", "储能容量为150兆瓦。", "CONTRADICTED"),
    ("该项目投资两亿元。", "该项目投资2亿元。", "SUPPORTED"),
    ("该项目投资两亿元。", "该项目投资3亿元。", "CONTRADICTED"),
    ("市场份额为百分之五十。", "市场份额为50%。", "SUPPORTED"),
    ("该电站于二〇一九年投入运营。", "该电站于2021年投入运营。", "CONTRADICTED"),
]


@pytest.mark.parametrize(("claim", "evidence", "verdict"), OTHER_NOTATIONS)
async def test_figures_in_other_notations_are_compared_as_promised(
    claim: str, evidence: str, verdict: str
) -> None:
    judgement = await judge(claim, evidence)
    assert judgement.verdict is Verdict(verdict), judgement.reasoning
