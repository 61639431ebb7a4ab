"""The offline engine: extractive research with no model and no network.

Questions are decomposed into steps by their parts and by standard facets; notes and reports
are BM25-ranked, diversity-selected sentences quoted verbatim from the evidence, each with its
citation; verdicts come from the lexical and numeric checks of :mod:`.checks`. Reports say that
they are extracts. Nothing here is canned: every sentence of a report comes from a source.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from itertools import dropwhile

from deep_research.engines.base import (
    Assessment,
    ClaimCheck,
    ProgressCallback,
    Reply,
    Turn,
    WritingInputs,
    chat_title,
    evidence_key,
    passage_key,
)
from deep_research.engines.offline.facets import (
    answers_kind,
    arrange,
    asks_cost,
    borrowed,
    facets_for,
)
from deep_research.engines.schemas import (
    ClaimVerdict,
    ClarifyDecision,
    LimitationDraft,
    PickedQuote,
    Reflection,
    ReportAssessment,
    ResearchPlan,
    Rewrite,
    StepDraft,
    StepNotes,
)
from deep_research.sources.evidence import leads_in, select_windows, statements
from deep_research.state.models import EvidenceSpan, Finding, Passage, PlanStep
from deep_research.text.labels import label
from deep_research.text.language import function_words, language_of, without_question_words
from deep_research.text.subject import (
    borrows_subject,
    on_a_subject,
    part_subjects,
    subject_words,
    title_names,
)
from deep_research.text.words import (
    FULL_STOPS,
    PART_SPLIT,
    STOPWORDS,
    content_tokens,
    is_cjk,
    jaccard,
    refers_back,
    sentences,
    split_line,
    stem,
    without_ids,
    word_count,
    words,
)
from deep_research.verification.checks import check_claim, coverage
from deep_research.verification.citations import final_mark, join_sentences
from deep_research.verification.conflicts import disagreement

EXTRACTIVE_NOTICE = "> " + label("en", "notice")
"""The first line of an English offline report (other languages: :func:`extractive_notice`)."""


def extractive_notice(language: str) -> str:
    """The notice that opens an offline report, in ``language``."""
    return "> " + label(language, "notice")


_COMPARING = re.compile(r"\b(?:compare[sd]?|comparison|differ(?:s|ence|ences)?)\b", re.I)
_NAME = r"[A-Z][\w-]*(?: [A-Z][\w-]*)*"
_NAME_PAIR = re.compile(rf"\b({_NAME}),? and ({_NAME})\b")
_NAME_CHOICE = re.compile(rf"\b({_NAME}) (?:or|vs\.?|versus) ({_NAME})\b")
"""Two names offered as a choice: ``are Redirects or Aliases applied first``."""
_COMPARE = re.compile(
    r"\b(?:vs\.?|versus|compared? (?:to|with)|or|ou|par rapport (?:à|au|aux))\b|与|对比|相比|还是",
    re.I,
)
_SENTENCES_PER_SECTION = 4
_REWRITE_COVERAGE = 0.3
"""Share of the claim's words the closest evidence must state for a rewrite (else removal)."""
_NEAR_DUPLICATE = 0.7
"""Word overlap (Jaccard) above which a sentence repeats one already quoted."""
_SENTENCES_PER_REPORT = 24
"""A report of few sections gives each more sentences, up to this many in all."""
_SUMMARY_SENTENCES = 2
_CROSS_REFERENCE = re.compile(
    r"\W*(?:see(?: also)?|refer to|consult)\s|\W*for (?:more|further|full) (?:details|information)"
    r"\b[^.]*\bsee\b",
    re.I,
)
"""A sentence that sends the reader elsewhere ("See also the --amend option to git-commit(1).",
"(See the "RECOVERING FROM UPSTREAM REBASE" section ...)"): it states nothing of its own."""
_CITED_SENTENCE = re.compile(r".+?(?:\[E\d+\])+[.!?。！？]")


def _words(text: str) -> list[str]:
    """The words of ``text`` that carry content, as written (lower case, not stemmed).

    A run of CJK text stays whole (a search engine segments it better than bigrams would).
    """
    own = function_words(language_of(text))
    spoken = without_question_words(without_ids(text))
    return [w for w in words(spoken) if w not in STOPWORDS and w not in own]


_ASKS_MOST = re.compile(
    r"\b(?:largest|biggest|greatest|highest|longest|how many\b.*\b(?:can|may|could))\b", re.I
)
_ASKS_LEAST = re.compile(r"\b(?:smallest|lowest|shortest|fewest)\b", re.I)


def _asked_words(text: str) -> list[str]:
    """The word a manual states the limit ``text`` asks for with: "maximum" or "minimum".

    A question asks for the largest database or how many columns a table can have; a manual
    states the maximum database size and the maximum number of columns (SQLite's limits page,
    which "largest database sqlite hold" and "columns table" did not find). A plain "how many"
    asks a count, not a limit: it adds nothing ("number" was measured, below).
    """
    return [
        word
        for word, pattern in (
            ("maximum", _ASKS_MOST),
            ("minimum", _ASKS_LEAST),
        )
        if pattern.search(text)
    ]


def _compared_names(part: str) -> list[str]:
    """The names a part compares: ``How do LFP and NMC batteries differ`` gives LFP, NMC.

    Or offers as a choice: ``are Redirects or Aliases applied first`` gives Redirects, Aliases.
    A capitalised verb that opens the part is not a name's first word: ``Compare Git and
    Mercurial`` gives Git, Mercurial; ``Is Redis or Memcached faster`` gives Redis, Memcached.
    """
    match = _NAME_CHOICE.search(part) or (
        _NAME_PAIR.search(part) if _COMPARING.search(part) else None
    )
    if match is None:
        return []
    names = [_COMPARING.sub("", name).strip() or name for name in match.groups()]
    return [" ".join(dropwhile(lambda w: w.lower() in STOPWORDS, n.split())) or n for n in names]


def _headings(
    question: str, plan: Sequence[PlanStep], evidence: Sequence[EvidenceSpan]
) -> tuple[list[PlanStep], list[EvidenceSpan]]:
    """The report's headings, and the evidence as found for them.

    Steps that reflection added to reword a step (whose intent is that step's title) or to
    look for words no finding mentioned (whose intent is the question) get no heading: what
    they found goes under the step they reword, or under the heading it answers. A rewording
    of a step the writer is not shown (it replaced it) is headed by that step's title: the
    part of the question as asked, not the words it was searched with.
    """
    by_title = {s.title: s.id for s in plan}
    folded = {
        s.id: by_title.get(s.intent, "")
        for s in plan
        if s.round > 1 and (s.intent in by_title or s.intent == question)
    }
    headings = [_as_asked(s, question, by_title) for s in plan if s.id not in folded]
    placed = [
        e.model_copy(update={"step_id": folded[e.step_id]}) if e.step_id in folded else e
        for e in evidence
    ]
    return headings, placed


def _as_asked(step: PlanStep, question: str, shown: Collection[str]) -> PlanStep:
    """``step`` titled by the step it rewords, when that step is not among ``shown`` titles."""
    if step.round > 1 and step.intent and step.intent != question and step.intent not in shown:
        return step.model_copy(update={"title": step.intent})
    return step


def _gives_cost(title: str, text: str) -> bool:
    """Whether ``text`` tells what something cost when ``title`` asks it (a sum spent).

    Only a cost: a date or a size preferred the same way for "when" and "how large" steps
    crowded other answers out of the sample's reports (docs/decisions.md, "No rule for one
    corpus").
    """
    return asks_cost(title) and answers_kind(title, text) > 0


def _topic(question: str) -> str:
    return " ".join(dict.fromkeys(_words(question)))


def _sentence(quote: str, keys: Sequence[str]) -> str:
    """Render a quote in the canonical cited form: ``body [E1][E2].``, or ``正文[E1]。``.

    A quote of several sentences (a window) cites its keys after each of them, so that every
    sentence of the report is checked against the evidence it comes from.
    """
    pieces = list(split_line(" ".join(quote.split()))) or [quote]
    return join_sentences(_cited_piece(piece, keys) for piece in pieces)


def _cited_piece(piece: str, keys: Sequence[str]) -> str:
    body, punct = final_mark(piece)
    markers = "".join(f"[{k}]" for k in keys)
    if not markers:
        return f"{body}{punct}"
    tight = bool(punct) and punct in FULL_STOPS or is_cjk(body[-1:] or " ")
    return f"{body}{markers}{punct}" if tight else f"{body} {markers}{punct}"


class OfflineEngine:
    """Extractive engine; see the module docstring."""

    name = "offline"
    extractive = True

    async def title(self, question: str) -> Reply[str]:
        """The question itself, on one line and cut at a word (:func:`chat_title`)."""
        return Reply(chat_title(question))

    async def clarify(self, question: str, history: Sequence[Turn]) -> Reply[ClarifyDecision]:
        """Ask only when the request names fewer than two content words and has no context."""
        if history or len(set(content_tokens(question))) >= 2:
            return Reply(ClarifyDecision(needs_clarification=False))
        return Reply(
            ClarifyDecision(
                needs_clarification=True,
                question=label(language_of(question), "broad").format(question=question.strip()),
            )
        )

    async def plan(
        self, question: str, history: Sequence[Turn], max_steps: int
    ) -> Reply[ResearchPlan]:
        """Decompose the question into its parts, compared items and standard facets."""
        topic = _topic(question)
        language = language_of(question)
        # every part that asks something is a step ("..., and why would one use it?")
        parts = [p.strip(" ,.，、") for p in PART_SPLIT.split(question) if content_tokens(p)]
        # a part that names little of its own ("how long does it last") is searched with what
        # the first part asks about: its own words alone find what else lasts long
        lead = " ".join(subject_words(parts[0])[:4]) if parts else ""
        steps = [
            StepDraft(title=p, intent=f"{p}: {lead}" if borrows_subject(p, question) else p)
            for p in parts
        ] or [StepDraft(title=topic, intent=question.strip())]
        for part in parts:  # what a part compares: its names, else each side of its "or"
            names = _compared_names(part)
            sides = [c.strip(" ,.?？，") for c in _COMPARE.split(part) if content_tokens(c)]
            if names:
                steps += [StepDraft(title=n, intent=f"Characterise {n}: {part}") for n in names]
            elif len(sides) >= 2:
                steps += [StepDraft(title=_topic(c), intent=f"Characterise {c}") for c in sides]
        subject = " ".join(_words(parts[0] if parts else question)[:4])
        steps += [
            StepDraft(title=title, intent=f"{intent}: {subject}", evidence_needed=intent)
            for title, intent in (f.named(language) for f in facets_for(question, parts))
        ]
        unique: dict[str, StepDraft] = {}
        for step in steps:
            unique.setdefault(" ".join(sorted(set(content_tokens(step.title)))), step)
        chosen = list(unique.values())[:max_steps]
        size = word_count(topic)
        complexity = "complex" if len(parts) >= 3 else "simple" if size <= 3 else "moderate"
        brief = (
            f"Research question: {question.strip()} The plan covers: "
            + "; ".join(s.title for s in chosen)
            + ". (Decomposed by the offline engine.)"
        )
        return Reply(ResearchPlan(brief=brief, complexity=complexity, steps=chosen))

    async def queries(
        self,
        question: str,
        step: PlanStep,
        previous: Sequence[str],
        n: int,
        *,
        finding: Finding | None = None,
    ) -> Reply[list[str]]:
        """The step's words, then broader and narrower variants.

        On a second pass, first the step's words with those the evidence found so far repeats
        (pseudo-relevance feedback, :func:`feedback_terms`), then what the notes say is missing.
        """
        title_terms = [*_asked_words(step.title), *_words(step.title)]
        question_terms = _words(question)
        intent_terms = _words(step.intent)
        missing = list(dict.fromkeys(_words(finding.missing))) if finding is not None else []
        feedback = (
            feedback_terms(finding.notes, [*title_terms, *question_terms, *previous])
            if finding is not None
            else []
        )
        # a part searched with the first part's subject (see plan) is never searched alone
        alone = not borrowed(step)
        candidates = [
            " ".join(dict.fromkeys(title_terms + feedback)) if feedback else "",
            " ".join(dict.fromkeys(title_terms[:3] + missing[:6])) if missing else "",
            " ".join(dict.fromkeys(title_terms + intent_terms[:6])),
            " ".join(dict.fromkeys(title_terms + question_terms[:4])),
            " ".join(title_terms) if alone else "",
            " ".join(dict.fromkeys(question_terms)),
            " ".join(title_terms[-3:]) if alone else "",
        ]
        # the same words in another order search for the same thing
        seen = {frozenset(q.lower().split()) for q in previous}
        fresh: list[str] = []
        for query in candidates:
            words = frozenset(query.lower().split())
            if words and words not in seen:
                seen.add(words)
                fresh.append(query)
        return Reply(fresh[:n])

    async def pick_evidence(
        self,
        question: str,
        step: PlanStep,
        queries: Sequence[str],
        passages: Sequence[Passage],
    ) -> Reply[list[PickedQuote]]:
        """Sentence windows of the passages, by relevance (:func:`select_windows`)."""
        windows = select_windows(
            passages, step, queries, answers=lambda text: _gives_cost(step.title, text)
        )
        return Reply(
            [
                PickedQuote(passage=passage_key(w.passage), quote=w.text, relevance=w.relevance)
                for w in windows
            ]
        )

    async def notes(
        self, question: str, step: PlanStep, evidence: Sequence[EvidenceSpan]
    ) -> Reply[StepNotes]:
        """The three most relevant quotes; sufficient when two or more relevant ones exist."""
        ranked = sorted(range(len(evidence)), key=lambda i: -evidence[i].relevance)[:3]
        text = join_sentences(_sentence(evidence[i].quote, [evidence_key(i)]) for i in ranked)
        strong = sum(1 for e in evidence if e.relevance >= 0.3)
        covered = {t for e in evidence for t in content_tokens(e.quote)}
        wanted = dict.fromkeys(_words(f"{step.title} {step.evidence_needed}"))
        missing = [w for w in wanted if not set(content_tokens(w)) <= covered]
        return Reply(StepNotes(notes=text, sufficient=strong >= 2, missing=" ".join(missing)))

    async def reflect(
        self,
        question: str,
        plan: Sequence[PlanStep],
        findings: Sequence[Finding],
        max_new_steps: int,
        *,
        brief: str = "",
    ) -> Reply[Reflection]:
        """Adjust steps that found too little; continue on question terms no finding covers."""
        titles = {s.id: s.title for s in plan}
        reworded = {s.intent for s in plan if s.round > 1}  # steps already replaced once
        weak = [
            f.step_id for f in findings if not f.sufficient and titles[f.step_id] not in reworded
        ]
        if weak and max_new_steps:
            replaced = weak[:max_new_steps]
            notes = {f.step_id: f.notes for f in findings}
            return Reply(
                Reflection(
                    decision="adjust",
                    reasoning=f"{len(weak)} step(s) found too little evidence; broadening them.",
                    new_steps=[
                        StepDraft(title=_broadened(titles[i], notes.get(i, "")), intent=titles[i])
                        for i in replaced
                    ],
                    replaces=replaced,
                )
            )
        covered = set(content_tokens(" ".join(f.notes for f in findings)))
        missing = [
            w for w in dict.fromkeys(_words(question)) if not set(content_tokens(w)) <= covered
        ]
        title = " ".join(missing)
        if missing and max_new_steps and title not in {t.casefold() for t in titles.values()}:
            return Reply(
                Reflection(
                    decision="continue",
                    reasoning=f"No finding mentions: {', '.join(missing)}.",
                    new_steps=[StepDraft(title=title, intent=question)],
                )
            )
        return Reply(Reflection(decision="complete", reasoning="Every step found evidence."))

    async def write_report(
        self,
        question: str,
        brief: str,
        plan: Sequence[PlanStep],
        evidence: Sequence[EvidenceSpan],
        on_progress: ProgressCallback | None = None,
        *,
        inputs: WritingInputs | None = None,
    ) -> Reply[str]:
        """One section per heading of its best diverse quotes (see :func:`.outline.arrange`).

        Past a heading's first paragraph, a sentence on no part's subject (read under its page's
        title and section heading as the judgement of the parts reads it,
        :func:`~deep_research.text.subject.on_a_subject`) is left out when the sentences on it
        that the heading's quotes still offer fill its share (docs/decisions.md, "Off-topic
        sentences").
        """
        quoted: set[str] = set()  # sentences already in the report (windows overlap)
        bags: list[set[str]] = []
        blocks = [extractive_notice(language_of(question))]
        headings, placed = _headings(question, plan, evidence)
        arranged = arrange(headings, placed)
        filled = sum(1 for rows in arranged.values() if rows) or 1
        per_section = max(_SENTENCES_PER_SECTION, _SENTENCES_PER_REPORT // filled)
        caps = shared_caps(
            {
                step.id: sum(1 for i in arranged[step.id] for _ in statements(evidence[i].quote))
                for step in headings
            },
            per_section,
        )
        titles = inputs.titles if inputs is not None else {}
        sections = [f"{titles.get(e.url, '')} {e.section or ''}" for e in evidence]
        subjects = part_subjects(question, title_names(sections))
        for step in headings:
            chosen: list[str] = []
            offered = {i: _new_sentences(evidence[i].quote, quoted) for i in arranged[step.id]}
            rows = [(said, i) for i in arranged[step.id] for said in offered[i]]
            on = [on_a_subject(subjects, said, sections[i]) for said, i in rows]
            # what can fill the share later: a sentence that refers back only after its own
            alone = [on[k] and not refers_back(said) for k, (said, _) in enumerate(rows)]
            after = _on_subject_after([said for said, _ in rows], alone)
            k = -1
            written: list[str] = []  # each chosen sentence as quoted (its key in ``quoted``)
            for i in arranged[step.id]:
                follows = False  # the sentence before this one was just written
                for said in offered[i]:
                    k += 1
                    if " ".join(said.split()) in quoted:
                        continue  # an earlier window of this heading quoted it
                    taken, follows = follows, False
                    first = len(chosen) < _SENTENCES_PER_SECTION
                    bag = set(content_tokens(said))
                    writes = (
                        # "the above": only right after what it points at
                        (taken or not refers_back(said))
                        # on no part's subject, and on-subject sentences fill the share
                        and (first or on[k] or len(chosen) + after[k] < caps[step.id])
                        # another source's near copy is already quoted
                        and not any(jaccard(bag, other) > _NEAR_DUPLICATE for other in bags)
                        and not _CROSS_REFERENCE.match(said)
                        and _belongs(step, said, first=first)
                    )
                    if taken and leads_in(written[-1]) and not writes:
                        _unwrite(chosen, written, bags, quoted)  # "Advantages include:", alone
                    if writes:
                        written.append(" ".join(said.split()))
                        quoted.add(written[-1])
                        bags.append(bag)
                        chosen.append(_sentence(said, [evidence_key(i)]))
                        follows = True
                if follows and leads_in(written[-1]):
                    _unwrite(chosen, written, bags, quoted)  # its quote ends with the lead-in
                if len(chosen) >= caps[step.id]:
                    break
            if chosen:
                paragraphs = [join_sentences(p) for p in _paragraphs(chosen, written)]
                heading = f"## {step.title[:1].upper()}{step.title[1:]}"
                blocks.append("\n\n".join([heading, *paragraphs]))
        for block in blocks:
            if on_progress:
                on_progress(block + "\n\n")
        return Reply("\n\n".join(blocks) + "\n")

    async def answer(self, question: str, history: Sequence[Turn]) -> Reply[str]:
        """The offline engine cannot answer without sources, and says so."""
        return Reply(
            "The offline engine answers only from sources it has read, so `simple` mode has "
            "nothing to offer without a model. Ask again in `web_search` or `deep_research` "
            "mode, or configure a model (DEEP_RESEARCH_MODEL and OPENAI_API_KEY)."
        )

    async def judge(self, checks: Sequence[ClaimCheck]) -> Reply[list[ClaimVerdict]]:
        """Lexical coverage plus strict number and negation checks, per claim."""
        verdicts = []
        for item in checks:
            quotes = [e.quote for e in item.evidence]
            result = check_claim(item.claim.text, quotes)
            relied = result.index >= 0
            verdicts.append(
                ClaimVerdict(
                    claim_id=item.claim.id,
                    verdict=result.verdict,
                    confidence=result.confidence,
                    reasoning=result.reasoning,
                    reason=result.reason,
                    evidence_key=evidence_key(result.index) if relied else None,
                    quote=quotes[result.index][result.start : result.end] if relied else None,
                    checked_by="offline",
                )
            )
        return Reply(verdicts)

    async def rewrite(self, check: ClaimCheck) -> Reply[Rewrite]:
        """Narrow the claim to the evidence sentence that states most of it, or remove it.

        The evidence closest to the claim is chosen, then its sentence sharing most of the
        claim's words: a partial claim becomes the part the evidence states, a wrong figure
        the evidence's, and a claim the evidence hardly mentions is removed.
        """
        scored = sorted(
            ((coverage(check.claim.text, e.quote), i) for i, e in enumerate(check.evidence)),
            reverse=True,
        )
        if scored and scored[0][0] >= _REWRITE_COVERAGE:
            best = scored[0][1]
            quote = _closest_sentence(check.claim.text, check.evidence[best].quote)
            return Reply(Rewrite(text=final_mark(quote)[0], evidence_key=evidence_key(best)))
        return Reply(Rewrite(text=""))

    async def assess(self, facts: Assessment) -> Reply[ReportAssessment]:
        """The first sentences of the report as its summary; the limits found, stated plainly.

        The parts of the question are judged as :func:`~deep_research.assessment.judge_parts`
        judged them (what the supported claims state).
        """
        language = language_of(facts.question)
        drafts = [
            LimitationDraft(
                kind="uncovered", text=label(language, "not_covered").format(title=step.title)
            )
            for step in facts.uncovered
        ]
        for i, j in facts.conflicts:
            a, b = facts.evidence[i].quote, facts.evidence[j].quote
            one, other = disagreement(a, b) or (a, b)
            drafts.append(
                LimitationDraft(
                    kind="conflict",
                    text=label(language, "sources_disagree").format(
                        a=final_mark(one)[0],
                        key_a=evidence_key(i),
                        b=final_mark(other)[0],
                        key_b=evidence_key(j),
                    ),
                )
            )
        return Reply(
            ReportAssessment(
                summary=_lead(facts.report), limitations=drafts, parts=list(facts.parts)
            )
        )


_KEY = re.compile(r"\[E\d+\]")
FEEDBACK_TERMS = 3
"""Most words a second search takes from the evidence the first one found."""


def feedback_terms(notes: str, known: Sequence[str]) -> list[str]:
    """Pseudo-relevance feedback: the words the evidence found so far repeats.

    Words (as written) that stand in ``notes`` at least twice and are none of ``known`` (the
    words already searched with), most frequent first: the corpus's own words for what the
    step asks, such as "WAL" in the pages on write-ahead logging.
    """
    said = _words(_KEY.sub(" ", notes))
    taken = {stem(w) for text in known for w in _words(text)}
    counts: dict[str, int] = {}
    for word in said:
        if stem(word) not in taken:
            counts[word] = counts.get(word, 0) + 1
    ranked = sorted((w for w, c in counts.items() if c >= 2), key=lambda w: -counts[w])
    return ranked[:FEEDBACK_TERMS]


def shared_caps(offered: Mapping[str, int], cap: int) -> dict[str, int]:
    """How many sentences each heading may take: ``cap``, and what others leave unused.

    ``offered``: the sentences of the quotes each heading holds, in the report's order. A
    heading offered fewer than ``cap`` (but some) leaves the rest to the headings offered more,
    the first first, so that a report whose parts were found unevenly still holds up to ``cap``
    sentences for each heading that has quotes, as the report's length allows.
    """
    caps = {key: min(cap, count) for key, count in offered.items()}
    spare = sum(cap - caps[key] for key, count in offered.items() if count)
    for key, count in offered.items():
        extra = min(spare, count - caps[key])
        caps[key] += extra
        spare -= extra
    return caps


def _broadened(title: str, notes: str) -> str:
    """A thin step's title searched again: its words and the words its evidence repeats."""
    return " ".join(dict.fromkeys([*_words(title), *feedback_terms(notes, [title])]))


def _closest_sentence(claim: str, quote: str) -> str:
    """The sentence of ``quote`` sharing most of the claim's words (the first on ties)."""
    pieces = [s.text for s in sentences(quote)] or [quote]
    return max(pieces, key=lambda piece: coverage(claim, piece))


def _unwrite(chosen: list[str], written: list[str], bags: list[set[str]], quoted: set[str]) -> None:
    """Take back the last sentence written: a lead-in whose next sentence was not written.

    Alone, it introduces nothing ("Advantages include:"); it may still be written from another
    quote that goes on with what it introduces.
    """
    chosen.pop()
    bags.pop()
    quoted.discard(written.pop())


def _paragraphs(chosen: Sequence[str], written: Sequence[str]) -> list[list[str]]:
    """``chosen`` in paragraphs of :data:`_SENTENCES_PER_SECTION`, none ending with a lead-in.

    ``written``: each chosen sentence as quoted.
    """
    paragraphs: list[list[str]] = [[]]
    for sentence, said in zip(chosen, written, strict=True):
        paragraphs[-1].append(sentence)
        if len(paragraphs[-1]) >= _SENTENCES_PER_SECTION and not leads_in(said):
            paragraphs.append([])
    return [p for p in paragraphs if p]


def _new_sentences(quote: str, quoted: set[str]) -> list[str]:
    """The sentences of ``quote`` (a window of one or more) not yet in the report."""
    found = [s.text for s in statements(quote)] or [quote]
    return [s for s in found if " ".join(s.split()) not in quoted]


def _belongs(step: PlanStep, sentence: str, *, first: bool) -> bool:
    """Whether ``sentence`` goes under ``step``'s heading.

    Never one of the wrong kind of answer (a fine under a cost). In the first paragraph any
    other sentence of the quotes the heading took; past it, under a cost only money spent.
    """
    kind = answers_kind(step.title, sentence)
    if kind < 0:
        return False
    if first or not asks_cost(step.title):
        return True
    return kind > 0


def _on_subject_after(said: Sequence[str], on: Sequence[bool]) -> list[int]:
    """For each of a heading's sentences, how many on-subject ones follow it and none before.

    ``said``: the sentences its quotes offer, in order (windows overlap: a sentence can come
    twice); ``on``: whether each is on a part's subject. A sentence offered before a position
    is not counted after it (it was taken or left out there).
    """
    keys = [" ".join(s.split()) for s in said]
    found: list[int] = []
    for k in range(len(keys)):
        later = {key for key, yes in zip(keys[k + 1 :], on[k + 1 :], strict=True) if yes}
        found.append(len(later - set(keys[: k + 1])))
    return found


def _lead(report: str) -> str:
    """The first cited sentences of the report's first section, verbatim."""
    for block in report.split("\n## ")[1:]:
        body = block.partition("\n")[2].strip()
        sentences = _CITED_SENTENCE.findall(body.split("\n\n")[0])
        if sentences:
            return join_sentences(s.strip() for s in sentences[:_SUMMARY_SENTENCES])
    return ""
