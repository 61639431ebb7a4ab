"""Scholarly sources: PubMed, Europe PMC, OpenAlex and ClinicalTrials.gov, all keyless.

:func:`scholarly_provider` builds one provider by name from the process settings, once per
process (so that each API's rate limit holds across runs); :func:`merge_works` merges their
results by identifier. See docs/scholarly-sources.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from deep_research.errors import ConfigurationError
from deep_research.settings import Settings
from deep_research.sources.scholarly.base import ScholarlyProvider
from deep_research.sources.scholarly.client import ApiClient, RateLimiter
from deep_research.sources.scholarly.clinicaltrials import ClinicalTrialsSearch
from deep_research.sources.scholarly.europepmc import EuropePmcSearch
from deep_research.sources.scholarly.openalex import OpenAlexSearch
from deep_research.sources.scholarly.pubmed import PubMedSearch
from deep_research.sources.web.cache import PageCache
from deep_research.sources.web.reader import page_cache_path
from deep_research.state.scholarly import merge_works

SCHOLARLY = ("pubmed", "europepmc", "openalex", "clinicaltrials")
"""The scholarly providers, in the order ``academic`` lists them."""

RATES = {"pubmed": 3.0, "europepmc": 10.0, "openalex": 10.0, "clinicaltrials": 0.8}
"""Requests a second each API is sent from one process: NCBI's limit without a key,
OpenAlex's documented limit, about 50 a minute for ClinicalTrials.gov, and a polite 10 for
Europe PMC, which publishes none."""

NCBI_KEYED_RATE = 10.0
"""NCBI's limit with an API key."""

LABELS = {
    "pubmed": "PubMed",
    "europepmc": "Europe PMC",
    "openalex": "OpenAlex",
    "clinicaltrials": "ClinicalTrials.gov",
}


@dataclass(frozen=True, slots=True)
class ScholarlyConfig:
    """What a scholarly provider is built from (hashable, so that providers are shared)."""

    base_url: str
    timeout: float
    max_attempts: int
    api_key: str | None = None
    email: str | None = None
    cache_path: Path | None = None
    """The page cache, where texts that came with search results wait to be read."""
    cache_ttl: float = 0.0

    @classmethod
    def from_settings(cls, name: str, settings: Settings) -> ScholarlyConfig:
        """The settings of provider ``name``.

        Raises:
            ConfigurationError: its base URL is not an http(s) URL.
        """
        base_url = {
            "pubmed": settings.pubmed_base_url,
            "europepmc": settings.europepmc_base_url,
            "openalex": settings.openalex_base_url,
            "clinicaltrials": settings.clinicaltrials_base_url,
        }[name]
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"DEEP_RESEARCH_{name.upper()}_BASE_URL must be an http(s) URL, got {base_url!r}"
            )
        key = settings.ncbi_api_key.get_secret_value() if settings.ncbi_api_key else None
        return cls(
            base_url=base_url,
            timeout=settings.scholarly_timeout,
            max_attempts=settings.scholarly_max_attempts,
            api_key=key if name == "pubmed" else None,
            email=settings.contact_email,
            cache_path=page_cache_path(settings),
            cache_ttl=settings.page_cache_ttl,
        )


def build_provider(name: str, config: ScholarlyConfig) -> ScholarlyProvider:
    """A new provider ``name`` for ``config`` (tests pass a client of their own instead)."""
    rate = NCBI_KEYED_RATE if name == "pubmed" and config.api_key else RATES[name]
    headers = {"From": config.email} if config.email else {}
    client = ApiClient(
        LABELS[name],
        config.base_url,
        timeout=config.timeout,
        max_attempts=config.max_attempts,
        limiter=RateLimiter(rate),
        headers=headers,
    )
    cache = PageCache(config.cache_path, config.cache_ttl) if config.cache_path else None
    return provider_for(name, client, config, cache=cache)


def provider_for(
    name: str, client: ApiClient, config: ScholarlyConfig, *, cache: PageCache | None = None
) -> ScholarlyProvider:
    """Provider ``name`` over ``client``, keeping texts in ``cache`` when there is one."""
    provider: ScholarlyProvider
    if name == "pubmed":
        provider = PubMedSearch(client, api_key=config.api_key, email=config.email)
    elif name == "europepmc":
        provider = EuropePmcSearch(client)
    elif name == "openalex":
        provider = OpenAlexSearch(client, email=config.email)
    elif name == "clinicaltrials":
        provider = ClinicalTrialsSearch(client)
    else:
        raise ConfigurationError(f"no scholarly provider named {name!r}")
    provider.cache = cache if cache is not None and cache.enabled else None
    return provider


@lru_cache(maxsize=16)
def _shared(name: str, config: ScholarlyConfig) -> ScholarlyProvider:
    return build_provider(name, config)


def scholarly_provider(name: str, settings: Settings) -> ScholarlyProvider:
    """Provider ``name`` for the process settings, one per process and configuration.

    Raises:
        ConfigurationError: its base URL is not an http(s) URL.
    """
    return _shared(name, ScholarlyConfig.from_settings(name, settings))


__all__ = [
    "SCHOLARLY",
    "ClinicalTrialsSearch",
    "EuropePmcSearch",
    "OpenAlexSearch",
    "PubMedSearch",
    "ScholarlyConfig",
    "ScholarlyProvider",
    "build_provider",
    "merge_works",
    "provider_for",
    "scholarly_provider",
]
