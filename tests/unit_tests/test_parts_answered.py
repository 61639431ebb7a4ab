"""Confidence means answered: each part of the question is judged by what the claims state.

Issue #44: reports whose every quote was verbatim (so every claim SUPPORTED) were marked
"high" with "0 parts of the question not covered" while they never answered the question.
"""

from __future__ import annotations

from deep_research.engines import OfflineEngine
from deep_research.engines.llm import LLMEngine
from deep_research.engines.schemas import ReportAssessment
from deep_research.report.limits import (
    asked_kind,
    assessment_input,
    judge_parts,
    limits,
    named_pages,
    off_subject,
    part_subject,
    settle_parts,
    states_amount,
    with_basis_limits,
    with_limitations,
    with_part_limits,
)
from deep_research.state import (
    Claim,
    EvidenceSpan,
    PartJudgement,
    Reference,
    Report,
    ReportConfidence,
    Verdict,
    VerificationSummary,
)
from deep_research.text.words import question_parts
from tests.unit_tests.scripted_model import ScriptedChatModel, structured

HEAT_PUMPS = (
    "How much do residential heat pumps cost to install and how efficient are they in cold "
    "climates?"
)
COST = "The median installed cost of a ducted air-source heat pump was 14,500 dollars in 2023."
CREDIT = "Homeowners can claim a federal tax credit of 30 percent on a qualifying installation."
WATER = "In cold basements, heat pump water heaters run less efficiently."
COST_2 = "Installing a ductless heat pump cost a median of 9,800 dollars in the same survey."
COLD = "Cold-climate heat pumps keep a coefficient of performance of 2 at minus 15 degrees."
COLD_2 = "In cold climates, field trials measured an efficiency of 250 percent at minus 5 degrees."
LOGGING = "How do I log safely from several processes into one file?"
CP = "The cp command copies each source file to the destination."
OPTPARSE = "The optparse module is deprecated and will not be developed further."
ONE_FILE = (
    "Logging to a single file from multiple processes is not supported; send the records of "
    "every process to one process, which writes them to the file."
)
ONE_FILE_2 = (
    "To log safely from several processes, use a QueueHandler in each process and one "
    "listener process that writes the file."
)


def span(n: int, quote: str, url: str, section: str | None = None) -> EvidenceSpan:
    return EvidenceSpan(
        id=f"ev_{n}",
        url=url,
        document_id=f"doc_{n}",
        step_id="s01",
        quote=quote,
        start=0,
        end=len(quote),
        section=section,
    )


def claims_of(*quotes: str) -> tuple[str, list[Claim], list[EvidenceSpan]]:
    """A draft quoting each text with its marker, its claims (all supported), the evidence."""
    evidence = [span(n, q, f"file:///pages/{n}.md") for n, q in enumerate(quotes, 1)]
    draft, claims = "## Answer\n\n", []
    for n, quote in enumerate(quotes, 1):
        start = len(draft)
        draft += f"{quote} [@ev_{n}] "
        claims.append(
            Claim(
                id=f"cl_{n}",
                text=quote,
                position_start=start,
                position_end=start + len(quote),
                citation_keys=[f"ev_{n}"],
                verdict=Verdict.SUPPORTED,
            )
        )
    return draft, claims, evidence


def statuses(question: str, *quotes: str) -> list[str]:
    _, claims, evidence = claims_of(*quotes)
    return [p.status for p in judge_parts(question, claims, evidence)]


def test_each_part_asks_for_a_kind_of_answer() -> None:
    assert asked_kind("How much do residential heat pumps cost to install") == "figure"
    assert asked_kind(LOGGING.rstrip("?")) == "procedure"
    assert asked_kind("What caused the South Korea ESS fires") == "cause"
    assert asked_kind("Which housekeeping tasks does git gc run") == "name"
    assert asked_kind("Is VACUUM safe to run on a live database") == "yes_no"
    assert asked_kind("What does git stash do") == "account"


def test_a_part_is_answered_only_by_a_claim_on_its_subject_of_the_kind_it_asks() -> None:
    # the heat-pump report of the issue: a tax credit under cost, a water heater under cold
    assert statuses(HEAT_PUMPS, CREDIT, WATER) == ["partly", "partly"]
    assert statuses(HEAT_PUMPS, COST, COST_2, COLD, COLD_2) == ["answered", "answered"]
    assert statuses(HEAT_PUMPS, COST, COST_2) == ["answered", "not_answered"]
    # one claim answering a part is not enough to call it answered
    assert statuses(HEAT_PUMPS, COST, WATER) == ["partly", "partly"]
    # the logging report of the issue: cp, optparse, nothing on several processes
    assert statuses(LOGGING, CP, OPTPARSE) == ["not_answered"]
    assert statuses(LOGGING, CP, ONE_FILE, ONE_FILE_2) == ["answered"]


DESCRIBE = "What name does git describe give a commit?"
ABOUT_DESCRIBE = (
    "git describe finds the most recent tag that is reachable from a commit.",
    "If the tag points to the commit, then only the tag is shown.",
)
NAMES_GIVEN = (
    "For example, git describe gives the name v1.0.4-14-g2414721 to a commit 14 commits after "
    "the tag v1.0.4.",
    "On a commit two commits after the tag v2.1, git describe names it v2.1-2-g9fceb02.",
)


def spans_on(question: str, pages: list[tuple[str, str]], titles: dict[str, str]) -> list[str]:
    """The parts' statuses for a report quoting each ``(page, quote)`` once, all supported."""
    _, claims, evidence = claims_of(*(quote for _, quote in pages))
    placed = [
        e.model_copy(update={"url": page}) for e, (page, _) in zip(evidence, pages, strict=True)
    ]
    return [p.status for p in judge_parts(question, claims, placed, titles)]


def test_a_part_that_asks_a_name_is_not_answered_by_sentences_merely_about_its_subject() -> None:
    # issue #44, the docqa test split: "What name does git describe give a commit?" was judged
    # answered (and the report marked high) by sentences about git describe that give no name
    assert asked_kind(DESCRIBE.rstrip("?")) == "name"
    page = "file:///git/git-describe.html"
    titles = {page: "git-describe(1)"}
    assert spans_on(DESCRIBE, [(page, q) for q in ABOUT_DESCRIBE], titles) == ["partly"]
    assert spans_on(DESCRIBE, [(page, q) for q in NAMES_GIVEN], titles) == ["answered"]


def test_a_command_named_by_an_asking_word_is_the_subject_of_the_part() -> None:
    # "describe", "explain" and "show" are stop words that ask; here they name commands
    named = {"git", "describ", "1"}  # the stemmed words of the title git-describe(1)
    assert "describ" in part_subject(DESCRIBE.rstrip("?"), DESCRIBE, named)
    assert "describ" not in part_subject(DESCRIBE.rstrip("?"), DESCRIBE)  # no page so titled
    explain = "What does EXPLAIN show about a PostgreSQL statement"
    assert "explain" in part_subject(explain, explain)
    asking = "Can you explain how git describe works"
    assert part_subject(asking, asking, {"explain", "describ"}) == ["git", "describ"]


GRID_PRICES = "How did grid battery prices fall?"
PRICE_PAGE = "file:///corpus/battery-pack-price-trends.md"
PRICE_TITLE = "Battery Pack Price Trends, 2010 to 2024"
PRICES_FELL = (
    "By 2019 the average pack price had fallen to $156/kWh.",
    "Price trackers reported LFP cell prices in China falling below $60/kWh during 2024.",
)


def test_a_quote_is_on_the_subject_in_its_own_words_not_its_titles() -> None:
    # the README's example (issue #44): the price page's quotes give the prices and say how
    # they fell, but "battery" only in the page's title; in their own words they are on a
    # third of "grid, battery, fall", so the part is partly answered
    # (its heading counts for "partly" only)
    titles = {PRICE_PAGE: PRICE_TITLE}
    fell = [(PRICE_PAGE, q) for q in PRICES_FELL]
    assert spans_on(GRID_PRICES, fell, titles) == ["partly"]
    assert spans_on(GRID_PRICES, fell, {}) == ["partly"]  # the same quotes under no title
    # a quote that shares only its title's words states nothing of its own on the subject
    titled = {PRICE_PAGE: "Grid Battery Prices Fall"}
    bare = (
        "A pack price does not include the inverters or the grid connection in 2024.",
        "The survey covered 300 buyers in 2023.",
    )
    assert spans_on(GRID_PRICES, [(PRICE_PAGE, q) for q in bare], titled) == ["partly"]


OTHER_PAGES_NAMES = (
    (
        "file:///git/git-for-each-ref.html",
        "The name of the ref (the part after $GIT_DIR/) is what git prints.",
    ),
    (
        "file:///git/git-checkout.html",
        "git checkout names the commit it leaves as HEAD@{1} in the output.",
    ),
)
DESCRIBE_PAGE = "file:///git/git-describe.html"
GIT_TITLES = {
    DESCRIBE_PAGE: "git-describe(1)",
    "file:///git/git-for-each-ref.html": "git-for-each-ref(1)",
    "file:///git/git-checkout.html": "git-checkout(1)",
    "file:///git/git-commit.html": "git-commit(1)",
    "file:///git/git.html": "git(1)",
}


def test_a_part_that_writes_a_pages_title_is_answered_only_by_claims_on_that_page() -> None:
    # the docqa test split (issue #44): "What name does git describe give a commit?" was judged
    # answered by sentences of other pages that give a name with "name" and "git" in them
    unquoted = span(9, "git-describe - Give an object a human readable name.", DESCRIBE_PAGE)
    git_page = span(
        8, "Git is a fast, scalable, distributed revision control system.", "file:///git/git.html"
    )
    _, claims, evidence = claims_of(*(q for _, q in OTHER_PAGES_NAMES))
    placed = [
        e.model_copy(update={"url": page})
        for e, (page, _) in zip(evidence, OTHER_PAGES_NAMES, strict=True)
    ]
    judged = judge_parts(DESCRIBE, claims, [*placed, unquoted, git_page], GIT_TITLES)
    assert [p.status for p in judged] == ["partly"]
    # its own page's sentences giving names answer it, "describe" or not in their words
    given = (
        "It names the commit v1.0.4-14-g2414721.",
        "A commit two commits after the tag v2.1 gets the name v2.1-2-g9fceb02.",
    )
    assert spans_on(DESCRIBE, [(DESCRIBE_PAGE, q) for q in given], GIT_TITLES) == ["answered"]
    # a part writes a title when it has its words in order: git-commit(1) is not written here,
    # nor git(1), whose one word is read as part of the longer name git-describe(1)
    assert named_pages(DESCRIBE.rstrip("?"), GIT_TITLES.values()) == [{"git", "describ"}]
    partial = "What is a partial index in PostgreSQL"
    assert named_pages(partial, ["11.8. Partial Indexes", "11.2. Index Types"]) == [
        {"partial", "index"}
    ]


def test_a_claim_is_off_the_subject_as_the_judgement_of_the_parts_reads_it() -> None:
    # the docqa bench's off-topic share counts the claims on no part's subject; it reads them as
    # judge_parts does: with the names the pages' titles give ("describe" of git-describe(1)),
    # a claim read under its page's title and section heading
    quotes = [
        (DESCRIBE_PAGE, "git describe finds the most recent tag reachable from it."),
        (DESCRIBE_PAGE, "It then shows the tag."),  # on it under git-describe(1)
        ("file:///git/git-checkout.html", "The index is updated by checkout."),
    ]
    _, claims, evidence = claims_of(*(q for _, q in quotes))
    placed = [
        e.model_copy(update={"url": page}) for e, (page, _) in zip(evidence, quotes, strict=True)
    ]
    off = off_subject(DESCRIBE, claims, placed, GIT_TITLES)
    assert [c.text for c in off] == [quotes[2][1]]
    # with no page so titled, "describe" asks: the first claim states git alone of the subject
    assert [c.text for c in off_subject(DESCRIBE, claims, placed)] == [q for _, q in quotes]


def test_a_low_confidence_still_says_what_is_missing() -> None:
    # the README example's shape: one page quoted; low, and the Limitations say why
    quotes = [(PRICE_PAGE, q) for q in PRICES_FELL]
    draft, claims, evidence = claims_of(*(q for _, q in quotes))
    evidence = [e.model_copy(update={"url": PRICE_PAGE}) for e in evidence]
    facts = assessment_input(
        GRID_PRICES, draft, evidence, claims, [], titles={PRICE_PAGE: PRICE_TITLE}
    )
    verification = VerificationSummary(total=len(claims), supported=len(claims))
    assessed = ReportAssessment(summary="", parts=list(facts.parts))
    parts = settle_parts(facts, assessed, by_model=False)
    assessed = with_basis_limits(with_part_limits(assessed, parts, "en"), facts, verification, "en")
    found = limits(
        with_limitations(draft, facts, assessed),
        facts,
        assessed,
        number_of={e.id: 1 for e in evidence},
        references=[
            Reference(number=1, url=PRICE_PAGE, title=PRICE_TITLE, location="l", citation="c")
        ],
        verification=verification,
        parts=parts,
    )
    assert [p.status for p in parts] == ["partly"]
    assert found.confidence.level == "low"
    assert "Partly answered: How did grid battery prices fall" in found.draft
    assert "One source: every claim of the report comes from one site or document" in found.draft
    assert "Every part of the question is answered" not in found.draft
    # claims mostly unsupported: said too
    weak = VerificationSummary(supported=2, unsupported=2)
    said = with_basis_limits(ReportAssessment(summary=""), facts, weak, "en").limitations
    assert [d.text for d in said][-1].startswith("Weak support: only 2 of 4 checked claims")


VACUUM = "What does VACUUM do in PostgreSQL?"
VACUUM_MENTIONS = (
    "Plain VACUUM may not be satisfactory when a table holds many dead row versions.",
    "Progress for VACUUM FULL commands is reported via pg_stat_progress_cluster.",
    "The core PostgreSQL system takes a lock on the index during VACUUM.",
    "PostgreSQL includes an autovacuum facility which can automate routine VACUUM maintenance.",
)


def test_an_account_gathered_one_sentence_a_page_from_many_pages_is_partly_answered() -> None:
    # four pages each mentioning VACUUM in passing: mentions, not a page that answers it
    spread = [(f"file:///pg/{n}.html", q) for n, q in enumerate(VACUUM_MENTIONS)]
    assert spans_on(VACUUM, spread, {}) == ["partly"]
    # the same sentences, half of them from one page: that page answers it
    one_page = [("file:///pg/vacuum.html", q) for q in VACUUM_MENTIONS[:2]] + spread[2:]
    assert spans_on(VACUUM, one_page, {}) == ["answered"]
    # a figure is checked by its form: three sites each stating a cost corroborate it
    third = "A ducted heat pump installation cost 16,000 dollars in the state's rebate data."
    costs = [(f"https://site{n}.example/p", q) for n, q in enumerate((COST, COST_2, third))]
    assert spans_on(HEAT_PUMPS.split(" and ")[0] + "?", costs, {}) == ["answered"]


def _finish(
    question: str, *quotes: str, model: ReportAssessment | None = None
) -> tuple[str, ReportConfidence, list[PartJudgement]]:
    """The Limitations and confidence a report quoting ``quotes`` ends with, three sources."""
    draft, claims, evidence = claims_of(*quotes)
    facts = assessment_input(question, draft, evidence, claims, [])
    assessed = model or ReportAssessment(summary="", parts=list(facts.parts))
    parts = settle_parts(facts, assessed, by_model=model is not None)
    assessed = with_part_limits(assessed, parts, "en")
    marked = with_limitations(draft, facts, assessed)
    references = [
        Reference(number=n, url=f"https://site{n}.example/p", title="t", location="l", citation="c")
        for n in (1, 2, 3)
    ]
    verification = VerificationSummary(total=len(claims), supported=len(claims))
    found = limits(
        marked,
        facts,
        assessed,
        number_of={e.id: n for n, e in enumerate(evidence, 1)},
        references=references,
        verification=verification,
        parts=parts,
    )
    return found.draft, found.confidence, parts


def test_high_needs_every_part_answered_and_limitations_name_every_part_not_answered() -> None:
    text, confidence, _ = _finish(LOGGING, CP, OPTPARSE)
    assert confidence.level == "low"
    assert "Not answered: How do I log safely from several processes into one file" in text
    assert "Every part of the question is answered" not in text
    assert "1 part of the question: 0 answered, 0 partly answered, 1 not answered" in (
        confidence.basis
    )

    text, confidence, _ = _finish(HEAT_PUMPS, CREDIT, WATER)
    assert confidence.level != "high"
    assert "Partly answered: How much do residential heat pumps cost to install" in text
    assert "Partly answered: how efficient are they in cold climates" in text

    text, confidence, _ = _finish(HEAT_PUMPS, COST, COST_2, COLD, COLD_2)
    assert confidence.level == "high"
    assert "Every part of the question is answered by a supported claim" in text
    assert [p.status for p in confidence.parts] == ["answered", "answered"]


def test_the_models_judgement_stands_only_when_the_claims_it_names_bear_it_out() -> None:
    bold = ReportAssessment(
        summary="",
        parts=[
            # no claim of the report cites E9: the lexical judgement stands
            {"part": LOGGING.rstrip("?"), "status": "answered", "evidence_keys": ["E9"]},
        ],
    )
    _, confidence, parts = _finish(LOGGING, CP, OPTPARSE, model=bold)
    assert parts[0].status == "not_answered" and parts[0].judged_by == "offline"
    assert confidence.level == "low"

    named = ReportAssessment(
        summary="",
        parts=[{"part": LOGGING, "status": "answered", "evidence_keys": ["[E2]"]}],
    )
    _, confidence, parts = _finish(LOGGING, CP, OPTPARSE, model=named)
    assert parts[0].status == "answered" and parts[0].judged_by == "model"
    assert parts[0].evidence_ids == ["ev_2"]

    doubting = ReportAssessment(
        summary="", parts=[{"part": LOGGING, "status": "not_answered", "evidence_keys": []}]
    )
    _, confidence, parts = _finish(LOGGING, CP, ONE_FILE, ONE_FILE_2, model=doubting)
    assert parts[0].status == "not_answered" and confidence.level == "low"


async def test_the_model_is_asked_to_judge_each_part_and_the_offline_engine_keeps_its_own() -> None:
    draft, claims, evidence = claims_of(COST, COST_2, COLD, COLD_2)
    facts = assessment_input(HEAT_PUMPS, draft, evidence, claims, [])
    reply = await OfflineEngine().assess(facts)
    assert [p.status for p in reply.value.parts] == ["answered", "answered"]

    answer = structured(
        ReportAssessment,
        summary="It cost 14,500 dollars [E1].",
        parts=[
            {
                "part": "How much do residential heat pumps cost to install",
                "status": "answered",
                "evidence_keys": ["E1"],
            },
            {
                "part": "how efficient are they in cold climates",
                "status": "partly",
                "evidence_keys": ["E2"],
            },
        ],
    )
    model = ScriptedChatModel(responses=[answer])
    reply = await LLMEngine(model, name="scripted").assess(facts)
    prompt = "\n".join(str(m.content) for m in model.calls[0])
    assert "Parts of the question (judge each):" in prompt
    assert "- how efficient are they in cold climates" in prompt
    settled = settle_parts(facts, reply.value, by_model=True)
    assert [(p.status, p.judged_by) for p in settled] == [
        ("answered", "model"),
        ("partly", "model"),
    ]


def test_a_report_written_before_the_judgement_still_reads() -> None:
    confidence = ReportConfidence.model_validate({"level": "high", "basis": "b"})
    assert confidence.parts == []
    schema = Report.model_json_schema(by_alias=True)
    assert "parts" not in schema["$defs"]["ReportConfidence"].get("required", [])


BLAME = "What does git blame show for each line, and what can it not tell you?"
BLAME_SHOWS = (
    "git blame prints, for each line, the commit that last changed the line.",
    "Each line that git blame prints carries the author and the date of that commit.",
)
BLAME_LIMITS = (
    "git blame does not show lines that were deleted or replaced.",
    "Lines removed since are never listed by git blame.",
)


def test_a_part_that_names_nothing_of_its_own_is_still_judged() -> None:
    # the docqa dev split: "..., and what can it not tell you?" holds no content word, so it
    # was dropped from the parts and a report saying only what git blame shows was marked high
    assert question_parts(BLAME, bare=True) == [
        "What does git blame show for each line",
        "what can it not tell you",
    ]
    assert question_parts(BLAME) == ["What does git blame show for each line"]
    page = "file:///git/git-blame.html"
    shows = [(page, q) for q in BLAME_SHOWS]
    # it asks with a negation: sentences on the subject that state no limit do not answer it
    assert spans_on(BLAME, shows, {}) == ["answered", "partly"]
    limits_too = [*shows, *((page, q) for q in BLAME_LIMITS)]
    assert spans_on(BLAME, limits_too, {}) == ["answered", "answered"]


AUTOINCREMENT = "What does the AUTOINCREMENT keyword change in SQLite, and is it needed?"
AUTO_PAGE = "file:///sqlite/autoinc.html"
AUTO_CHANGES = (
    "The AUTOINCREMENT keyword changes how SQLite picks the rowid of a new row.",
    "With the AUTOINCREMENT keyword, SQLite never reuses the rowid of a deleted row.",
)
AUTO_NEEDED = (
    "It is usually not needed.",
    "The AUTOINCREMENT keyword costs CPU and disk and should not be used where it is not needed.",
)


def test_a_yes_or_no_part_that_says_it_is_answered_only_by_claims_stating_what_it_asks() -> None:
    # "is it needed" asks whether AUTOINCREMENT is needed: claims on AUTOINCREMENT that never
    # say so do not answer it (they did: the part's subject is the first part's)
    titles = {AUTO_PAGE: "SQLite Autoincrement"}
    changes = [(AUTO_PAGE, q) for q in AUTO_CHANGES]
    assert spans_on(AUTOINCREMENT, changes, titles) == ["answered", "partly"]
    # an answer may name its subject as the part does, by a pronoun, read under its page's title
    needed = [*changes, *((AUTO_PAGE, q) for q in AUTO_NEEDED)]
    assert spans_on(AUTOINCREMENT, needed, titles) == ["answered", "answered"]


PLANT_COST = "How does the Tallgrass battery work, and what did the Tallgrass plant cost?"
PLANT_YEARS = (
    "The Tallgrass plant was completed in 2020 next to the wind farm.",
    "In 2022 the Tallgrass plant began to sell inertia services (from 2022-07-01).",
)
PLANT_COSTS = (
    "The Tallgrass plant cost 90 million dollars to build.",
    "Its expansion added 24 million dollars to what the Tallgrass plant cost.",
)


def test_a_year_is_no_amount_and_a_time_may_be_given_by_an_event() -> None:
    assert not states_amount("The Tallgrass plant was completed in 2020 (2020-11-03).")
    assert states_amount("The Tallgrass plant cost 90 million dollars in 2020.")
    cost_part = PLANT_COST.split(", and ")[1].rstrip("?")
    cost_only = f"{cost_part[:1].upper()}{cost_part[1:]}?"
    years = [(f"https://site{n}.example/p", q) for n, q in enumerate(PLANT_YEARS)]
    assert spans_on(cost_only, years, {}) == ["partly"]
    costs = [(f"https://site{n}.example/p", q) for n, q in enumerate(PLANT_COSTS)]
    assert spans_on(cost_only, costs, {}) == ["answered"]
    # "when" asks a time, which the event it is timed by gives; inside a part it asks no time
    hook = "When does the pre-commit hook run?"
    page = "file:///git/githooks.html"
    runs = (
        "The pre-commit hook runs before the commit message is asked for.",
        "Git invokes the pre-commit hook after the index is written and before committing.",
    )
    assert spans_on(hook, [(page, q) for q in runs], {}) == ["answered"]
    assert asked_kind("what happens when a table has none") == "account"
    assert asked_kind("When was FERC Order 841 issued") == "figure"


def test_a_number_the_size_of_a_year_is_an_amount_where_it_says_what_a_thing_is() -> None:
    # SQLite's own answer to "how many columns can one table have": "The default setting for
    # SQLITE_MAX_COLUMN is 2000." was read as a year, so the part stayed unanswered
    assert states_amount("The default setting for SQLITE_MAX_COLUMN is 2000.")
    assert states_amount("A table may have up to 2000 columns.")
    assert states_amount("The limit was raised to 1999.")
    assert not states_amount("Since 2004 the file format has been stable.")
    assert not states_amount("In 2017, IID used a lithium-ion battery to black start a turbine.")
    assert not states_amount("The change dates from 2009-10-14.")


def test_the_digits_of_a_name_or_a_list_number_are_no_amount() -> None:
    # an unseen SQLite question was "answered" by sqlite_stat1 and sqlite3_... sentences and a
    # FAQ's "(3) SQLite lets me insert ...", every one without a figure
    assert not states_amount("The sqlite_stat1 table is created by the ANALYZE command.")
    assert not states_amount("The sqlite3_table_column_metadata() interface returns SQLITE_OK.")
    assert not states_amount("(3) SQLite lets me insert a string into a column of type integer.")
    assert not states_amount("2. Run the command again.")
    assert states_amount("A database holds at most 281 terabytes.")
    assert states_amount("The default is 2,147,483,646 pages (see section 3).")
    part = "How many columns can one table have?"
    names = (
        "The sqlite_stat1 table holds one row per index of a table's columns.",
        "The sqlite3_table_column_metadata() routine describes a column of a table.",
    )
    page = "file:///sqlite/a.html"
    assert spans_on(part, [(page, q) for q in names], {}) == ["partly"]
    counts = (
        "A table can have at most 4096 columns when built with a larger limit.",
        "The number of columns in a table may be raised to 32767 at compile time.",
    )
    assert spans_on(part, [(page, q) for q in counts], {}) == ["answered"]


def test_the_largest_or_smallest_of_something_asks_a_figure() -> None:
    assert asked_kind("What is the largest database SQLite can hold") == "figure"
    assert asked_kind("What was the smallest battery in the fleet") == "figure"
    assert asked_kind("What is the longest key a tag may have") == "figure"
