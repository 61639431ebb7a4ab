"""A served run's corpus names its documents relative to the corpus folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from deep_research.errors import SourceError
from deep_research.report.build import location
from deep_research.sources.local import LocalCorpus
from deep_research.sources.served import ServedCorpus


@pytest.fixture
def served(tmp_path: Path) -> ServedCorpus:
    root = tmp_path / "secret-server-folder" / "corpus"
    (root / "grid").mkdir(parents=True)
    (root / "grid" / "flow batteries.md").write_text(
        "# Flow batteries\n\nVanadium flow batteries store energy in liquid electrolytes.\n"
    )
    return ServedCorpus(LocalCorpus(root, tmp_path / "index.sqlite"))


async def test_results_and_documents_carry_relative_urls_only(served: ServedCorpus) -> None:
    (hit,) = await served.search("vanadium flow batteries", 5)
    assert hit.url == "corpus:///grid/flow%20batteries.md"
    document = await served.read(hit.url)
    assert document.url == hit.url and "Vanadium" in document.text
    assert document.metadata["path"] == "grid/flow batteries.md"
    assert "secret-server-folder" not in document.model_dump_json()
    assert location(hit.url, [served.corpus.root]) == "grid/flow batteries.md"


@pytest.mark.parametrize(
    "url", ["corpus:///../../etc/passwd", "corpus:///missing.md", "file:///etc/passwd"]
)
async def test_reading_outside_or_missing_fails_without_naming_folders(
    served: ServedCorpus, url: str
) -> None:
    with pytest.raises(SourceError) as info:
        await served.read(url)
    assert "secret-server-folder" not in str(info.value)
