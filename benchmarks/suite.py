"""The measurements: interleaved per-operation latency, read_page scaling, browser memory over many calls, and
concurrent sessions locally and through a Grid. Each returns plain data for `report`."""

from __future__ import annotations

import math
import os
import re
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .collect import collect_garbage
from .contenders import Contender, Ours
from .machine import tree_memory
from .pages import PRESS, TYPE_TEXT

__all__ = ["Samples", "latency", "memory_growth", "percentile", "scale_out", "summary"]

Samples = dict[str, dict[str, dict[str, Any]]]
"""page label -> operation -> contender name -> {"ms": [...], "commands": [...], "error": str}"""


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summary(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "median": round(statistics.median(values), 2),
        "p90": round(percentile(values, 90), 2),
        "min": round(min(values), 2),
        "n": len(values),
    }


def log(message: str) -> None:
    print(message, flush=True)


def latency(
    contenders: Sequence[Contender],
    url: str,
    label: str,
    ops: Sequence[str],
    *,
    rounds: int,
    warmup: int,
    samples: Samples,
    observe: Callable[[Contender, str, object], None] | None = None,
) -> None:
    """Interleaved rounds on one page: in each round every operation runs once on every contender in turn, so noise
    on the shared machine hits all alike. Warm-up rounds are not recorded. A contender that fails an operation is
    recorded with the error and skipped for that operation from then on."""
    for contender in contenders:
        contender.goto(url)
    page = samples.setdefault(label, {})
    for index in range(warmup + rounds):
        for op in ops:
            for contender in contenders:
                if not contender.has(op):
                    continue
                entry = page.setdefault(op, {}).setdefault(contender.name, {"ms": [], "commands": []})
                if "error" in entry:
                    continue
                try:
                    contender.prep(op)
                    before = getattr(contender, "commands", 0)
                    start = time.perf_counter()
                    result = contender.run(op)
                    elapsed = (time.perf_counter() - start) * 1000
                    commands = getattr(contender, "commands", 0) - before
                    after = getattr(contender, f"after_{op}", None)
                    if after is not None:
                        after()
                except Exception as exc:  # keep measuring the rest; the table shows the error
                    entry["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                    log(f"  {contender.name} {op} on {label} failed: {entry['error']}")
                    try:
                        contender.goto(url)
                    except Exception:
                        pass
                    continue
                if index >= warmup:
                    entry["ms"].append(elapsed)
                    if isinstance(contender, Ours):
                        entry["commands"].append(commands)
                if observe is not None and index >= warmup:
                    observe(contender, op, result)
        log(f"  {label}: round {index + 1}/{warmup + rounds}{' (warm-up)' if index < warmup else ''}")


# --- memory ---------------------------------------------------------------------------------------------------------


def _self_rss() -> float:
    text = Path("/proc/self/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+)", text, re.M)
    return round(int(found.group(1)) / 1024, 1) if found else math.nan


def memory_growth(ours: Ours, url: str, calls: int, every: int = 25) -> dict[str, Any]:
    """Browser RSS/PSS over `calls` mixed member calls on one tab (sampled every `every` calls), and what is
    retained: the same figures after a forced garbage collection at the baseline (call 50) and at the end."""
    root = ours.memory_root()
    point = {"type": "coordinate", "x": PRESS[0], "y": PRESS[1]}
    mix: list[tuple[str, dict[str, Any]]] = [
        ("navigate", {"url": url}),
        ("read_page", {"filter": "interactive"}),
        ("find", {"query": "Checkout button"}),
        ("left_click", {"target": point}),
        ("type", {"text": TYPE_TEXT}),
        ("key", {"text": "Enter"}),
        ("scroll", {"target": {"type": "coordinate", "x": 640, "y": 400}, "scroll_direction": "down"}),
        ("screenshot", {}),
        ("get_page_text", {}),
        ("read_page", {"filter": "all"}),
    ]
    baseline_at = 50 if calls > 50 else 1
    samples: list[dict[str, Any]] = []
    collected: dict[str, dict[str, Any]] = {}

    def after_collection(label: str) -> None:
        if root is not None and collect_garbage(root):
            collected[label] = tree_memory(root)
            log(f"  after a forced collection ({label}): {collected[label]}")

    start = time.monotonic()
    for index in range(calls):
        name, args = mix[index % len(mix)]
        ours.call(name, **args)
        done = index + 1
        if root is not None and (done == 1 or done % every == 0 or done == calls):
            sample = {"calls": done, **tree_memory(root), "exec_rss_mib": _self_rss()}
            samples.append(sample)
            log(f"  memory after {done} calls: {sample}")
        if done == baseline_at:
            after_collection("baseline")
    seconds = time.monotonic() - start
    after_collection("end")
    by_calls = {sample["calls"]: sample for sample in samples}
    base = by_calls.get(baseline_at) or (samples[0] if samples else None)
    last = samples[-1] if samples else None
    growth = None if not (base and last) else round(last["rss_mib"] - base["rss_mib"], 1)
    pss_growth = None if not (base and last) else round(last["pss_mib"] - base["pss_mib"], 1)
    retained = retained_pss = None
    if "baseline" in collected and "end" in collected:
        retained = round(collected["end"]["rss_mib"] - collected["baseline"]["rss_mib"], 1)
        retained_pss = round(collected["end"]["pss_mib"] - collected["baseline"]["pss_mib"], 1)
    # the trend after the first 50 calls, least squares over the samples, in KiB per call
    later = [(s["calls"], s["rss_mib"]) for s in samples if s["calls"] >= 50]
    per_call = None
    if len(later) >= 3 and later[-1][0] - later[0][0] >= 100:
        mx = sum(c for c, _ in later) / len(later)
        my = sum(r for _, r in later) / len(later)
        den = sum((c - mx) ** 2 for c, _ in later)
        per_call = round(sum((c - mx) * (r - my) for c, r in later) / den * 1024, 1) if den else None
    return {
        "calls": calls,
        "seconds": round(seconds, 1),
        "baseline_at": base["calls"] if base else None,
        "rss_growth_mib": growth,
        "pss_growth_mib": pss_growth,
        "retained_rss_growth_mib": retained,
        "retained_pss_growth_mib": retained_pss,
        "collected": collected,
        "per_call_kib": per_call,
        "samples": samples,
    }


# --- scale-out ------------------------------------------------------------------------------------------------------


def _workload(ours: Ours, url: str) -> list[tuple[str, dict[str, Any]]]:
    point = {"type": "coordinate", "x": PRESS[0], "y": PRESS[1]}
    return [
        ("read_page", {"filter": "interactive"}),
        ("left_click", {"target": point}),
        ("type", {"text": "hello"}),
        ("find", {"query": "Checkout button"}),
        ("screenshot", {}),
        ("navigate", {"url": url}),
    ]


def _run_level(active: Sequence[Ours], url: str, calls: int) -> tuple[list[list[float]], list[str], float]:
    barrier = threading.Barrier(len(active) + 1)
    latencies: list[list[float]] = [[] for _ in active]
    errors: list[str] = []

    def work(index: int) -> None:
        ours = active[index]
        mix = _workload(ours, url)
        barrier.wait()
        for call in range(calls):
            name, args = mix[call % len(mix)]
            start = time.perf_counter()
            try:
                ours.call(name, **args)
            except Exception as exc:
                errors.append(f"{name}: {exc}"[:200])
            latencies[index].append((time.perf_counter() - start) * 1000)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(active))]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    return latencies, errors, time.perf_counter() - start


def start_sessions(count: int, remote: str | None, parallel: int = 2) -> list[Ours]:
    with ThreadPoolExecutor(parallel) as pool:
        return list(pool.map(lambda _: Ours("chromium", remote=remote), range(count)))


def scale_out(
    sessions: Sequence[Ours], levels: Sequence[int], url: str, calls_per_session: int, memory: Callable[[int], dict]
) -> list[dict[str, Any]]:
    """For each level n, n of the started sessions run `calls_per_session` mixed calls each at the same time; the
    rest stay idle. Calls per second = all calls / wall time from a common start."""
    rows = []
    for session in sessions:
        session.goto(url)
    for level in levels:
        if level > len(sessions):
            continue
        latencies, errors, wall = _run_level(sessions[:level], url, calls_per_session)
        flat = [value for row in latencies for value in row]
        row = {
            "sessions": level,
            "calls": len(flat),
            "seconds": round(wall, 2),
            "calls_per_s": round(len(flat) / wall, 2),
            "p50_ms": round(percentile(flat, 50), 1),
            "p90_ms": round(percentile(flat, 90), 1),
            "p99_ms": round(percentile(flat, 99), 1),
            "errors": errors[:3],
            "error_count": len(errors),
            **memory(level),
        }
        rows.append(row)
        log(f"  {row}")
    return rows


def cpu_count() -> int:
    return os.cpu_count() or 1
