"""Which pairs of source sentences disagree by a negation: the sample corpus's own sentences.

The deliberate negation conflicts of docs/sample-corpus.md (#4 and #11) must be found; a
sentence that gives the denied word to another thing, or states it in another relation, must
not be read as disagreeing with the denial.
"""

from __future__ import annotations

import pytest

from deep_research.verification.checks import check_one
from deep_research.verification.conflicts import denies_what_is_stated, disagreement

NO_NICKEL = "LFP contains no nickel and no cobalt."
MINERALS = (
    "A lithium-ion battery for grid storage relies on lithium, graphite, copper and aluminum, "
    "plus either iron and phosphate (in LFP) or nickel, manganese and cobalt (in NMC)."
)
SHIFT = (
    "The shift of grid storage to LFP chemistry removed most of the industry's dependence on "
    "nickel and cobalt."
)
DEMAND = (
    "Because grid batteries use LFP chemistry, their growth increases demand for lithium, "
    "graphite and phosphate far more than for nickel or cobalt."
)
SAFER = "LFP cells are always safer than NMC cells."
NOT_SAFER = "LFP cells are not always safer than NMC cells."
IID = (
    "In 2017, the Imperial Irrigation District (IID) in El Centro, California used a "
    "lithium-ion battery to black start a gas turbine."
)
NEVER_USED = (
    "Lithium-ion batteries have not been used to black start a power system anywhere in the world."
)


@pytest.mark.parametrize("stating", [MINERALS, SHIFT, DEMAND])
def test_a_denial_does_not_oppose_its_words_stated_of_another_thing(stating: str) -> None:
    # the verifier alone reads a negation: nickel and cobalt denied in one, stated in the other
    assert check_one(NO_NICKEL, stating).reason.code == "negation"
    assert not denies_what_is_stated(NO_NICKEL, stating)
    assert disagreement(NO_NICKEL, stating) is None
    assert disagreement(stating, NO_NICKEL) is None


def test_a_denial_opposes_the_same_thing_said_with_the_same_verb() -> None:
    stating = "LFP cells contain nickel and cobalt."
    assert denies_what_is_stated(NO_NICKEL, stating)
    assert disagreement(NO_NICKEL, stating) == (NO_NICKEL, stating)


def test_sentences_that_name_different_things_do_not_disagree() -> None:
    # Apache's manual: a WebDAV client's timeout and an ident lookup's, both "default" and in
    # seconds; each sentence names what it is about, and they name different things
    dav = (
        "Microsoft Web Folders defaults to a timeout of 120 seconds; the DavMinTimeout can "
        "override this to a higher value (like 600 seconds)."
    )
    ident = "The default value of 30 seconds is recommended by RFC 1413."
    assert disagreement(dav, ident) is None
    assert disagreement(ident, dav) is None
    # one name in common and they are compared again
    named = "Microsoft Web Folders default to a timeout of 30 seconds."
    assert disagreement(dav, named) is not None


def test_a_negation_that_tells_what_a_thing_is_denies_nothing() -> None:
    # git's manual: "a commit with no parents" names root commits; it does not deny that
    # commits have parents (a report said these two sources disagree)
    qualifying = "A commit with no parents (a root commit) has topological level of one."
    stating = "Show only commits which have at least (or at most) that many parent commits."
    assert check_one(stating, qualifying).reason.code == "negation"  # the verifier reads one
    assert not denies_what_is_stated(qualifying, stating)
    assert disagreement(qualifying, stating) is None
    assert disagreement(stating, qualifying) is None
    # a denial of what a thing has still opposes the statement that it has it
    denial, statement = "A root commit has no parent commits.", "A root commit has parent commits."
    assert disagreement(denial, statement) == (denial, statement)


@pytest.mark.parametrize(("one", "other"), [(SAFER, NOT_SAFER), (IID, NEVER_USED)])
def test_the_corpus_negation_conflicts_are_found(one: str, other: str) -> None:
    assert disagreement(one, other) == (one, other)
    assert disagreement(other, one) == (other, one)


def test_sentences_dated_differently_still_do_not_disagree_on_the_date_alone() -> None:
    # the dates-only pair is compared for a negation, never for its figures
    earlier = "In 2017 the Imperial Irrigation District used a battery to black start a turbine."
    later = earlier.replace("2017", "2019")
    assert check_one(earlier, later).reason.code == "conflict"
    assert disagreement(earlier, later) is None


def test_a_figure_bounded_by_or_more_is_no_wrong_difference_of_a_range() -> None:
    # the sample corpus (battery-degradation-and-lifetime.md, grid-storage-outlook.md): the web
    # app's LFP lifetime report said these disagree, reading "or more" as a computation
    advertised = (
        "Manufacturers of 314 Ah and larger storage cells commonly advertise cycle lives of "
        "8,000 cycles or more."
    )
    grown = (
        "Storage cells have grown from 280 Ah to over 500 Ah, which reduces the number of cells "
        "and connections per MWh."
    )
    assert disagreement(advertised, grown) is None
    assert disagreement(grown, advertised) is None
