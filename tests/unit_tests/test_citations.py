"""Citation markers, claim extraction with exact offsets, and final numbering."""

from __future__ import annotations

from deep_research.verification.citations import (
    cited_ids_in_order,
    extract_claims,
    keys_to_markers,
    normalize_draft,
    render_numbers,
    split_sentences,
)

RAW = """> A note that is not a claim, from 2024.

## Section

Hornsdale opened in 2017 [E1]. It cost 90 million. [E2] Prices fell [E1, E3]!
The market grew fast in many places. Sales reached 40 units.
- Units hold 3.9 MWh each [E2].
Unknown keys vanish [E9].
"""
KEYS = {"E1": "ev_a", "E2": "ev_b", "E3": "ev_c"}


def test_keys_become_markers_and_unknown_keys_are_dropped() -> None:
    text = keys_to_markers("x [E1] y [E2, E3] z [E9]", KEYS)
    assert text == "x [@ev_a] y [@ev_b][@ev_c] z "


def test_normalizing_moves_markers_to_sentence_ends_and_is_idempotent() -> None:
    draft = normalize_draft(keys_to_markers(RAW, KEYS))
    assert "It cost 90 million [@ev_b]." in draft
    assert "Prices fell [@ev_a][@ev_c]!" in draft
    assert normalize_draft(draft) == draft


def test_claims_are_factual_sentences_cited_or_not_with_exact_offsets() -> None:
    draft = normalize_draft(keys_to_markers(RAW, KEYS))
    claims = extract_claims(draft)
    texts = [c.text for c in claims]
    # Since issue 4, an uncited factual sentence is a claim too (verify calls it UNSUPPORTED
    # and revise must cite, correct or remove it); before, only uncited numeric ones were.
    assert texts == [
        "Hornsdale opened in 2017",
        "It cost 90 million",
        "Prices fell",
        "The market grew fast in many places",
        "Sales reached 40 units",
        "Units hold 3.9 MWh each",
    ]
    for claim in claims:
        assert draft[claim.position_start : claim.position_end] == claim.text
    assert claims[2].citation_keys == ["ev_a", "ev_c"]
    assert claims[3].citation_keys == claims[4].citation_keys == []  # uncited: still checked
    assert all(c.numeric == any(ch.isdigit() for ch in c.text) for c in claims)


def test_claim_ids_are_stable_across_extractions() -> None:
    draft = normalize_draft(keys_to_markers(RAW, KEYS))
    assert [c.id for c in extract_claims(draft)] == [c.id for c in extract_claims(draft)]


def test_references_are_numbered_by_first_appearance() -> None:
    draft = normalize_draft("B first [@ev_b]. Then A [@ev_a][@ev_b]. Unknown [@ev_z].")
    assert cited_ids_in_order(draft) == ["ev_b", "ev_a", "ev_z"]
    final = render_numbers(draft, {"ev_b": 1, "ev_a": 2})
    assert final.strip() == "B first [1]. Then A [1][2]. Unknown."


def test_drafts_and_documents_split_sentences_alike_abbreviations_included() -> None:
    from deep_research.text.words import sentences

    line = 'Dr. Smith said "It works." [@ev_a] Costs fell 20% in 2023 [@ev_b].'
    drafted = split_sentences(line)
    assert [s.ids for s in drafted] == [("ev_a",), ("ev_b",)]
    assert drafted[0].body.startswith('Dr. Smith said "It works')
    assert drafted[1].body == "Costs fell 20% in 2023"
    document = 'Dr. Smith said "It works." Costs fell 20% in 2023.'
    assert [s.text for s in sentences(document)] == [
        'Dr. Smith said "It works."',
        "Costs fell 20% in 2023.",
    ]


def test_an_abbreviation_ends_a_piece_only_as_a_word_of_its_own() -> None:
    """Only a piece's last characters are searched for an abbreviation; the word before counts."""
    from deep_research.text.words import split_line

    said = "The plant was opened by the mayor and Mr. Jones attended."
    assert list(split_line(said)) == [said]
    long = "The output of the plant, measured over a year, was approx. Twelve units were sold."
    assert list(split_line(long)) == [long]
    glued = "It was sold to AlphaMr. Then it grew. Then it was sold to Bravo Co. Then it shrank."
    assert list(split_line(glued)) == [
        "It was sold to AlphaMr.",
        "Then it grew.",
        "Then it was sold to Bravo Co. Then it shrank.",
    ]


def test_a_capital_after_a_number_is_a_unit_that_ends_a_sentence_not_an_initial() -> None:
    from deep_research.text.words import split_line

    units = "Thermal runaway starts at around 270 C. The onset for NMC is 210 C. It burns hotter."
    assert list(split_line(units)) == [
        "Thermal runaway starts at around 270 C.",
        "The onset for NMC is 210 C.",
        "It burns hotter.",
    ]
    named = "The report was written by J. Smith. He led the review."
    assert list(split_line(named)) == ["The report was written by J. Smith.", "He led the review."]
