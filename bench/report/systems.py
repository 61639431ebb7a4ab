"""Renderers of the sections about the systems under the agent.

Checkpoints, the local corpus, the server, the offline command, and the verifier's accuracy
(measured by ``bench/verifier``).

Each takes a section's results and returns its Markdown and what it found behind target.
"""

from __future__ import annotations

from typing import Any

from bench.report.markdown import iqr, median_max, num, spread, table


def checkpoints(r: dict[str, Any]) -> tuple[str, list[str]]:
    rows = []
    runs = []
    behind: list[str] = []
    skipped = []
    for backend, data in r["backends"].items():
        if "skipped" in data:
            skipped.append(f"{backend}: skipped ({data['skipped']})")
            continue
        for g in data["growth"]:
            rows.append(
                [
                    backend,
                    num(g["sources"]),
                    iqr(g["write_ms"]["research_round"]),
                    num(g["bytes"]["research_round"]),
                    iqr(g["write_ms"]["small_step"]),
                    num(g["bytes"]["small_step"]),
                    num(g["bytes_per_source"], 0),
                ]
            )
        run = data.get("real_run")
        if run:
            runs.append(
                [
                    backend,
                    run["plan_steps"],
                    num(run["sources"]),
                    num(run["checkpoints"]),
                    num(run["pending_write_batches"]),
                    num(run["stored_bytes"] / 1e6, 2),
                    num(run["bytes_per_checkpoint"]),
                    median_max(run["put_ms"]),
                    median_max(run["put_writes_ms"]),
                    num(run["wall_seconds"]),
                ]
            )
    sqlite = r["backends"].get("sqlite", {}).get("growth", [])
    postgres = r["backends"].get("postgres", {}).get("growth", [])
    if sqlite and postgres and "bytes" in sqlite[-1]:
        a, b = sqlite[-1]["bytes"]["small_step"], postgres[-1]["bytes"]["small_step"]
        if a > 10 * b:
            behind.append(
                f"**SQLite checkpoints still copy the unchanged channels**: with "
                f"{sqlite[-1]['sources']:,} sources a step that changes one small field stores "
                f"{a:,} bytes on SQLite (the CLI's default) against {b:,} on PostgreSQL. Cause: "
                "`AsyncSqliteSaver` serializes every channel into one blob per checkpoint, "
                "where the in-memory and PostgreSQL savers store only the channels that changed; "
                "the growing lists (sources, evidence, findings) are `DeltaChannel`s and stay "
                "out of it, but the plan, messages and report do not."
            )
    channels = r.get("bytes_per_record")
    extra = ""
    if channels:
        extra = (
            f"\n\nOne source record costs {channels['source']:,} bytes in a checkpoint, one "
            f"evidence span {channels['evidence_span']:,} bytes, one finding "
            f"{channels['finding']:,} bytes (serialized as the checkpointer stores them)."
        )
    text = (
        "Writes of a thread holding N sources (two evidence spans each, a finding per ten), "
        "through the project's `open_checkpointer`: after a research round (sources, evidence, "
        "findings and usage changed) and after a step that changed one small field. "
        "ms: median [IQR] per `aput`; bytes: what the write added to the store.\n\n"
        + table(
            [
                "backend",
                "sources",
                "write after a research round, ms",
                "bytes",
                "write after a small step, ms",
                "bytes",
                "bytes per source",
            ],
            rows,
        )
        + extra
        + "\n\nA real run (no latency) on each backend: everything it stored, and how long its "
        "writes took from the graph's call to completion (under the run's load: they share "
        "the event loop with the agent's computing):\n\n"
        + table(
            [
                "backend",
                "plan steps",
                "sources",
                "checkpoints",
                "pending-write batches",
                "stored MB",
                "bytes per checkpoint",
                "checkpoint write ms, median (max)",
                "pending-write batch ms, median (max)",
                "wall s",
            ],
            runs,
        )
        + ("\n\n" + "; ".join(skipped) if skipped else "")
    )
    return text, behind


def corpus(r: dict[str, Any]) -> tuple[str, list[str]]:
    rows = []
    behind = []
    slow: list[dict[str, Any]] = []
    for s in r["sizes"]:
        o, b, a = s["ours"], s["bm25s"], s["agreement"]
        rows.append(
            [
                num(s["documents"]),
                num(s["corpus_mb"], 1),
                f"{num(o['docs_per_second'], 0)} / {num(b['docs_per_second'], 0)}",
                f"{num(o['query_ms']['p50'])} / {num(o['query_ms']['p95'])}",
                f"{num(b['query_ms']['p50'], 3)} / {num(b['query_ms']['p95'], 3)}",
                num(a["overlap_at_10"]),
                num(a["top1_same"]),
            ]
        )
        if s["query_p50_ratio"] > 2:
            slow.append(s)
    blas = ", ".join(f"{x['internal_api']} {x['architecture']}" for x in r.get("blas", []))
    text = (
        f"{r['queries']} queries of two or three words; ours = `LocalCorpus` as the agent "
        "uses it. Indexing: documents per second, ours / bm25s (files read and parsed in both). "
        f"numpy's BLAS during the run: {blas or 'unknown'}.\n\n"
        + table(
            [
                "documents",
                "MB",
                "indexing docs/s, ours / bm25s",
                "query ms p50 / p95, ours",
                "query ms p50 / p95, bm25s",
                "top-10 overlap",
                "same top-1",
            ],
            rows,
        )
    )
    breakdown = [s["ours"].get("query_ms_breakdown") for s in slow]
    if slow and all(breakdown):
        figures = "; ".join(
            f"{s['documents']:,} documents: p50 {s['ours']['query_ms']['p50']:.1f} ms, "
            f"{s['query_p50_ratio']:.0f}× bm25s; its SQL alone "
            f"{s['ours']['query_ms_breakdown']['open_connection']['p50']:.1f} ms, of which "
            f"the BM25 ranking {s['ours']['query_ms_breakdown']['no_snippet']['p50']:.1f} ms"
            for s in slow
        )
        behind.append(
            f"**Local corpus queries are slower than bm25s** ({figures}). Cause: FTS5 scores "
            "every row that matches a query term in SQLite, where bm25s scores precomputed "
            "sparse vectors in numpy; the rest of a query is its worker thread, the snippets "
            "and the result objects. Ranking quality agrees closely (see the overlap columns)."
        )
    return text, behind


def server(r: dict[str, Any]) -> tuple[str, list[str]]:
    if "skipped" in r:
        return f"Not measured: {r['skipped']}", []
    rows = []
    behind = []
    for server in r["servers"]:
        for b in server["batches"]:
            rows.append(
                [
                    server["jobs_per_worker"],
                    b["concurrent_runs"],
                    b["completed"],
                    b["errors"],
                    num(b["throughput_runs_per_minute"], 1),
                    num(b["latency_seconds"].get("median")),
                    num(b["p95_seconds"]),
                    num(b["warm_run_seconds"]),
                ]
            )
            if b["errors"]:
                behind.append(
                    f"**Server: {b['errors']} of {b['concurrent_runs']} runs failed** "
                    f"({server['jobs_per_worker']} jobs): {b['error_samples']}"
                )
        if server["jobs_per_worker"] == "CLI default":
            b = server["batches"][0]
            behind.append(
                f"**`langgraph dev` without `--n-jobs-per-worker` runs one run at a time**: "
                f"{b['concurrent_runs']} concurrent runs took {b['wall_seconds']:.0f} s "
                f"(p95 {b['p95_seconds']:.0f} s, one single run {b['warm_run_seconds']:.1f} s). "
                "Cause: the CLI's help says 10, but langgraph-api's dev entry point defaults "
                "`n_jobs_per_worker` to 1 when the flag is not given. `make dev` passes "
                "`--n-jobs-per-worker 10`; run `langgraph dev` by hand with it too."
            )
    text = (
        f"`langgraph dev` on 127.0.0.1 serving our graph on the simulation ({r['plan_steps']}-"
        "step plan, same latencies as above). A batch starts all its runs at once (new "
        "thread, `runs.wait`); latency is per run, throughput is completed runs over the "
        "batch's wall time.\n\n"
        + table(
            [
                "jobs per worker",
                "concurrent runs",
                "completed",
                "errors",
                "runs / min",
                "latency p50 s",
                "latency p95 s",
                "one run alone s",
            ],
            rows,
        )
    )
    return text, behind


def offline(r: dict[str, Any]) -> tuple[str, list[str]]:
    cold = r["cold"]
    rows = [
        ["cold (builds the corpus index)", num(cold["wall"]), num(cold["peak_rss_mib"], 0)],
        [
            f"warm ({r['warm_wall_seconds']['n']} runs), median (min–max)",
            spread(r["warm_wall_seconds"]),
            spread(r["warm_peak_rss_mib"], 0),
        ],
    ]
    if r.get("startup_seconds"):
        rows.append(["start-up only (`deep-research --help`)", spread(r["startup_seconds"]), "—"])
    text = (
        f"`{r['command']}` with the Makefile's question, offline engine, bundled sample "
        f"corpus, SQLite; report of {r['report_chars']:,} characters.\n\n"
        + table(["run", "wall s", "peak RSS MiB"], rows)
    )
    behind = [f"**Offline run failed**: {r['failures'][:1]}"] if r.get("failures") else []
    return text, behind


def verifier(r: dict[str, Any]) -> tuple[str, list[str]]:
    rows = [
        [
            name,
            num(d.get("n")),
            num(d.get("accuracy"), 3),
            num(d.get("macro_f1"), 3),
            num(d.get("evidence_recall_at_1"), 3),
        ]
        for name, d in r.get("datasets", {}).items()
    ]
    text = (
        f"From `bench/results/verifier.json` (`python -m bench.verifier`, engine "
        f"{r.get('engine', '?')}). {r.get('note', '')}\n\n"
        + table(["data set", "claims", "accuracy", "macro-F1", "evidence recall@1"], rows)
    )
    return text, []


_COMMANDS = {
    "help": "`deep-research --help`",
    "chats": "`deep-research chats` (empty SQLite store)",
    "ask_first_line": "`deep-research ask`: first progress line",
}


def startup(r: dict[str, Any]) -> tuple[str, list[str]]:
    python = r["python_seconds"]
    rows = [["`python -c pass`", spread(python), "1.0", "—", "—"]]
    behind = []
    for name, data in r["commands"].items():
        met = "yes" if data["met"] else "**no**"
        rows.append(
            [
                _COMMANDS.get(name, name),
                spread(data["seconds"]),
                num(data["ratio_to_python"], 1),
                num(data["goal_seconds"], 1),
                met,
            ]
        )
        if not data["met"]:
            behind.append(
                f"**Start-up**: {_COMMANDS.get(name, name)} takes "
                f"{num(data['seconds']['median'], 2)} s (goal {data['goal_seconds']} s)"
            )
    imports = sorted(r["imports"].items(), key=lambda item: -item[1]["ms"])
    import_rows = [
        [
            f"`{module}`",
            num(data["ms"], 1),
            "yes" if data["langgraph"] else "no",
            "yes" if data["langchain_core"] else "no",
            "yes" if data["sqlalchemy"] else "no",
        ]
        for module, data in imports
    ]
    text = (
        "Wall seconds of a fresh process, median (min–max), and its ratio to `python -c pass`.\n\n"
        + table(["command", "wall s", "× python", "goal s", "met"], rows)
        + "\n\nImport cost of each top-level module, alone in a fresh process "
        "(`python -X importtime`, cumulative), and whether it loads LangGraph, LangChain or "
        "SQLAlchemy:\n\n"
        + table(["module", "ms", "langgraph", "langchain_core", "sqlalchemy"], import_rows)
    )
    return text, behind


def docqa(r: dict[str, Any]) -> tuple[str, list[str]]:
    if "skipped" in r:
        return f"Skipped: {r['skipped']}.", []
    recall = r["fact_recall"]
    rows = [
        ["answering page read (page recall)", num(r["page_recall"], 2)],
        ["key facts in the pages read", num(recall["pages"], 2)],
        ["key facts in the evidence handed to the writer", num(recall["evidence"], 2)],
        ["key facts in the report", num(recall["report"], 2)],
        ["supported share of checked claims", num(r.get("supported_share"), 2)],
    ]
    text = (
        f"{r['questions']} questions over {r['corpus']} Offline engine, default depth; "
        "a key fact counts when its words appear in order in the text.\n\n"
        + table(["measure", "value"], rows)
    )
    behind = []
    if recall["evidence"] < 0.6:
        behind.append(
            f"**Evidence recall**: the evidence handed to the writer holds "
            f"{recall['evidence']:.0%} of the key facts that the pages read hold "
            f"({recall['pages']:.0%}); goal 60 % offline"
        )
    return text, behind
