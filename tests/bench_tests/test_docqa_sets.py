"""The docqa question sets (bench/docqa/*.json): each loads as the section reads it, and each
key fact is in the text of one of its question's pages as the local corpus extracts it."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bench.sections import Options, docqa
from deep_research.sources import SAMPLE_CORPUS
from deep_research.sources.local import LocalCorpus

SETS = sorted(docqa.QUESTION_SETS.glob("*.json"), key=lambda path: path.stem)


def _load(path: Path) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return spec


@pytest.mark.parametrize("path", SETS, ids=lambda path: path.stem)
def test_a_question_set_has_the_fields_the_section_reads(path: Path) -> None:
    spec = _load(path)
    assert isinstance(spec["corpus"], str) and spec["corpus"]
    assert spec["package"] is None or (isinstance(spec["package"], str) and spec["package"])
    assert any(spec[split] for split in docqa.SPLITS), "both splits are empty"
    for split in docqa.SPLITS:
        for item in spec[split]:
            assert set(item) == {"question", "pages", "facts"}, item
            assert item["question"].strip().endswith("?"), item["question"]
            assert item["pages"] and len(set(item["pages"])) == len(item["pages"]), item
            assert all(not page.startswith("/") for page in item["pages"]), item["pages"]
            # a fact with no word in it would be found in any text
            assert item["facts"] and all(docqa.normalized(fact) for fact in item["facts"]), item


def _root(spec: dict[str, Any]) -> Path:
    """Where the set's pages are, as the section finds them; skips when they are not here."""
    if spec["package"] is None:
        return SAMPLE_CORPUS
    if not shutil.which("dpkg") or not docqa._installed(spec["package"]):
        pytest.skip(f"{spec['package']} is not installed (the docqa section installs it)")
    root, _, reason = docqa.package_pages(spec["package"])
    assert root is not None, reason
    return root


@pytest.mark.parametrize("path", SETS, ids=lambda path: path.stem)
def test_every_key_fact_is_in_the_text_of_one_of_its_pages(path: Path, tmp_path: Path) -> None:
    spec = _load(path)
    root = _root(spec)
    items = [item for split in docqa.SPLITS for item in spec[split]]
    listed = sorted({page for item in items for page in item["pages"]})
    copy = tmp_path / "pages"
    for page in listed:
        assert (root / page).is_file(), f"{page} is not a page of {spec['package']}"
        (copy / page).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / page, copy / page)  # a linked page as the text it links to
    corpus = LocalCorpus(copy, tmp_path / "index.sqlite")

    async def text(page: str) -> str:
        return (await corpus.read((copy / page).as_uri())).text

    try:
        texts = {page: asyncio.run(text(page)) for page in listed}
    finally:
        corpus.close()
    missing = [
        (item["question"], fact)
        for item in items
        for fact in item["facts"]
        if not any(docqa.recall([fact], texts[page]) for page in item["pages"])
    ]
    assert missing == []


def test_a_sealed_set_runs_only_when_unsealed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a held-out set is sealed until the run that reports it: a run made while rules are being
    # chosen skips it, saying how to run it, and never reads its pages
    item = {"question": "Q?", "pages": ["a.html"], "facts": ["a fact"]}
    spec = {"corpus": "c", "package": "some-doc", "sealed": True, "dev": [], "test": [item]}
    (tmp_path / "held-out.json").write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setattr(docqa, "QUESTION_SETS", tmp_path)
    monkeypatch.delenv(docqa.UNSEAL, raising=False)
    asked: list[str] = []

    def pages(package: str) -> tuple[None, list[Path], str]:
        asked.append(package)
        return None, [], "not installed here"

    monkeypatch.setattr(docqa, "package_pages", pages)

    sealed = docqa.run(Options(quick=True))["corpora"]["held-out"]
    assert sealed["skipped"] == f"a sealed held-out set: run it with {docqa.UNSEAL}=1"
    assert asked == []
    monkeypatch.setenv(docqa.UNSEAL, "1")
    assert docqa.run(Options(quick=True))["corpora"]["held-out"]["skipped"] == "not installed here"
    assert asked == ["some-doc"]


def test_a_narrowed_run_asks_only_the_corpora_splits_and_pickers_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # while rules are being chosen, DOCQA_ONLY keeps a run to what is named: a dev split's
    # offline picker, say, never running a test split (held apart from every choice)
    item = {"question": "Q?", "pages": ["a.html"], "facts": ["a fact"]}
    for name in ("one-doc", "two-doc"):
        spec = {"corpus": name, "package": name, "dev": [item], "test": [item]}
        (tmp_path / f"{name}.json").write_text(json.dumps(spec), encoding="utf-8")
    monkeypatch.setattr(docqa, "QUESTION_SETS", tmp_path)
    monkeypatch.setattr(docqa, "package_pages", lambda package: (tmp_path, [tmp_path], None))
    ran: list[tuple[str, list[str]]] = []

    def run_corpus(name: str, root: Path, pages: list[Path], splits: dict[str, Any]) -> dict:
        ran.append((name, sorted(splits)))
        return {}

    monkeypatch.setattr(docqa, "_run_corpus", run_corpus)
    monkeypatch.setenv(docqa.ONLY, "two-doc,dev,offline")
    assert sorted(docqa.run(Options())["corpora"]) == ["two-doc"]
    assert ran == [("two-doc", ["dev"])]
    assert docqa.narrowed(docqa.PICKERS, "two-doc,dev,offline") == ["offline"]
    assert docqa.narrowed(docqa.PICKERS, "two-doc,dev") == list(docqa.PICKERS)
