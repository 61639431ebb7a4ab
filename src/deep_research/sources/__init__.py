"""Source providers (local corpus, Tavily, SearXNG, MCP, scholarly APIs, the web reader)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from deep_research.context import resolved_sources
from deep_research.errors import ConfigurationError, CorpusOutsideRootsError
from deep_research.settings import Settings, get_settings
from deep_research.sources.base import SourceProvider
from deep_research.sources.documents import DocumentLimits
from deep_research.sources.local import CorpusLimits, LocalCorpus, default_index_path
from deep_research.sources.served import ServedCorpus

__all__ = ["SAMPLE_CORPUS", "LocalCorpus", "SourceProvider", "load_sources"]

SAMPLE_CORPUS = Path(__file__).resolve().parent.parent / "sample_corpus"
"""The bundled sample corpus, used when no corpus folder is given."""


@lru_cache(maxsize=16)
def _local(root: str, data_dir: str, limits: CorpusLimits) -> LocalCorpus:
    path = Path(root).expanduser().resolve()
    return LocalCorpus(path, default_index_path(Path(data_dir), path), limits)


def corpus_roots(settings: Settings) -> list[Path]:
    """The folders served runs may read: ``DEEP_RESEARCH_CORPUS_ROOTS``, or the sample corpus."""
    named = [p for p in settings.corpus_roots.split(os.pathsep) if p.strip()]
    return [Path(p).expanduser().resolve() for p in named] or [SAMPLE_CORPUS.resolve()]


def check_corpus_dir(corpus_dir: str | None, roots: Sequence[Path]) -> None:
    """Refuse a corpus folder that does not lie inside one of ``roots``.

    The folder is resolved first (``..`` and symbolic links included), and nothing in it is
    opened.

    Raises:
        CorpusOutsideRootsError: it lies outside every root.
    """
    folder = Path(corpus_dir).expanduser().resolve() if corpus_dir else SAMPLE_CORPUS.resolve()
    if not any(folder.is_relative_to(root) for root in roots):
        raise CorpusOutsideRootsError(
            f"this server reads corpora only inside its corpus roots; {corpus_dir!r} is not in"
            " one (the operator sets DEEP_RESEARCH_CORPUS_ROOTS)"
        )


def load_sources(
    kind: str, corpus_dir: str | None, *, served: bool = False
) -> list[SourceProvider]:
    """Return the providers a run searches, by the context's ``sources`` choice.

    ``kind`` is ``auto`` or provider names joined with ``+`` (see
    :func:`deep_research.context.source_names`). ``auto`` means Tavily when
    ``TAVILY_API_KEY`` is set, else SearXNG when ``DEEP_RESEARCH_SEARXNG_URL`` is, else the
    local corpus. With Tavily or SearXNG comes the web reader (``web``), which reads the pages
    they find through the page cache and the SSRF-guarded fetcher. ``mcp`` adds every MCP
    server of ``DEEP_RESEARCH_MCP_CONFIG`` that has a search tool. ``pubmed``, ``europepmc``,
    ``openalex`` and ``clinicaltrials`` (``academic``: all four) are the keyless scholarly
    APIs (:mod:`deep_research.sources.scholarly`).

    A served run (``served``, a user's run on the server) may read a local corpus only inside
    the operator's corpus roots (:func:`corpus_roots`).

    Raises:
        ConfigurationError: a name is unknown, a provider is asked for without its setting
            (Tavily's key, SearXNG's URL, the MCP configuration), or a setting is invalid.
        CorpusOutsideRootsError: a served run named a corpus folder outside the roots.
        CorpusNotFoundError: the corpus folder does not exist.
    """
    settings = get_settings()
    try:
        names = resolved_sources(
            kind,
            tavily=settings.tavily_api_key is not None,
            searxng=bool(settings.searxng_url),
        )
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from None
    providers: list[SourceProvider] = []
    for name in names:
        if name == "local":
            corpus = _local_corpus(settings, corpus_dir, served=served)
            providers.append(ServedCorpus(corpus) if served else corpus)
        elif name == "tavily":
            providers += _tavily(settings, [p.name for p in providers])
        elif name == "searxng":
            providers += _searxng(settings, [p.name for p in providers])
        elif name == "mcp":
            if settings.mcp_config is None:
                raise ConfigurationError("MCP sources need DEEP_RESEARCH_MCP_CONFIG; it is not set")
            from deep_research.sources.mcp import mcp_sources

            providers += mcp_sources(str(settings.mcp_config))
        else:
            from deep_research.sources.scholarly import scholarly_provider

            providers.append(scholarly_provider(name, settings))
    return providers


def _local_corpus(settings: Settings, corpus_dir: str | None, *, served: bool) -> LocalCorpus:
    """The local corpus (a served run's folder must lie inside the corpus roots)."""
    if served:
        check_corpus_dir(corpus_dir, corpus_roots(settings))
    limits = CorpusLimits(
        max_file_bytes=settings.corpus_max_file_bytes,
        max_files=settings.corpus_max_files,
        max_total_bytes=settings.corpus_max_bytes,
        documents=DocumentLimits(max_pages=settings.corpus_max_pages),
    )
    return _local(corpus_dir or str(SAMPLE_CORPUS), str(settings.data_dir), limits)


def _tavily(settings: Settings, chosen: list[str]) -> list[SourceProvider]:
    """Tavily, and the web reader that reads what it finds unless the run has one already.

    Raises:
        ConfigurationError: ``TAVILY_API_KEY`` is not set.
    """
    if settings.tavily_api_key is None:
        raise ConfigurationError("Tavily search needs TAVILY_API_KEY; it is not set")
    from deep_research.sources.tavily import TavilySearch
    from deep_research.sources.web.reader import WebConfig, web_reader

    reader = web_reader(WebConfig.from_settings(settings))
    search = TavilySearch(
        settings.tavily_api_key.get_secret_value(),
        base_url=settings.tavily_base_url,
        search_depth=settings.tavily_search_depth,
        include_raw_content=settings.tavily_raw_content,
        cache=reader.cache,
        timeout=settings.tavily_timeout,
        max_attempts=settings.tavily_max_attempts,
    )
    return [search, *([] if "web" in chosen else [reader])]


def _searxng(settings: Settings, chosen: list[str]) -> list[SourceProvider]:
    """SearXNG, and the web reader that reads what it finds unless the run has one already.

    Raises:
        ConfigurationError: ``DEEP_RESEARCH_SEARXNG_URL`` is not set or not an http(s) URL.
    """
    if settings.searxng_url is None:
        raise ConfigurationError("SearXNG search needs DEEP_RESEARCH_SEARXNG_URL; it is not set")
    from deep_research.sources.searxng import SearxngSearch
    from deep_research.sources.web.reader import WebConfig, web_reader

    search = SearxngSearch(
        settings.searxng_url,
        engines=settings.searxng_engines.split(","),
        language=settings.searxng_language,
        time_range=settings.searxng_time_range,
    )
    reader = [] if "web" in chosen else [web_reader(WebConfig.from_settings(settings))]
    return [search, *reader]
