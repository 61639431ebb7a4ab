"""Zip archives (DOCX, PPTX, EPUB) opened only after their directory is checked.

A zip bomb declares sizes it would take gigabytes to unpack, or packs a huge member into a
few kilobytes. Before anything is read, the archive's directory is checked: how many
members, how many bytes they unpack to in all, and how far each large one is compressed.
:mod:`zipfile` then never unpacks a member beyond the size its directory declares (a member
that lies about it fails its check), so the checked sizes bound what reading can take.
"""

from __future__ import annotations

import io
import zipfile

from deep_research.errors import UnreadableDocumentError
from deep_research.sources.documents._text import DocumentLimits

_LARGE_MEMBER = 1024 * 1024


def checked_zip(data: bytes, limits: DocumentLimits) -> zipfile.ZipFile:
    """Open ``data`` as a zip archive whose directory passed the limits' checks.

    Raises:
        UnreadableDocumentError: ``unreadable`` (not a zip archive) or ``too_large`` (too
            many members, too many bytes unpacked, or a member compressed like a bomb).
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise UnreadableDocumentError("unreadable", f"not a valid zip package: {exc}") from None
    members = archive.infolist()
    if len(members) > limits.max_zip_entries:
        raise UnreadableDocumentError(
            "too_large", f"a zip package of more than {limits.max_zip_entries:,} members"
        )
    unpacked = sum(member.file_size for member in members)
    if unpacked > limits.max_unpacked_bytes:
        raise UnreadableDocumentError(
            "too_large",
            f"unpacks to {unpacked:,} bytes (more than {limits.max_unpacked_bytes:,})",
        )
    for member in members:
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > _LARGE_MEMBER and ratio > limits.max_ratio:
            raise UnreadableDocumentError(
                "too_large",
                f"member {member.filename!r} is compressed {ratio:,.0f} to 1 (a zip bomb?)",
            )
    return archive


def read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """The bytes of member ``name``.

    Raises:
        UnreadableDocumentError: ``unreadable``: no such member, or it is corrupt.
    """
    try:
        return archive.read(name)
    except (KeyError, zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as e:
        raise UnreadableDocumentError("unreadable", f"cannot read {name!r}: {e}") from None
