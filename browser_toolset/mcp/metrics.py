"""What the HTTP transport's `/metrics` reports, in Prometheus' text format: the browser sessions open, opened,
refused and closed for idleness, and member calls, errors and call latency by member."""

from __future__ import annotations

import bisect
from collections import Counter

import attrs

from .sessions import SessionPool

__all__ = ["BUCKETS", "CallMetrics", "render"]

BUCKETS: tuple[float, ...] = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Latency histogram bounds in seconds: a mock call takes milliseconds, a page load or `wait` seconds."""
PREFIX = "browser_toolset_mcp"


@attrs.define
class CallMetrics:
    calls: Counter[str] = attrs.field(factory=Counter)
    errors: Counter[str] = attrs.field(factory=Counter)
    buckets: list[int] = attrs.field(factory=lambda: [0] * len(BUCKETS))
    count: int = 0
    total: float = 0.0

    def observe(self, member: str, seconds: float, *, error: bool) -> None:
        self.calls[member] += 1
        if error:
            self.errors[member] += 1
        self.count += 1
        self.total += seconds
        first = bisect.bisect_left(BUCKETS, seconds)
        for index in range(first, len(BUCKETS)):
            self.buckets[index] += 1


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def render(calls: CallMetrics, pool: SessionPool) -> str:
    lines = [
        f"# HELP {PREFIX}_sessions_open Browser sessions open now.",
        f"# TYPE {PREFIX}_sessions_open gauge",
        f"{PREFIX}_sessions_open {len(pool)}",
        f"# HELP {PREFIX}_sessions_opened_total Browser sessions opened.",
        f"# TYPE {PREFIX}_sessions_opened_total counter",
        f"{PREFIX}_sessions_opened_total {pool.opened}",
        f"# HELP {PREFIX}_sessions_refused_total Clients refused a browser session at the session limit.",
        f"# TYPE {PREFIX}_sessions_refused_total counter",
        f"{PREFIX}_sessions_refused_total {pool.refused}",
        f"# HELP {PREFIX}_sessions_idle_closed_total Browser sessions closed after the idle timeout.",
        f"# TYPE {PREFIX}_sessions_idle_closed_total counter",
        f"{PREFIX}_sessions_idle_closed_total {pool.expired}",
        f"# HELP {PREFIX}_calls_total Member calls answered, by member.",
        f"# TYPE {PREFIX}_calls_total counter",
    ]
    lines += [f'{PREFIX}_calls_total{{member="{_label(m)}"}} {n}' for m, n in sorted(calls.calls.items())]
    lines += [
        f"# HELP {PREFIX}_call_errors_total Member calls answered with an error result, by member.",
        f"# TYPE {PREFIX}_call_errors_total counter",
    ]
    lines += [f'{PREFIX}_call_errors_total{{member="{_label(m)}"}} {n}' for m, n in sorted(calls.errors.items())]
    lines += [
        f"# HELP {PREFIX}_call_seconds Member call latency in seconds.",
        f"# TYPE {PREFIX}_call_seconds histogram",
    ]
    lines += [
        f'{PREFIX}_call_seconds_bucket{{le="{bound:g}"}} {n}' for bound, n in zip(BUCKETS, calls.buckets, strict=True)
    ]
    lines += [
        f'{PREFIX}_call_seconds_bucket{{le="+Inf"}} {calls.count}',
        f"{PREFIX}_call_seconds_sum {calls.total:.6f}",
        f"{PREFIX}_call_seconds_count {calls.count}",
    ]
    return "\n".join(lines) + "\n"
