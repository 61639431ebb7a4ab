"""The store namespaces the project itself uses; no user may own one of these roots."""

from __future__ import annotations

DOCUMENTS_NAMESPACE = ("documents",)
"""Namespace of page text in the content store, keyed by document id."""

RESEARCHERS_NAMESPACE = ("researchers",)
"""Root of the stages researchers keep until their round is over (``persistence/scratch.py``),
under the thread id and the researcher's task id."""

RESERVED_NAMESPACE_ROOTS = frozenset({DOCUMENTS_NAMESPACE[0], RESEARCHERS_NAMESPACE[0]})
"""First elements of the project's namespaces. A user's namespaces start with the user's id,
so none of these can be a user id (see :mod:`deep_research.server.tokens`)."""
