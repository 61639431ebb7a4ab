"""Researchers keeping the same pages at once: no deadlock on the store's rows.

Parallel researchers often read the same pages (a question's parts share its subject) and each
keeps their text, and a note of them under the run's thread, in one batch. On PostgreSQL, two
batches that upsert the same rows in different orders can each hold a row the other waits for:
the database breaks the deadlock by failing one, and a run failed with "deadlock detected ...
in relation store" (the crash-resume test, once the offline plan searched a pronoun part with
its question's subject).
"""

from __future__ import annotations

import asyncio
import random

from deep_research.persistence.content import get_document_text, open_store, put_documents
from deep_research.state.models import Document

PAGES = [
    Document(id=f"doc_{n:016x}", url=f"https://example.org/{n}", title=f"Page {n}", text=f"T{n}.")
    for n in range(60)
]


async def test_researchers_keep_the_same_pages_at_once_without_a_deadlock(
    database_url: str,
) -> None:
    async with open_store(database_url) as store:
        thread = f"t-{random.Random().getrandbits(48):012x}"  # one run's researchers
        orders = [random.Random(seed).sample(PAGES, len(PAGES)) for seed in range(8)]
        for _ in range(3):  # a deadlock needs the batches to interleave: give them chances
            await asyncio.gather(
                *(put_documents(store, order, thread_id=thread) for order in orders)
            )
        assert [await get_document_text(store, p.id) for p in PAGES[:3]] == ["T0.", "T1.", "T2."]
