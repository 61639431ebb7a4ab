"""The documents benchmark on a tiny scale: every kind is made, indexed whole, and rendered."""

from __future__ import annotations

import pytest

from bench.report import systems
from bench.sections import Options, documents

pytestmark = pytest.mark.bench


def test_the_documents_section_indexes_each_kind_and_renders() -> None:
    result = documents.run(Options(quick=True))
    assert set(result["kinds"]) == {"pdf", "docx", "pptx", "epub"}
    for figures in result["kinds"].values():
        assert figures["characters"] > 1000 and figures["seconds"]["median"] > 0
    text, behind = systems.documents(result)
    assert "| PDF |" in text and "s per MB" in text and behind == []
