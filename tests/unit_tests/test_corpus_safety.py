"""A local corpus never leaves its folder, and a served run reads only the operator's roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deep_research.errors import CorpusOutsideRootsError, CorpusTooLargeError
from deep_research.settings import get_settings
from deep_research.sources import SAMPLE_CORPUS, load_sources
from deep_research.sources.local import CorpusLimits, LocalCorpus
from deep_research.sources.served import ServedCorpus


def _corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n\nThe zeppelin hangar holds two airships.\n")
    return root


async def test_links_out_of_the_folder_devices_and_fifos_are_not_indexed(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("The zeppelin password is hunter2.\n")
    (root / "passwd.txt").symlink_to("/etc/passwd")
    (root / "secret.txt").symlink_to(secret)
    (root / "environ.txt").symlink_to("/proc/self/environ")
    (root / "inside.md").symlink_to(root / "notes.md")  # within the folder: notes.md, once
    os.mkfifo(root / "pipe.txt")
    corpus = LocalCorpus(root, tmp_path / "index.sqlite")
    stats = corpus.index()
    assert stats.added == 1  # notes.md (the link in the folder is another name for it)
    hits = await corpus.search("zeppelin password root", 10)
    paths = {Path(hit.url.removeprefix("file://")).name for hit in hits}
    assert paths == {"notes.md"}
    assert not any("hunter2" in hit.snippet or "root:" in hit.snippet for hit in hits)


def test_file_size_file_count_and_total_bytes_are_capped(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    (root / "big.txt").write_text("zeppelin " * 2000)
    corpus = LocalCorpus(root, tmp_path / "a.sqlite", CorpusLimits(max_file_bytes=1024))
    assert corpus.index().added == 1  # big.txt skipped
    for i in range(3):
        (root / f"more-{i}.md").write_text(f"# More {i}\n\nA note.\n")
    few = LocalCorpus(root, tmp_path / "b.sqlite", CorpusLimits(max_files=2))
    with pytest.raises(CorpusTooLargeError, match="DEEP_RESEARCH_CORPUS_MAX_FILES"):
        few.index()
    small = LocalCorpus(root, tmp_path / "c.sqlite", CorpusLimits(max_total_bytes=200))
    with pytest.raises(CorpusTooLargeError, match="more than"):
        small.index()


@pytest.mark.parametrize("escape", ["/etc", "{roots}/../outside", "{roots}/link-out"])
def test_a_served_run_cannot_name_a_folder_outside_the_roots(
    escape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = tmp_path / "roots"
    (roots / "allowed").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (roots / "link-out").symlink_to(tmp_path / "outside")
    monkeypatch.setenv("DEEP_RESEARCH_CORPUS_ROOTS", str(roots))
    get_settings.cache_clear()
    with pytest.raises(CorpusOutsideRootsError, match="DEEP_RESEARCH_CORPUS_ROOTS"):
        load_sources("local", escape.format(roots=roots), served=True)
    assert load_sources("local", str(roots / "allowed"), served=True)[0].name == "local"


def test_served_runs_default_to_the_sample_corpus_and_the_cli_reads_any_folder(
    tmp_path: Path,
) -> None:
    with pytest.raises(CorpusOutsideRootsError):
        load_sources("local", str(tmp_path), served=True)
    (served,) = load_sources("local", None, served=True)
    assert isinstance(served, ServedCorpus) and served.corpus.root == SAMPLE_CORPUS.resolve()
    (mine,) = load_sources("local", str(tmp_path), served=False)
    assert isinstance(mine, LocalCorpus) and mine.root == tmp_path.resolve()


def test_a_served_run_may_pick_only_the_offered_models(monkeypatch: pytest.MonkeyPatch) -> None:
    from deep_research.context import Context
    from deep_research.errors import ModelNotAllowedError
    from deep_research.services import Services

    served = Services(served=True)
    assert served.engine_for(Context(model="offline")).name == "offline"
    with pytest.raises(ModelNotAllowedError, match="DEEP_RESEARCH_ALLOWED_MODELS"):
        served.engine_for(Context(model="gpt-4.1"))
    monkeypatch.setenv("DEEP_RESEARCH_ALLOWED_MODELS", "gpt-4.1, gpt-4.1-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    get_settings.cache_clear()
    assert "gpt-4.1" in get_settings().served_models
    assert served.engine_for(Context(model="gpt-4.1")).name == "gpt-4.1"
    assert Services().engine_for(Context(model="offline")).name == "offline"


async def test_a_page_linked_from_other_folders_is_one_document(tmp_path: Path) -> None:
    # a manual's language folders link each untranslated page to the original (Debian's
    # apache2-doc does so for ten languages): the page is indexed, found and cited once, under
    # its own name, not once per language; a real translation is a document of its own
    root = tmp_path / "manual"
    for folder in ("en", "da", "fr", ".hidden"):
        (root / folder).mkdir(parents=True)
    (root / "en" / "keepalive.html").write_text(
        "<html><head><title>KeepAlive</title></head><body><p>KeepAliveTimeout defaults to 5 "
        "seconds in the zeppelin server.</p></body></html>"
    )
    (root / "da" / "keepalive.html").symlink_to("../en/keepalive.html")
    (root / "fr" / "keepalive.html").write_text(
        "<html><head><title>KeepAlive</title></head><body><p>KeepAliveTimeout vaut 5 secondes "
        "par défaut dans le serveur zeppelin.</p></body></html>"
    )
    (root / ".hidden" / "notes.md").write_text("# Notes\n\nThe zeppelin hangar is hidden.\n")
    (root / "en" / "notes.md").symlink_to("../.hidden/notes.md")  # the only way in: kept
    corpus = LocalCorpus(root, tmp_path / "index.sqlite")

    assert corpus.index().added == 3
    hits = await corpus.search("zeppelin", 10)
    found = sorted(str(Path(hit.url.removeprefix("file://")).relative_to(root)) for hit in hits)
    assert found == ["en/keepalive.html", "en/notes.md", "fr/keepalive.html"]
