"""Tables from the measurements: the full Markdown report, the JSON, and the snippet with the targets for
docs/performance.md."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .suite import summary

__all__ = ["OP_LABELS", "TARGETS", "latency_rows", "markdown", "slope"]

OP_LABELS = {
    "read_all": 'read_page filter "all"',
    "read_interactive": 'read_page filter "interactive"',
    "find": "find (cold: DOM changed)",
    "find_after_read": "find right after read_page (unchanged)",
    "text": "get_page_text",
    "navigate": "navigate",
    "type20": "type 20 chars",
    "key": "key (Enter)",
    "click_xy": "left_click by coordinate",
    "click_ref": "left_click by ref",
    "scroll": "scroll",
    "screenshot": "screenshot 1280x800",
    "new_tab": "new_tab",
    "switch_tab": "switch_tab",
    "state": "browser_state bookkeeping (nothing changed)",
}

BASELINE_NOTES = {
    "read_all": 'PW: aria_snapshot(mode="ai"); raw BiDi / classic: the walker\'s full snapshot in one call',
    "read_interactive": "the baselines' full read above (they have no interactive filter)",
    "find": 'PW: get_by_role("button", name=...).bounding_box(); classic: XPath find_element().rect; '
    "raw BiDi: no separate figure (it is the walker's snapshot, as for read_page)",
    "text": 'PW: inner_text("body"); classic: body.text',
    "click_ref": "PW: click on the aria-ref= locator of the AI snapshot; classic: WebElement.click()",
}

Row = dict[str, Any]
Check = Callable[[Row], "bool | None"]


def _ratio(row: Row, key: str) -> float | None:
    value = row.get(key)
    return value if isinstance(value, (int, float)) and not math.isnan(value) else None


def _pw(limit: float) -> tuple[str, Check]:
    return f"≤ {limit}× PW", lambda row: None if _ratio(row, "vs_pw") is None else row["vs_pw"] <= limit


def _action() -> tuple[str, Check]:
    def check(row: Row) -> bool | None:
        pw, raw = _ratio(row, "vs_pw"), _ratio(row, "vs_raw")
        if pw is None and raw is None:
            return None
        return (pw is None or pw <= 1.2) and (raw is None or raw <= 1.1)

    return "≤ 1.2× PW and ≤ 1.1× raw", check


def _absolute(ms: float) -> tuple[str, Check]:
    return f"≤ {ms:g} ms", lambda row: None if row.get("ours") is None else row["ours"] <= ms


TARGETS: dict[str, tuple[str, Check]] = {
    "read_all": _pw(0.5),
    "read_interactive": _pw(0.2),
    "find": _pw(1.5),
    "find_after_read": _absolute(5),
    "text": _pw(1.5),
    "state": _absolute(1),
}
ACTION_OPS = ("navigate", "type20", "key", "click_xy", "click_ref", "scroll", "screenshot", "new_tab", "switch_tab")
TARGETS.update({op: _action() for op in ACTION_OPS})
READ_OPS = ("read_all", "read_interactive", "find", "find_after_read", "text")

CONTENDERS = ("ours", "raw BiDi", "classic Selenium", "Playwright")
SAME_AS = {"read_interactive": "read_all"}
"""The baselines have no interactive filter: their one full read (measured once per round) is the comparison."""


def latency_rows(samples: Mapping[str, Any], target_pages: Sequence[str], raw_only_target: bool = False) -> list[Row]:
    rows = []
    for page, ops in samples.items():
        for op, by in ops.items():
            row: Row = {"page": page, "op": op, "operation": OP_LABELS.get(op, op)}
            for name in CONTENDERS:
                entry = by.get(name)
                if not entry and op in SAME_AS:  # the baseline has one call for both: compare with that one
                    entry = ops.get(SAME_AS[op], {}).get(name)
                if not entry:
                    continue
                stats = summary(entry["ms"])
                row[name] = stats.get("median")
                row[f"{name} p90"] = stats.get("p90")
                row[f"{name} n"] = stats.get("n")
                if entry.get("error"):
                    row[f"{name} error"] = entry["error"]
                if name == "ours" and entry.get("commands"):
                    row["bidi_commands"] = sorted(entry["commands"])[len(entry["commands"]) // 2]
            ours = row.get("ours")
            for key, name in (("vs_pw", "Playwright"), ("vs_raw", "raw BiDi")):
                other = row.get(name)
                row[key] = round(ours / other, 2) if ours is not None and other else None
            target = TARGETS.get(op)
            if target and page in target_pages and (op not in READ_OPS or not raw_only_target):
                label, check = target
                if raw_only_target and op in ACTION_OPS:
                    label, check = "≤ 1.1× raw", (lambda r: None if _ratio(r, "vs_raw") is None else r["vs_raw"] <= 1.1)
                row["target"] = label
                verdict = check(row)
                row["met"] = None if verdict is None else bool(verdict)
            rows.append(row)
    return rows


def _ms(row: Row, name: str) -> str:
    if row.get(f"{name} error"):
        return "error"
    value = row.get(name)
    if value is None:
        return "n/a"
    p90 = row.get(f"{name} p90")
    return f"{value:.1f} ({p90:.0f})" if p90 is not None else f"{value:.1f}"


def _x(value: Any) -> str:
    return "—" if value is None else f"{value:.2f}×"


def _verdict(row: Row) -> str:
    if "target" not in row:
        return ""
    if row.get("met") is None:
        return "not measured"
    return "**met**" if row["met"] else "missed"


def latency_table(rows: Sequence[Row], contenders: Sequence[str] = CONTENDERS) -> str:
    with_pw = "Playwright" in contenders
    ratios = ["ours/PW", "ours/raw"] if with_pw else ["ours/raw"]
    head = ["operation", "page", *[f"{c} ms" for c in contenders], *ratios, "BiDi cmds", "target", "met?"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row["operation"], row["page"], *[_ms(row, c) for c in contenders]]
        cells += [_x(row.get("vs_pw"))] if with_pw else []
        cells += [_x(row.get("vs_raw")), str(row.get("bidi_commands", "")),
                  row.get("target", ""), _verdict(row)]  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def errors(rows: Sequence[Row], where: str) -> str:
    """The distinct failures behind the "error" cells, so a broken operation is seen, not just missing."""
    seen: dict[str, list[str]] = {}
    for row in rows:
        for name in CONTENDERS:
            message = row.get(f"{name} error")
            if message:
                seen.setdefault(f"{name}: {message}", []).append(f"{row['operation']} ({row['page']})")
    if not seen:
        return ""
    lines = [f"\nFailures{where} (the operation was not measured for that contender):"]
    lines += [f"- {message} — in {', '.join(ops)}" for message, ops in seen.items()]
    return "\n".join(lines)


def slope(points: Sequence[tuple[float, float]]) -> float | None:
    """Least-squares ms per element."""
    if len(points) < 2:
        return None
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den


def markdown(result: Mapping[str, Any], *, summary: bool = False) -> str:
    m = result["machine"]
    out = []
    out.append(
        f"Measured {m['date']} on {m['cores']} cores ({m['cpu']}), {m['memory_gib']} GiB; {m['chromium']}, "
        f"{m['firefox']}, Selenium {m['selenium']}, Playwright {m['playwright'] or '(not installed)'}. "
        f"Medians of {result['config']['rounds']} interleaved rounds after {result['config']['warmup']} warm-up "
        "(pages above 5k elements: a third of the rounds, at least 2, no warm-up; feature pages and Firefox: half) "
        f"(p90 in parentheses), milliseconds; ratios below 1.0 mean we are faster. Reproduce: `python -m benchmarks`."
    )
    for merge in result.get("merges") or []:
        parts = ", ".join(merge.get("config", {}).get("sections", []))
        out.append(f"\n(Measured later and merged in: {parts}, {merge.get('machine', {}).get('date', '')}.)")
    latency = result.get("latency_rows") or []
    verdicts = target_summary(result)
    if verdicts:
        out.append("\n### Targets\n")
        out.append("| target | measured | |\n|---|---|---|")
        out.extend(f"| {target} | {measured} | {verdict} |" for target, measured, verdict in verdicts)
    if latency:
        target_pages = set(result["config"].get("target_pages", []))
        shown = [r for r in latency if not summary or r["page"] in target_pages]
        out.append("\n### Per call, headless Chromium\n")
        out.append(latency_table(shown))
        notes = "; ".join(f"{OP_LABELS[k]}: {v}" for k, v in BASELINE_NOTES.items())
        out.append(f'\nBaselines: {notes}. "BiDi cmds" counts the commands our driver sent for the call.')
        out.append(errors(shown, " on Chromium"))
    scaling = result.get("scaling")
    if scaling:
        out.append("\n### read_page scaling (Chromium)\n")
        out.append(
            "| page | elements | ours all ms | ours interactive ms | Playwright AI snapshot ms | chars per ref line "
            "| output chars per ref |"
        )
        out.append("|---|---|---|---|---|---|---|")
        for row in scaling["rows"]:
            cpr = row.get("chars_per_ref")
            cap = " (capped at 50,000 chars)" if row.get("capped") else ""
            cells = [row["page"], str(row["elements"]), _num(row.get("ours_all")), _num(row.get("ours_interactive")),
                     _num(row.get("pw")), f"{cpr:.1f}" if cpr else "—",
                     _num(row.get("output_per_ref")) + cap]  # fmt: skip
            out.append("| " + " | ".join(cells) + " |")
        out.append(
            f'\nSlope (least squares over the sizes): ours "all" {_per(scaling.get("ours_all_ms_per_element"))}, '
            f'ours "interactive" {_per(scaling.get("ours_interactive_ms_per_element"))}, Playwright '
            f"{_per(scaling.get('pw_ms_per_element'))} ms per element. Target ≤ 0.02 ms per element: "
            f"{_met(scaling.get('slope_met'))}; ≤ 35 characters per element with a ref: "
            f"{_met(scaling.get('chars_met'))}."
        )
    memory = result.get("memory")
    if memory:
        out.append("\n### Browser memory over mixed calls (Chromium, ours)\n")
        if memory.get("error"):
            out.append(f"Not measured: {memory['error']}")
        else:
            first, last = memory["samples"][0], memory["samples"][-1]
            out.append(
                f"{memory['calls']} calls in {memory['seconds']} s: browser RSS {first['rss_mib']} MiB after call 1, "
                f"{last['rss_mib']} MiB after call {last['calls']} (PSS {first['pss_mib']} → {last['pss_mib']} MiB); "
                f"growth after the first {memory['baseline_at']} calls: RSS {memory['rss_growth_mib']} MiB, PSS "
                f"{memory['pss_growth_mib']} MiB (trend {memory['per_call_kib']} KiB per call); exec process RSS "
                f"{last['exec_rss_mib']} MiB. Target < 50 MiB over 1,000 calls: {memory_verdict(memory)}."
            )
            collected = memory.get("collected") or {}
            if "baseline" in collected and "end" in collected:
                out.append(
                    f"\nAfter a forced garbage collection in every page and in the BiDi mapper (at call "
                    f"{memory['baseline_at']} and at the end): RSS {collected['baseline']['rss_mib']} → "
                    f"{collected['end']['rss_mib']} MiB, PSS {collected['baseline']['pss_mib']} → "
                    f"{collected['end']['pss_mib']} MiB: {memory['retained_rss_growth_mib']} MiB RSS retained "
                    f"({retained_verdict(memory)}). The difference from the figure above is garbage V8 had not yet "
                    "collected: it lets a heap grow before collecting, so RSS climbs and falls back."
                )
            kinds = sorted(set(first.get("pss_by_type_mib", {})) | set(last.get("pss_by_type_mib", {})))
            if kinds:
                parts = [f"{kind} {first.get('pss_by_type_mib', {}).get(kind, 0):.0f} → "
                         f"{last.get('pss_by_type_mib', {}).get(kind, 0):.0f}" for kind in kinds]  # fmt: skip
                out.append(f"\nPSS by process type (MiB, call 1 → call {last['calls']}): {', '.join(parts)}.")
    firefox = result.get("firefox_rows")
    if firefox:
        out.append(f"\n### Firefox ({m['firefox']}): ours vs raw BiDi\n")
        out.append(
            "Playwright drives Firefox only through its own patched build (Juggler), which it downloads; downloads of "
            "browser builds are impossible here, so Firefox has no Playwright column.\n"
        )
        out.append(latency_table(firefox, ("ours", "raw BiDi")))
        out.append(errors(firefox, " on Firefox"))
    for key, title in (("scale_local", "locally"), ("scale_grid", "through a local Selenium Grid")):
        scale = result.get(key)
        if not scale:
            continue
        kind = f" ({scale['kind']})" if scale.get("kind") else ""
        out.append(f"\n### Concurrent sessions {title}{kind}\n")
        if scale.get("error"):
            out.append(f"Not measured: {scale['error']}")
            continue
        out.append(
            f"Each active session runs {scale['calls_per_session']} mixed calls (read_page interactive, click, type, "
            f"find, screenshot, navigate on the 1k page) at the same time, all {scale.get('open_sessions', '')} "
            f"sessions open throughout; {m['cores']} cores. PSS shares a page between the processes that map it; the "
            "RSS sum counts shared pages (the Chromium binary, fonts) once per process.\n"
        )
        out.append(
            "| sessions | calls/s | p50 ms | p90 ms | p99 ms | browser memory per session, PSS (RSS sum) MiB | errors |"
        )
        out.append("|---|---|---|---|---|---|---|")
        for row in scale["rows"]:
            out.append(
                f"| {row['sessions']} | {row['calls_per_s']} | {row['p50_ms']} | {row['p90_ms']} | {row['p99_ms']} | "
                f"{row.get('pss_per_session_mib', '—')} ({row.get('rss_per_session_mib', '—')}) | "
                f"{row['error_count']} |"
            )
    render = result.get("render")
    if render and not summary:
        out.append("\n### Executor only (no browser)\n")
        out.append(render)
    timing = result.get("phase_seconds")
    if timing and not summary:
        out.append("\n### Run time\n")
        out.append(", ".join(f"{k} {v:.0f} s" for k, v in timing.items()))
    return "\n".join(out) + "\n"


def target_summary(result: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """One line per target of the speed issue: what it asks, what this run measured, met or missed."""
    lines = []
    for row in result.get("latency_rows") or []:
        if "target" not in row:
            continue
        measured = [f"{row['ours']:.1f} ms" if row.get("ours") is not None else "no figure"]
        if row.get("vs_pw") is not None:
            measured.append(f"{row['vs_pw']:.2f}× PW")
        if row.get("vs_raw") is not None and row["op"] not in READ_OPS:
            measured.append(f"{row['vs_raw']:.2f}× raw")
        lines.append((f"{row['operation']}: {row['target']}", ", ".join(measured), _verdict(row)))
    scaling = result.get("scaling") or {}
    if scaling.get("ours_all_ms_per_element") is not None:
        lines.append(("read_page grows ≤ 0.02 ms per element", f"{scaling['ours_all_ms_per_element']:.4f} ms "
                      f"(interactive {_per(scaling.get('ours_interactive_ms_per_element'))}, Playwright "
                      f"{_per(scaling.get('pw_ms_per_element'))})", _met(scaling.get("slope_met"))))  # fmt: skip
    cprs = [row["chars_per_ref"] for row in scaling.get("rows", []) if row.get("chars_per_ref")]
    if cprs:
        lines.append(("≤ 35 characters per element with a ref", f"{min(cprs):.1f}–{max(cprs):.1f}",
                      _met(scaling.get("chars_met"))))  # fmt: skip
    memory = result.get("memory") or {}
    if memory.get("rss_growth_mib") is not None:
        measured = f"{memory['rss_growth_mib']} MiB RSS over {memory['calls']} calls"
        lines.append(("browser memory growth < 50 MiB over 1,000 calls after the first 50", measured,
                      memory_verdict(memory)))  # fmt: skip
    if memory.get("retained_rss_growth_mib") is not None:
        measured = f"{memory['retained_rss_growth_mib']} MiB RSS over {memory['calls']} calls"
        lines.append(("the same, retained after a forced garbage collection", measured,
                      retained_verdict(memory)))  # fmt: skip
    for row in result.get("firefox_rows") or []:
        if "target" in row:
            if row["op"] not in ACTION_OPS:
                measured = "no figure" if row.get("ours") is None else f"{row['ours']:.1f} ms"
            else:
                measured = "no figure" if row.get("vs_raw") is None else f"{row['vs_raw']:.2f}× raw"
            lines.append((f"Firefox {row['operation']}: {row['target']}", measured, _verdict(row)))
    return lines


def memory_verdict(memory: Mapping[str, Any]) -> str:
    growth = memory.get("rss_growth_mib")
    if growth is None:
        return "not measured"
    if memory["calls"] < 1000:
        per = memory.get("per_call_kib")
        projected = "" if per is None else f"; the trend, {per} KiB per call, projects {per * 950 / 1024:.0f} MiB"
        return f"not measured at 1,000 calls (run with `--memory-calls 1000`){projected}"
    return "**met**" if growth < 50 else "missed"


def retained_verdict(memory: Mapping[str, Any]) -> str:
    retained = memory.get("retained_rss_growth_mib")
    if retained is None:
        return "not measured"
    if memory["calls"] < 1000:
        return "not measured at 1,000 calls (run with `--memory-calls 1000`)"
    return "**met**" if retained < 50 else "missed"


def _num(value: Any) -> str:
    return "—" if value is None else f"{value:.1f}"


def _per(value: Any) -> str:
    return "—" if value is None else f"{value:.4f}"


def _met(value: Any) -> str:
    return "not measured" if value is None else ("**met**" if value else "missed")
