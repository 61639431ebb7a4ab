"""Deterministic, token-bounded chunks of a document, with overlap and a content hash.

A token here is a run of non-space characters (a word with its punctuation), about 1.3 model
tokens of English. Chunks are windows of at most ``max_tokens`` tokens; consecutive windows
share ``overlap`` tokens, so a passage cut by one boundary is whole in the neighbouring chunk.
Each chunk is a verbatim slice, ``text[chunk.start:chunk.end] == chunk.text``, and carries the
sha256 of its normalized text (NFC, whitespace collapsed), so that the same passage on two
pages, or on the same page fetched twice, has the same hash.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from deep_research.state.models import Chunk

MAX_TOKENS = 256
"""Default chunk size, in tokens."""

OVERLAP = 32
"""Default tokens shared by consecutive chunks."""

_TOKEN = re.compile(r"\S+")


def normalized(text: str) -> str:
    """NFC form with runs of whitespace collapsed to one space, trimmed."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def content_hash(text: str) -> str:
    """The sha256 hex digest of the normalized text."""
    return hashlib.sha256(normalized(text).encode()).hexdigest()


def chunk_windows(
    text: str, *, max_tokens: int = MAX_TOKENS, overlap: int = OVERLAP
) -> list[tuple[int, int, int]]:
    """The ``(start, end, tokens)`` of each window :func:`chunk_text` cuts, without the chunks.

    Ranking passages needs only where each window lies; hashing and building every chunk
    would cost more than finding the windows.

    Raises:
        ValueError: the sizes are out of range.
    """
    if max_tokens < 1 or not 0 <= overlap < max_tokens:
        raise ValueError(
            f"need max_tokens >= 1 and 0 <= overlap < max_tokens, got {max_tokens}, {overlap}"
        )
    found = list(_TOKEN.finditer(text))
    windows: list[tuple[int, int, int]] = []
    step = max_tokens - overlap
    first = 0
    while first < len(found):
        last = min(first + max_tokens, len(found)) - 1
        windows.append((found[first].start(), found[last].end(), last - first + 1))
        if first + max_tokens >= len(found):
            break
        first += step
    return windows


def chunk_text(
    document_id: str, text: str, *, max_tokens: int = MAX_TOKENS, overlap: int = OVERLAP
) -> list[Chunk]:
    """Split ``text`` into overlapping windows of at most ``max_tokens`` tokens.

    Args:
        document_id: The document the chunks belong to (part of each chunk's id).
        text: The document's text.
        max_tokens: Tokens per chunk, at least 1.
        overlap: Tokens shared by consecutive chunks, less than ``max_tokens``.

    Returns:
        The chunks in order; none for a text without tokens.

    Raises:
        ValueError: the sizes are out of range.
    """
    return [
        Chunk(
            id=f"{document_id}#{index}",
            document_id=document_id,
            index=index,
            start=start,
            end=end,
            text=text[start:end],
            sha256=content_hash(text[start:end]),
            token_count=count,
        )
        for index, (start, end, count) in enumerate(
            chunk_windows(text, max_tokens=max_tokens, overlap=overlap)
        )
    ]
