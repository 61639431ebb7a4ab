"""Domain models, URL normalization, run settings and the reducers that merge branches."""

from __future__ import annotations

import itertools
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from deep_research.context import make_context, resolve_config
from deep_research.errors import ConfigurationError
from deep_research.state import EvidenceSpan, Finding, Source, TokenUsage
from deep_research.state.reducers import add_usage, merge_evidence, merge_findings, merge_sources
from deep_research.urls import domain_of, normalize_url


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTPS://Example.COM:443/a?utm_source=x&b=1#frag", "https://example.com/a?b=1"),
        ("http://example.com:80", "http://example.com/"),
        ("http://example.com:8080/x?fbclid=1", "http://example.com:8080/x"),
        ("file:///tmp/corpus/a.md", "file:///tmp/corpus/a.md"),
    ],
)
def test_urls_are_normalized(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


@pytest.mark.parametrize(
    "bad", ["example.com/page", "ftp://example.com/x", "javascript:alert(1)", "http:///nohost"]
)
def test_relative_or_non_http_urls_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        normalize_url(bad)


def test_www_and_mobile_mirrors_count_as_one_domain() -> None:
    assert domain_of("https://www.example.com/a") == domain_of("https://m.example.com/b")


def test_source_url_is_stored_normalized() -> None:
    source = Source(url="HTTP://Example.com/a#x", title="t", provider="p")
    assert source.url == "http://example.com/a"


@pytest.mark.parametrize(
    "knob",
    [
        {"results_per_query": 2},
        {"results_per_query": 11},
        {"max_rounds": 0},
        {"max_rounds": 11},
        {"per_domain_cap": 0},
        {"fetch_timeout": 4},
        {"fetch_timeout": 61},
        {"mode": "fast"},
    ],
)
def test_out_of_range_settings_are_one_line_configuration_errors(knob: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError) as info:
        make_context(**knob)
    message = str(info.value)
    assert "\n" not in message
    assert next(iter(knob)) in message


def test_confidence_must_lie_between_zero_and_one() -> None:
    from deep_research.state import Claim

    with pytest.raises(ValidationError):
        Claim(id="c", text="t", position_start=0, position_end=1, confidence=1.5)


def test_evidence_offsets_must_span_the_quote() -> None:
    with pytest.raises(ValidationError):
        _span("e1", quote="abc", start=0, end=10)


def test_depth_budgets_and_overrides_resolve_into_config() -> None:
    context = make_context(depth="extended", results_per_query=9, max_rounds=2)
    config = resolve_config(context, depth="extended", engine="offline", sources=["local"])
    assert config.budget.results_per_query == 9
    assert config.budget.max_rounds == 2
    assert config.budget.max_steps == 12
    auto = resolve_config(make_context(), depth="auto", engine="offline", sources=["local"])
    assert auto.depth == "medium"
    single = resolve_config(make_context(mode="web_search"), depth="medium", engine="x", sources=[])
    assert (single.budget.max_steps, single.budget.max_rounds) == (1, 1)


def test_json_export_is_camel_case() -> None:
    dumped = _span("e1").model_dump(by_alias=True)
    assert {"documentId", "stepId", "hasNumbers"} <= dumped.keys()


def _span(
    id: str,
    *,
    step: str = "s01",
    relevance: float = 0.5,
    quote: str = "q",
    start: int = 0,
    end: int | None = None,
) -> EvidenceSpan:
    return EvidenceSpan(
        id=id,
        url="https://example.com/a",
        document_id="doc_1",
        step_id=step,
        quote=quote,
        start=start,
        end=start + len(quote) if end is None else end,
        relevance=relevance,
    )


def _source(url: str, status: str = "ok") -> Source:
    return Source(url=url, title=url, provider="p", crawl_status=status)  # type: ignore[arg-type]


def test_sources_merge_by_normalized_url_without_duplicates() -> None:
    left = [_source("https://a.com/x"), _source("https://b.com/y")]
    right = [_source("HTTPS://A.com:443/x#top"), _source("https://c.com/z")]
    merged = merge_sources(left, right)
    assert [s.url for s in merged] == ["https://a.com/x", "https://b.com/y", "https://c.com/z"]


def test_a_successful_read_beats_a_failed_one_in_either_order() -> None:
    failed, ok = _source("https://a.com/x", "failed"), _source("https://a.com/x", "ok")
    assert merge_sources([failed], [ok])[0].crawl_status == "ok"
    assert merge_sources([ok], [failed])[0].crawl_status == "ok"


def test_merges_do_not_depend_on_the_order_branches_finish() -> None:
    branches = [
        [_span("e1", step="s02", relevance=0.2), _span("e2", step="s01")],
        [_span("e3", step="s01", relevance=0.9)],
        [_span("e2", step="s01"), _span("e4", step="s03")],
    ]
    results = set()
    for order in itertools.permutations(branches):
        merged: list[EvidenceSpan] = []
        for branch in order:
            merged = merge_evidence(merged, branch)
        results.add(tuple(e.id for e in merged))
    assert results == {("e3", "e2", "e1", "e4")}


def test_a_rerun_step_replaces_its_finding() -> None:
    first = [Finding(step_id="s02", notes="old"), Finding(step_id="s01", notes="a")]
    merged = merge_findings(first, [Finding(step_id="s02", notes="new")])
    assert [(f.step_id, f.notes) for f in merged] == [("s01", "a"), ("s02", "new")]


def test_token_usage_adds_up() -> None:
    total = add_usage(
        TokenUsage(prompt_tokens=3, completion_tokens=1, calls=1),
        TokenUsage(prompt_tokens=2, completion_tokens=5, calls=2),
    )
    assert (total.prompt_tokens, total.completion_tokens, total.calls) == (5, 6, 3)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://example.com/a/b/../c", "https://example.com/a/c"),
        ("https://example.com/a/./b/", "https://example.com/a/b/"),
        ("https://example.com/a/b/..", "https://example.com/a/"),
        ("https://example.com/../../x", "https://example.com/x"),
        ("https://example.com/a/b/.", "https://example.com/a/b/"),
        ("file:///corpus/notes/../secret.md", "file:///corpus/secret.md"),
        ("https://Bücher.de/katalog", "https://xn--bcher-kva.de/katalog"),
        ("https://XN--BCHER-KVA.de/katalog", "https://xn--bcher-kva.de/katalog"),
        ("https://example.com./x", "https://example.com/x"),
    ],
)
def test_dot_segments_and_international_hosts_are_normalized(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


def test_an_internationalized_site_counts_as_one_domain_in_either_spelling() -> None:
    assert domain_of("https://www.bücher.de/a") == domain_of("https://xn--bcher-kva.de/b")


_SEGMENTS = st.lists(
    st.sampled_from(["a", "b", "c", ".", "..", "", "%2e", "x.y"]), min_size=0, max_size=8
)
_HOSTS = st.sampled_from(["example.com", "Bücher.de", "xn--bcher-kva.de", "MÜNCHEN.de", "10.0.0.1"])


@given(host=_HOSTS, segments=_SEGMENTS)
def test_normalizing_is_idempotent_and_leaves_no_dot_segments(
    host: str, segments: list[str]
) -> None:
    url = normalize_url(f"https://{host}/" + "/".join(segments))
    assert normalize_url(url) == url
    path = urlsplit(url).path
    assert path.startswith("/")
    assert not {".", ".."} & set(path.split("/"))
    assert urlsplit(url).hostname is not None and urlsplit(url).hostname.isascii()


def test_nodes_after_plan_read_a_config_or_fail_loudly() -> None:
    from deep_research.state import State

    with pytest.raises(RuntimeError, match="set by plan"):
        _ = State().run_config
    config = resolve_config(make_context(), depth="light", engine="offline", sources=["local"])
    assert State(config=config).run_config is config


def test_auto_depth_is_medium_until_the_plan_classifies_the_question() -> None:
    from deep_research.state.models import concrete_depth

    assert concrete_depth("auto") == "medium"
    assert concrete_depth("auto", "simple") == "light"
    assert concrete_depth("auto", "complex") == "extended"
    assert concrete_depth("extended", "simple") == "extended"
    auto = resolve_config(make_context(), depth="auto", engine="offline", sources=["local"])
    assert auto.depth == "medium"
