"""Process-wide settings: keys, endpoints and paths, read from the environment.

Per-run knobs (mode, depth, budgets) live in :mod:`deep_research.context`; secrets never travel
in run configuration. Build settings through :func:`get_settings`, never at import time.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_OPENAI_MODEL = "gpt-4.1-mini"
"""The model used when ``OPENAI_API_KEY`` is set and ``DEEP_RESEARCH_MODEL`` is not."""

OFFLINE = "offline"
"""The model name that selects the offline, extractive engine."""


class Settings(BaseSettings):
    """Settings of one process, each read from the environment variable named in its alias."""

    model_config = SettingsConfigDict(env_file=None, extra="ignore", populate_by_name=True)

    model: str | None = Field(default=None, validation_alias="DEEP_RESEARCH_MODEL")
    """Model name; unset or ``offline`` selects the offline engine (see :meth:`engine_model`)."""

    judge_model: str | None = Field(default=None, validation_alias="DEEP_RESEARCH_JUDGE_MODEL")
    """Model that judges claims (a cheaper one than the writer, say); unset: ``model``."""

    notes_model: str | None = Field(default=None, validation_alias="DEEP_RESEARCH_NOTES_MODEL")
    """Model that proposes queries, takes notes and titles chats; unset: ``model``."""

    structured_output: Literal["tools", "json", "auto"] = Field(
        default="auto", validation_alias="DEEP_RESEARCH_STRUCTURED_OUTPUT"
    )
    """How structured answers are asked for: ``tools`` (tool calling), ``json`` (JSON in the
    reply's text, for servers without tool calling), ``auto`` (tools, then JSON when they fail)."""

    context_tokens: int | None = Field(
        default=None, ge=1024, validation_alias="DEEP_RESEARCH_CONTEXT_TOKENS"
    )
    """Context window of every model, in tokens; unset: what the model's server says (llama.cpp,
    vLLM, Ollama), else each model's from the table of known models (engines/llm/catalog.py),
    else 32768."""

    temperature: float | None = Field(
        default=None, ge=0, le=2, validation_alias="DEEP_RESEARCH_TEMPERATURE"
    )
    """Sampling temperature of every model call; unset: the provider's default."""

    seed: int | None = Field(default=None, validation_alias="DEEP_RESEARCH_SEED")
    """Sampling seed of every model call, where the provider takes one (OpenAI-compatible
    servers, Ollama, Mistral); with temperature 0 a local server repeats its answers."""

    writer_max_tokens: int | None = Field(
        default=None, ge=16, validation_alias="DEEP_RESEARCH_WRITER_MAX_TOKENS"
    )
    """Most tokens one reply of the writer may have (sent as ``max_tokens``); unset: no cap."""

    judge_max_tokens: int | None = Field(
        default=None, ge=16, validation_alias="DEEP_RESEARCH_JUDGE_MAX_TOKENS"
    )
    """Most tokens one reply of the judge may have; unset: no cap."""

    notes_max_tokens: int | None = Field(
        default=None, ge=16, validation_alias="DEEP_RESEARCH_NOTES_MAX_TOKENS"
    )
    """Most tokens one reply of the notes model may have; unset: no cap."""

    prices: dict[str, tuple[float, float]] = Field(
        default_factory=dict, validation_alias="DEEP_RESEARCH_PRICES"
    )
    """USD per million prompt and completion tokens by model name prefix, as JSON
    (``{"my-model": [0.2, 0.8]}``), over the shipped table; a model in neither is not priced."""

    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    """Key for the OpenAI-compatible endpoint."""

    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    """Any OpenAI-compatible endpoint (OpenAI, OpenRouter, vLLM, Ollama, llama.cpp)."""

    tavily_api_key: SecretStr | None = Field(default=None, validation_alias="TAVILY_API_KEY")
    """Enables Tavily web search when set (Tavily's keyless mode is never used)."""

    tavily_base_url: str | None = Field(
        default=None, validation_alias="DEEP_RESEARCH_TAVILY_BASE_URL"
    )
    """Tavily's endpoint, for proxies, gateways and local fakes; unset uses Tavily's own."""

    tavily_search_depth: Literal["basic", "advanced", "fast", "ultra-fast"] = Field(
        default="advanced", validation_alias="DEEP_RESEARCH_TAVILY_SEARCH_DEPTH"
    )
    """Tavily's ``search_depth``: ``advanced`` finds better passages for twice the credits."""

    tavily_raw_content: bool = Field(
        default=True, validation_alias="DEEP_RESEARCH_TAVILY_RAW_CONTENT"
    )
    """Ask Tavily for each result's page text, so that most results need no fetch."""

    tavily_timeout: float = Field(
        default=30.0, gt=0, validation_alias="DEEP_RESEARCH_TAVILY_TIMEOUT"
    )
    """Seconds allowed for one Tavily request."""

    tavily_max_attempts: int = Field(
        default=3, ge=1, le=10, validation_alias="DEEP_RESEARCH_TAVILY_MAX_ATTEMPTS"
    )
    """Attempts per Tavily query; 429, 5xx and timeouts are retried with backoff and jitter."""

    allowed_models: str = Field(default="", validation_alias="DEEP_RESEARCH_ALLOWED_MODELS")
    """Models (comma-separated) a served run may pick besides the server's own model and
    ``offline``; any other ``model`` in a run's or an assistant's context is refused."""

    corpus_roots: str = Field(default="", validation_alias="DEEP_RESEARCH_CORPUS_ROOTS")
    """Folders (``os.pathsep``-separated) a served run's corpus may lie in; empty: the bundled
    sample corpus only. The command line, on the user's own machine, reads any folder."""

    corpus_max_files: int = Field(
        default=20_000, ge=1, validation_alias="DEEP_RESEARCH_CORPUS_MAX_FILES"
    )
    """Files one local corpus may hold."""

    corpus_max_bytes: int = Field(
        default=1024**3, ge=1024, validation_alias="DEEP_RESEARCH_CORPUS_MAX_BYTES"
    )
    """Bytes one local corpus may hold in all."""

    corpus_max_file_bytes: int = Field(
        default=20 * 1024**2, ge=1024, validation_alias="DEEP_RESEARCH_CORPUS_MAX_FILE_BYTES"
    )
    """Larger files of a local corpus are skipped."""

    corpus_max_pages: int = Field(
        default=2_000, ge=1, validation_alias="DEEP_RESEARCH_CORPUS_MAX_PAGES"
    )
    """PDFs with more pages, and presentations with more slides, are skipped as too large."""

    searxng_url: str | None = Field(default=None, validation_alias="DEEP_RESEARCH_SEARXNG_URL")
    """A self-hosted SearXNG instance (``http://127.0.0.1:8888``); its JSON output must be on.
    With ``sources=auto`` it is used when set and ``TAVILY_API_KEY`` is not."""

    searxng_engines: str = Field(default="", validation_alias="DEEP_RESEARCH_SEARXNG_ENGINES")
    """Comma-separated SearXNG engines to query (empty: the instance's defaults)."""

    searxng_language: str | None = Field(
        default=None, validation_alias="DEEP_RESEARCH_SEARXNG_LANGUAGE"
    )
    """Language of SearXNG results (``en``, ``zh``, ``fr-FR``); unset: the instance's."""

    searxng_time_range: Literal["day", "week", "month", "year"] | None = Field(
        default=None, validation_alias="DEEP_RESEARCH_SEARXNG_TIME_RANGE"
    )
    """Only SearXNG results from the last day, week, month or year."""

    mcp_config: Path | None = Field(default=None, validation_alias="DEEP_RESEARCH_MCP_CONFIG")
    """An ``mcpServers`` JSON file: the MCP servers whose tools are sources (sources/mcp.py)."""

    pubmed_base_url: str = Field(
        default="https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
        validation_alias="DEEP_RESEARCH_PUBMED_BASE_URL",
    )
    """NCBI E-utilities, for the ``pubmed`` source (``esearch.fcgi`` and the others are
    appended)."""

    europepmc_base_url: str = Field(
        default="https://www.ebi.ac.uk/europepmc/webservices/rest",
        validation_alias="DEEP_RESEARCH_EUROPEPMC_BASE_URL",
    )
    """Europe PMC's REST API, for the ``europepmc`` source (``search`` is appended)."""

    openalex_base_url: str = Field(
        default="https://api.openalex.org", validation_alias="DEEP_RESEARCH_OPENALEX_BASE_URL"
    )
    """OpenAlex's API, for the ``openalex`` source (``works`` is appended)."""

    clinicaltrials_base_url: str = Field(
        default="https://clinicaltrials.gov/api/v2",
        validation_alias="DEEP_RESEARCH_CLINICALTRIALS_BASE_URL",
    )
    """ClinicalTrials.gov's API v2, for the ``clinicaltrials`` source (``studies`` is
    appended)."""

    ncbi_api_key: SecretStr | None = Field(default=None, validation_alias="NCBI_API_KEY")
    """An NCBI API key: PubMed then allows 10 requests a second instead of 3."""

    contact_email: str | None = Field(default=None, validation_alias="DEEP_RESEARCH_CONTACT_EMAIL")
    """An address the scholarly APIs may write to: OpenAlex's polite pool (``mailto``),
    NCBI's ``email`` parameter."""

    scholarly_timeout: float = Field(
        default=20.0, gt=0, validation_alias="DEEP_RESEARCH_SCHOLARLY_TIMEOUT"
    )
    """Seconds allowed for one request to a scholarly API."""

    scholarly_max_attempts: int = Field(
        default=3, ge=1, le=10, validation_alias="DEEP_RESEARCH_SCHOLARLY_MAX_ATTEMPTS"
    )
    """Attempts per scholarly API request; 429 (``Retry-After`` honoured), 5xx and timeouts
    are retried with backoff."""

    fetch_allowlist: str = Field(default="", validation_alias="DEEP_RESEARCH_FETCH_ALLOWLIST")
    """Comma-separated hosts, ``host:port`` pairs or CIDRs the SSRF guard lets through."""

    fetch_connect_timeout: float = Field(
        default=5.0, gt=0, validation_alias="DEEP_RESEARCH_FETCH_CONNECT_TIMEOUT"
    )
    """Seconds allowed to connect to a web server."""

    fetch_read_timeout: float = Field(
        default=15.0, gt=0, validation_alias="DEEP_RESEARCH_FETCH_READ_TIMEOUT"
    )
    """Seconds allowed between two reads from a web server."""

    fetch_max_bytes: int = Field(
        default=5 * 1024 * 1024, ge=1024, validation_alias="DEEP_RESEARCH_FETCH_MAX_BYTES"
    )
    """Largest page body read; a larger one is abandoned while streaming."""

    fetch_concurrency: int = Field(
        default=8, ge=1, le=64, validation_alias="DEEP_RESEARCH_FETCH_CONCURRENCY"
    )
    """Pages fetched at once in this process."""

    fetch_per_domain: int = Field(
        default=2, ge=1, le=16, validation_alias="DEEP_RESEARCH_FETCH_PER_DOMAIN"
    )
    """Pages fetched at once from one domain (``www.`` and ``m.`` mirrors count as one)."""

    page_cache_ttl: float = Field(
        default=24 * 3600.0, ge=0, validation_alias="DEEP_RESEARCH_PAGE_CACHE_TTL"
    )
    """Seconds a cached page stays fresh; ``0`` turns the page cache off."""

    data_dir: Path = Field(
        default=Path(".data"),
        validation_alias=AliasChoices("DEEP_RESEARCH_DATA_DIR"),
    )
    """Folder for corpus indexes, caches and SQLite files; a relative one is taken from the
    working directory when the settings load, and kept absolute from then on."""

    database_url: str | None = Field(default=None, validation_alias="DEEP_RESEARCH_DATABASE_URL")
    """Checkpoints (and the domain store): ``sqlite:///path``, ``postgresql+psycopg://...`` or
    ``memory``. Default: a SQLite file in the data directory."""

    database_connect_timeout: float = Field(
        default=5.0, ge=2, le=300, validation_alias="DEEP_RESEARCH_DATABASE_CONNECT_TIMEOUT"
    )
    """Seconds to wait for a new PostgreSQL connection (libpq's ``connect_timeout``)."""

    database_timeout: float = Field(
        default=5.0, gt=0, le=3600, validation_alias="DEEP_RESEARCH_DATABASE_TIMEOUT"
    )
    """Seconds one database operation may take on PostgreSQL: a free pooled connection, a
    statement (sent as ``statement_timeout``), a checkpoint or store call, a transaction of
    the domain store. Past it the database counts as unreachable."""

    user_id: str = Field(default="local", validation_alias="DEEP_RESEARCH_USER_ID")
    """The user the command line acts as in the domain store (the server uses its auth)."""

    auth_tokens: SecretStr | None = Field(
        default=None, validation_alias="DEEP_RESEARCH_AUTH_TOKENS"
    )
    """The server's bearer tokens: comma-separated ``token=user_id`` pairs."""

    auth_secret: SecretStr | None = Field(
        default=None, validation_alias="DEEP_RESEARCH_AUTH_SECRET"
    )
    """The server's signing secret (at least 32 bytes): tokens are JWTs it signed (HS256) with
    an expiry (see :mod:`deep_research.server.tokens`)."""

    auth_previous_secrets: SecretStr | None = Field(
        default=None, validation_alias="DEEP_RESEARCH_AUTH_PREVIOUS_SECRETS"
    )
    """Earlier signing secrets (comma-separated) whose tokens stay valid until they expire."""

    max_runs_per_user: int = Field(
        default=4, ge=0, le=100, validation_alias="DEEP_RESEARCH_MAX_RUNS_PER_USER"
    )
    """Runs (pending or running) one user may have on the server at once; ``0``: no cap."""

    cors_origins: str = Field(default="", validation_alias="DEEP_RESEARCH_CORS_ORIGINS")
    """Web origins (comma-separated ``https://host[:port]``) whose pages may call the server,
    besides Studio's (``https://smith.langchain.com``)."""

    max_chats_per_user: int = Field(
        default=1000, ge=1, validation_alias="DEEP_RESEARCH_MAX_CHATS_PER_USER"
    )
    """Chats one user may keep (soft-deleted ones do not count)."""

    max_messages_per_chat: int = Field(
        default=400, ge=2, validation_alias="DEEP_RESEARCH_MAX_MESSAGES_PER_CHAT"
    )
    """Messages one chat may hold (a question with its report is two)."""

    chat_recovery_days: float = Field(
        default=30.0, ge=0, validation_alias="DEEP_RESEARCH_CHAT_RECOVERY_DAYS"
    )
    """Days a deleted chat can be restored before ``deep-research purge`` removes it."""

    checkpoint_ttl_minutes: float | None = Field(
        default=None, gt=0, validation_alias="DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES"
    )
    """Minutes a chat's checkpoints are kept after its last activity; unset: for ever. Swept by
    ``deep-research purge``, and by the server when it starts and then every
    ``checkpoint_sweep_minutes`` (the chat's rows stay)."""

    checkpoint_sweep_minutes: float = Field(
        default=60.0, gt=0, validation_alias="DEEP_RESEARCH_CHECKPOINT_SWEEP_MINUTES"
    )
    """Minutes between two sweeps of idle chats' checkpoints on the server (with a TTL set)."""

    store_ttl_minutes: float | None = Field(
        default=None, gt=0, validation_alias="DEEP_RESEARCH_STORE_TTL_MINUTES"
    )
    """Minutes an item of the content store is kept after it was last written or read; unset:
    for ever. Swept whenever the store is opened (and periodically by the server)."""

    langgraph_checkpointer: dict[str, Any] | None = Field(
        default=None, validation_alias="LANGGRAPH_CHECKPOINTER"
    )
    """``checkpointer`` of ``langgraph.json``, as the LangGraph server passes it to its process
    (JSON); its ``ttl`` is the checkpoints' retention on the server when
    ``DEEP_RESEARCH_CHECKPOINT_TTL_MINUTES`` is unset."""

    langgraph_store: dict[str, Any] | None = Field(default=None, validation_alias="LANGGRAPH_STORE")
    """``store`` of ``langgraph.json``, as the LangGraph server passes it to its process (JSON);
    its ``ttl`` is the content store's retention when ``DEEP_RESEARCH_STORE_TTL_MINUTES`` is
    unset."""

    @field_validator(
        "model",
        "judge_model",
        "notes_model",
        "openai_base_url",
        "database_url",
        "tavily_api_key",
        "tavily_base_url",
        "auth_tokens",
        "auth_secret",
        "auth_previous_secrets",
        "searxng_url",
        "searxng_language",
        "searxng_time_range",
        "mcp_config",
        "ncbi_api_key",
        "contact_email",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("data_dir", mode="after")
    @classmethod
    def _absolute_data_dir(cls, value: Path) -> Path:
        # Resolved once, here: a relative folder (the default ``.data``) read later would call
        # ``os.getcwd``, a blocking call that ``langgraph dev`` refuses inside request handlers.
        return value.expanduser().resolve()

    @property
    def served_models(self) -> frozenset[str]:
        """The models a served run may pick (see ``allowed_models``)."""
        listed = {m.strip() for m in self.allowed_models.split(",") if m.strip()}
        roles = {m for m in (self.judge_model, self.notes_model) if m}
        return frozenset({OFFLINE, self.engine_model, *roles, *listed})

    @property
    def engine_model(self) -> str:
        """The model the engine factory should use, or ``"offline"``."""
        if self.model:
            return self.model
        if self.openai_api_key is not None:
            return DEFAULT_OPENAI_MODEL
        return OFFLINE

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to ``sqlite:///<data_dir>/deep_research.sqlite``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'deep_research.sqlite'}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Return the settings of this process, built once on first use."""
    return Settings()
