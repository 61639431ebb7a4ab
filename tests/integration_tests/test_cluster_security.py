"""The security and auth suites against two Aegra instances instead of ``langgraph dev``.

The tests of test_security.py, test_server_auth.py, test_mcp_endpoint.py (our ``/mcp``,
with the MCP SDK's client and the MCP Inspector's CLI) and test_chat_clients.py (driven as
agent-chat-ui drives a server) are collected here again with their
``auth_server`` fixture replaced by a cluster: the same users and tokens, requests to the first
instance. Tests about what only langgraph-api has are left out, with the reason. Every other
test holds on Aegra as it is: where Aegra answers differently by itself (CORS, webhooks, the
health path, the state's keys), our adapter makes it answer as langgraph-api does
(:mod:`deep_research.server.runtimes.aegra`).
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests.integration_tests import (
    test_chat_clients,
    test_mcp_endpoint,
    test_security,
    test_server_auth,
)
from tests.integration_tests.cluster_process import aegra_cluster
from tests.integration_tests.conftest import SECRET, TOKENS, AuthServer
from tests.integration_tests.test_cluster import _database, _drop

pytestmark = [pytest.mark.server, pytest.mark.postgres]

alice, bob = test_security.alice, test_security.bob

NOT_ON_AEGRA = {
    "test_unusable_settings_stop_the_server_at_start": "starts langgraph dev servers of its own",
    "test_preferences_become_the_defaults_of_the_users_runs": (
        "reads the server's SQLite file; the cluster's domain store is PostgreSQL"
    ),
    "test_users_cannot_see_each_others_threads": (
        "reads the server's SQLite file; test_cluster.py checks the same on both instances"
    ),
    "test_a_user_gets_429_over_the_cap_of_concurrent_runs": (
        "holds runs pending with after_seconds, which Aegra does not offer (they run at once"
        " and may end before the fourth); test_cluster.py checks the cap on both instances"
    ),
}


@pytest.fixture(scope="module")
def auth_server(
    postgres_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[AuthServer]:
    """Two Aegra instances with the suite's tokens and secret; the suite talks to the first."""
    admin = _database(postgres_url, "postgres", "postgresql")
    base = urlsplit(postgres_url).path.lstrip("/")
    domain, aegra = f"{base}_sec_domain", f"{base}_sec_aegra"
    env = {
        "DEEP_RESEARCH_AUTH_TOKENS": ",".join(f"{t}={u}" for u, t in TOKENS.items()),
        "DEEP_RESEARCH_AUTH_SECRET": SECRET,
    }
    directory = tmp_path_factory.mktemp("cluster-security")
    try:
        with aegra_cluster(
            directory,
            _database(admin, domain, "postgresql+psycopg"),
            _database(admin, aegra, "postgresql"),
            env,
        ) as cluster:
            yield AuthServer(
                url=cluster.urls[0], data_dir=directory / cluster.urls[0].rsplit(":", 1)[1] / "data"
            )
    finally:
        for name in (domain, aegra):
            _drop(admin, name)


for _suite in (test_security, test_server_auth, test_mcp_endpoint, test_chat_clients):
    for _name in dir(_suite):
        if _name.startswith("test_") and _name not in NOT_ON_AEGRA:
            globals()[_name] = getattr(_suite, _name)
