"""PubMed XML that attacks the parser is one failed read (held in round 3 of issue 30).

An external entity (XXE) is never fetched, and an entity expansion bomb (billion laughs) is
refused by expat's amplification limit: both are a ``SourceError``, in a fraction of a second.
"""

from __future__ import annotations

import time

import pytest

from deep_research.errors import SourceError
from deep_research.sources.scholarly.pubmed import parse_efetch


def _record(doctype: str, title: str) -> str:
    return (
        f'<?xml version="1.0"?>{doctype}<PubmedArticleSet><PubmedArticle><MedlineCitation>'
        f"<PMID>1</PMID><Article><ArticleTitle>{title}</ArticleTitle></Article>"
        "</MedlineCitation></PubmedArticle></PubmedArticleSet>"
    )


def _laughs(levels: int = 9) -> str:
    entities = ['<!ENTITY lol0 "lol">']
    for n in range(1, levels + 1):
        entities.append(f'<!ENTITY lol{n} "{f"&lol{n - 1};" * 10}">')
    return _record(f"<!DOCTYPE lolz [{''.join(entities)}]>", f"&lol{levels};")


@pytest.mark.parametrize(
    "xml",
    [
        _record('<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', "T &xxe;"),
        _laughs(),
    ],
    ids=["external entity", "billion laughs"],
)
def test_hostile_xml_is_one_failed_read_and_reads_no_file(xml: str) -> None:
    started = time.monotonic()
    with pytest.raises(SourceError, match="does not parse") as refused:
        parse_efetch(xml, "1")
    assert "root:" not in str(refused.value)  # /etc/passwd was not read into anything
    assert time.monotonic() - started < 5
