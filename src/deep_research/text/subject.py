"""What a part of a question asks about, and whether a sentence is on it.

The reading the judgement of a report's parts uses (:mod:`deep_research.report.limits`), and
the offline writer with it, so that a sentence is on a part's subject for both alike: the
part's subject is its words without those that say what is asked (:func:`part_subject`), and a
sentence is on it when, read under its page's title and section heading, it states
:data:`SUBJECT_SHARE` of them (:func:`subject_share` of :func:`said_words`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from deep_research.text.words import STOPWORDS, content_tokens, question_parts, stem, tokens

SUBJECT_SHARE = 0.5
"""Share of a part's subject words a supported claim must state to be on the part's subject
(chosen on the docqa dev splits, docs/decisions.md "Confidence means answered")."""

_NOT_SUBJECT = frozenset(
    content_tokens(
        "how much many long often large big fast far efficient old high low when year why "
        "which who what cost costs price prices reason reasons cause caused step steps way "
        "procedure command use used using one someone need needed get make work"
    )
)
"""Words that say what is asked, not what it is asked about."""


ASKING_VERBS = frozenset({"tell", "give", "explain", "describe", "show", "compare"})
"""Stop words that ask ("explain", "describe") and are also the names of commands
(``git describe``, ``EXPLAIN``, ``git show``)."""

_WORD = re.compile(r"[^\W_]+")


def named_verbs(part: str, names: Collection[str]) -> list[str]:
    """The asking verbs ``part`` writes as names (stemmed).

    A verb is a name in capitals (``EXPLAIN``), or after a word that is no stop word where
    ``names`` (stemmed words of page titles) has it (``git describe``, on a corpus with a page
    titled ``git-describe(1)``).
    """
    words = _WORD.findall(part)
    found: list[str] = []
    for before, word in zip(["", *words], words, strict=False):
        lowered = word.lower()
        if lowered not in ASKING_VERBS:
            continue
        capitals = word.isupper() and len(word) > 1
        after_name = bool(before) and before.lower() not in STOPWORDS and stem(lowered) in names
        if capitals or after_name:
            found.append(stem(lowered))
    return found


def _own_subject(part: str, names: Collection[str] = ()) -> list[str]:
    """The words (stemmed) ``part`` itself names of what it asks about."""
    return [
        t
        for t in dict.fromkeys([*content_tokens(part), *named_verbs(part, names)])
        if t not in _NOT_SUBJECT
    ]


def borrows_subject(part: str, question: str) -> bool:
    """Whether ``part`` names too little of its own to be searched alone.

    "How long does it last", "why would one use it", "can they be written to": a part after
    the question's first that names fewer than two words of a subject asks about the first
    part's subject (:func:`part_subject`).
    """
    parts = question_parts(question)
    return bool(parts) and part.strip() != parts[0] and len(_own_subject(part)) < 2


def subject_words(part: str) -> list[str]:
    """The words of ``part`` as written (lower case) that name its subject, not what it asks."""
    return [
        w
        for w in dict.fromkeys(t for t in tokens(part) if t not in STOPWORDS)
        if stem(w) not in _NOT_SUBJECT
    ]


def part_subject(part: str, question: str, names: Collection[str] = ()) -> list[str]:
    """The words (stemmed) of what ``part`` asks about.

    A part that names little (``and why would one use it``) is about its question's first part
    too. A word that usually asks (``describe``, ``explain``, ``show``) is a word of the subject
    when the part writes it as a name (:func:`named_verbs`; ``names``: the stemmed words of the
    titles of the pages read): "What name does git describe give a commit?" asks about
    ``git describe``, not about git and commits.
    """
    own = _own_subject(part, names)
    if len(own) >= 2:
        return own
    first = question_parts(question)[0] if question_parts(question) else question
    lead = [t for t in content_tokens(first) if t not in _NOT_SUBJECT]
    return list(dict.fromkeys([*own, *lead]))


def asked_of(part: str, question: str, names: Collection[str] = ()) -> list[str]:
    """What a part that borrows its subject asks of it, in the part's own words (stemmed).

    A part that names too little to have a subject of its own is about the question's first
    part (:func:`part_subject`); what it adds is what it asks of that subject: "is it
    needed" asks whether the first part's subject is *needed*, "how can it be bypassed"
    how it is *bypassed*. Those words count here even when they usually say what is asked
    (``need``, ``use``). Empty for a part with a subject of its own and for the first part.
    """
    own = _own_subject(part, names)
    parts = question_parts(question, bare=True)
    if len(own) >= 2 or not parts or part.strip() == parts[0]:
        return []
    lead = set(part_subject(parts[0], question, names))
    return [t for t in dict.fromkeys(content_tokens(part)) if t not in lead]


def _same_word(a: str, b: str) -> bool:
    """Whether two stemmed words are one word's forms (``log``, ``logg``; ``fall``, ``fallen``)."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 3 and long.startswith(short))


def subject_share(subject: Collection[str], said: Collection[str]) -> float:
    """The share of the ``subject``'s words that ``said`` states, in any of their forms."""
    if not subject:
        return 0.0
    return sum(1 for w in subject if any(_same_word(w, t) for t in said)) / len(subject)


def said_words(text: str) -> set[str]:
    """The words (stemmed) ``text`` states on a subject.

    Its content words, and the asking verbs, which a part's subject holds when the part writes
    them as names (:func:`named_verbs`).
    """
    return {stem(t) for t in tokens(text) if t not in STOPWORDS or t in ASKING_VERBS}


def title_names(headings: Collection[str]) -> set[str]:
    """The stemmed words of the pages' titles and headings, which name what a part may ask."""
    return {stem(t) for t in tokens(" ".join(headings))}


def part_subjects(question: str, names: Collection[str] = ()) -> list[list[str]]:
    """The subject of each part of ``question`` (:func:`part_subject`).

    ``names``: the stemmed words of the pages' titles and headings (:func:`title_names`).
    """
    return [part_subject(part, question, names) for part in question_parts(question)]


def on_a_subject(subjects: Sequence[Collection[str]], sentence: str, heading: str = "") -> bool:
    """Whether ``sentence`` states :data:`SUBJECT_SHARE` of one of the ``subjects``.

    It is read under ``heading``: its page's title and its section's heading.
    """
    said = said_words(sentence) | said_words(heading)
    return any(subject_share(subject, said) >= SUBJECT_SHARE for subject in subjects)
