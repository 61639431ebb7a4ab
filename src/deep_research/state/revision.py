"""Which claims a revise pass takes up, and whether another pass is due.

Pure functions of the claims, shared by the revise node and the router after verify
(graph/routing.py), so that the graph's loop and the node agree on what needs revising.
"""

from __future__ import annotations

from collections.abc import Sequence

from deep_research.state.models import Claim, Verdict


def needs_revision(claim: Claim) -> bool:
    """Partial, unsupported or contradicted, or supported only by an uncited alternate.

    A PARTIAL claim is narrowed or hedged to what the evidence states while the budget allows
    rewriting; when it does not, the claim stays, marked in the report (see
    :func:`needs_final_revision`). A claim the offline checker judged because the model gave
    no usable verdict (``checked_by="fallback"``) is never revised: the model's failure must
    not cost it.
    """
    if claim.checked_by == "fallback":
        return False
    return claim.verdict is Verdict.PARTIAL or needs_final_revision(claim)


def needs_final_revision(claim: Claim) -> bool:
    """Unsupported or contradicted, or supported only by an uncited alternate.

    What the last pass, which never rewrites, re-cites or removes. A partial claim is not
    among them: part of it is supported, so it stays, marked. Nor is a claim judged by the
    fallback (see :func:`needs_revision`).
    """
    if claim.checked_by == "fallback":
        return False
    if claim.verdict in (Verdict.UNSUPPORTED, Verdict.CONTRADICTED):
        return True
    return claim.evidence_id is not None and claim.evidence_id not in claim.citation_keys


def revision_due(claims: Sequence[Claim], revisions: int, max_revisions: int) -> bool:
    """True while a claim needs revision and the budget allows another revise pass.

    The budget is ``max_revisions`` rewriting passes, for every claim that
    :func:`needs_revision`, plus one last pass that only re-cites or removes what
    :func:`needs_final_revision` (see :mod:`deep_research.nodes.revise`), so the loop always
    ends.
    """
    if max_revisions <= 0 or revisions > max_revisions:
        return False
    wanted = needs_revision if revisions < max_revisions else needs_final_revision
    return any(map(wanted, claims))
