"""The MCP server under load: calls per second and p50/p90 call latency for 1 and 4 concurrent MCP clients, on both
protocol versions, through `browser-toolset mcp --transport http` and the official `mcp` client library.

On the mock driver the figures are the server's own cost (MCP, the executor, no browser); on Chromium, with each
client its own headless browser on this machine, they include the browser's. Run with `python -m benchmarks --only
mcp`, or on its own: `python -m benchmarks.bench_mcp`.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from .pages import serve

ROOT = Path(__file__).resolve().parents[1]
SHOP = str(ROOT / "examples" / "shop.json")
CALLS = 40
"""Timed calls per client (after one untimed navigation)."""
LEVELS = (1, 4)
MODES = ("legacy", "auto")
_ADDRESS = re.compile(r"MCP over HTTP at (http://\S+/mcp)")
# what an agent does most between actions: read the page, look for something, read the tab list
WORK: Sequence[tuple[str, dict[str, object]]] = (
    ("read_page", {"filter": "interactive"}),
    ("find", {"query": "search box"}),
    ("list_tabs", {}),
    ("get_page_text", {}),
)


@contextmanager
def mcp_server(*flags: str) -> Iterator[str]:
    command = [sys.executable, "-m", "browser_toolset.mcp", "--transport", "http", "--port", "0", "--max-sessions",
               str(sum(LEVELS)), *flags]  # fmt: skip
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, cwd=ROOT)  # fmt: skip
    try:
        assert process.stderr is not None
        for line in process.stderr:
            found = _ADDRESS.search(line)
            if found:
                yield found[1]
                return
        raise RuntimeError("the MCP server did not start")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _client(url: str, mode: str, key: str, page: str, latencies: list[float], errors: list[str]) -> None:
    http = httpx2.AsyncClient(headers={"Browser-Toolset-Client": key}, timeout=httpx2.Timeout(120.0))
    async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        await client.call_tool("navigate", {"url": page})
        for number in range(CALLS):
            name, arguments = WORK[number % len(WORK)]
            started = time.perf_counter()
            result = await client.call_tool(name, arguments)
            latencies.append(time.perf_counter() - started)
            if result.is_error:
                errors.append(name)


def measure(url: str, mode: str, clients: int, page: str, round_: int) -> dict[str, float]:
    latencies: list[float] = []
    errors: list[str] = []

    async def main() -> float:
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for number in range(clients):
                group.start_soon(_client, url, mode, f"bench-{round_}-{number}", page, latencies, errors)
        return time.perf_counter() - started

    wall = anyio.run(main)
    ordered = sorted(latencies)
    return {
        "calls_per_s": len(latencies) / wall,
        "p50_ms": statistics.median(ordered) * 1000,
        "p90_ms": ordered[int(len(ordered) * 0.9) - 1] * 1000,
        "errors": float(len(errors)),
    }


def _rows(label: str, flags: Sequence[str], page: str, round_: list[int]) -> list[str]:
    rows = []
    with mcp_server(*flags) as url:
        for mode in MODES:
            for clients in LEVELS:
                round_[0] += 1
                # a fresh client key per round; per-request clients keep their browser until the server stops,
                # which the session limit (the sum of the levels) allows for
                figures = measure(url, mode, clients, page, round_[0])
                rows.append(
                    f"| {label} | {mode} | {clients} | {figures['calls_per_s']:.0f} | {figures['p50_ms']:.1f} | "
                    f"{figures['p90_ms']:.1f} | {figures['errors']:.0f} |"
                )
    return rows


def table() -> str:
    lines = [
        f"{CALLS} calls per client ({', '.join(name for name, _ in WORK)} in turn) after one navigation; "
        "latency in milliseconds, from the client's side.\n",
        "| driver | protocol | clients | calls/s | p50 | p90 | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    counter = [0]
    lines += _rows("mock", ["--site", SHOP], "https://shop.test/", counter)
    if shutil.which("chromium") or os.path.exists("/usr/bin/chromium"):
        with serve([500]) as site:
            flags = ["--driver", "selenium", "--browser", "chromium", "--allow-private"]
            lines += _rows("chromium", flags, site.listing(500), counter)
    return "\n".join(lines)


def main() -> None:
    print(table())


if __name__ == "__main__":
    main()
