"""`python -m benchmarks`: run the suite, print the tables, write `benchmarks/results/`.

Parts (`--only` takes any of them, comma-separated, and operation groups): `latency` (every operation on the
generated pages, four contenders), `features` (reads on the forms / tables / shadow DOM / iframes pages), `memory`,
`firefox`, `scaleout` (local sessions), `grid` (sessions through a local Selenium Grid), `render` (executor only).
Operation groups: `read`, `find`, `text`, `click`, `type`, `key`, `scroll`, `navigate`, `tabs`, `screenshot`,
`state`; naming only groups runs `latency` for those operations.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from contextlib import suppress
from pathlib import Path
from typing import Any

from . import report, suite
from .contenders import Classic, Contender, Ours, Playwright, RawBidi
from .machine import machine_info, tree_memory
from .pages import FEATURES, parse_size, serve, size_label

RESULTS = Path(__file__).resolve().parent / "results"

GROUPS = {
    "read": ("read_all", "read_interactive"),
    "find": ("find", "find_after_read"),
    "text": ("text",),
    "click": ("click_xy", "click_ref"),
    "type": ("type20",),
    "key": ("key",),
    "scroll": ("scroll",),
    "navigate": ("navigate",),
    "tabs": ("new_tab", "switch_tab"),
    "screenshot": ("screenshot",),
    "state": ("state",),
}
SECTIONS = ("latency", "features", "memory", "firefox", "scaleout", "grid", "render", "mcp")
READ_OPS = ("read_all", "read_interactive", "find", "find_after_read", "text")
SCALING_OPS = ("read_all", "read_interactive", "text")
ACTION_OPS = ("navigate", "type20", "key", "click_xy", "click_ref", "scroll", "screenshot", "new_tab", "switch_tab",
              "state")  # fmt: skip


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help=f"parts and operation groups: {', '.join(SECTIONS + tuple(GROUPS))}")
    parser.add_argument("--sizes", default="500,1k,5k,20k", help="listing page sizes in elements (default %(default)s)")
    parser.add_argument(
        "--rounds", type=int, help="interleaved rounds per page (default 5; pages above 5k get a third, at least 2)"
    )
    parser.add_argument("--warmup", type=int, help="unrecorded warm-up rounds (default 1)")
    parser.add_argument("--memory-calls", type=int, help="mixed calls for the memory figure (default 1000)")
    parser.add_argument("--scale-levels", default="1,2,4,8", help="concurrent sessions (default %(default)s)")
    parser.add_argument("--scale-calls", type=int, help="calls per active session (default 10)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 rounds, sizes 500,5k, fewer calls")
    parser.add_argument("--out", type=Path, default=RESULTS, help="results folder (default benchmarks/results)")
    parser.add_argument("--no-write", action="store_true", help="print only; write nothing under results/")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="add this run's parts to the existing results.json (same page and operation replaced) instead of "
        "starting anew, e.g. `--only memory --memory-calls 200 --merge`",
    )
    parser.add_argument(
        "--rerender", action="store_true", help="measure nothing: rewrite the Markdown files from results.json"
    )
    args = parser.parse_args(argv)
    quick = args.quick
    args.rounds = args.rounds or (3 if quick else 5)
    args.warmup = args.warmup if args.warmup is not None else 1
    args.memory_calls = args.memory_calls or (60 if quick else 1000)
    args.scale_calls = args.scale_calls or (6 if quick else 10)
    if quick and args.sizes == parser.get_default("sizes"):
        args.sizes = "500,5k"
    if quick and args.scale_levels == parser.get_default("scale_levels"):
        args.scale_levels = "1,2"
    args.size_list = sorted({parse_size(s) for s in args.sizes.split(",") if s.strip()})
    args.levels = sorted({int(s) for s in args.scale_levels.split(",") if s.strip()})
    tokens = [t.strip() for t in (args.only or "").split(",") if t.strip()]
    unknown = [t for t in tokens if t not in GROUPS and t not in SECTIONS]
    if unknown:
        parser.error(f"--only: unknown {', '.join(unknown)}; choose from {', '.join(SECTIONS + tuple(GROUPS))}")
    sections = {t for t in tokens if t in SECTIONS}
    groups = [t for t in tokens if t in GROUPS]
    if not tokens:
        sections = set(SECTIONS) - ({"grid"} if quick else set())
    elif groups and not sections:
        sections = {"latency"}
    args.sections = sections
    args.ops = [op for g in (groups or GROUPS) for op in GROUPS[g]]
    return args


def start(factories: list[Any]) -> list[Contender]:
    started: list[Contender] = []
    for factory in factories:
        try:
            started.append(factory())
        except Exception as exc:  # a baseline that cannot start is reported, not fatal
            suite.log(f"  {getattr(factory, '__name__', factory)} did not start: {type(exc).__name__}: {exc}")
    return started


def close(contenders: list[Contender]) -> None:
    for contender in contenders:
        with suppress(Exception):
            contender.close()


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.rerender:
        result = json.loads((args.out / "results.json").read_text())
        target_pages = result["config"]["target_pages"]
        if result.get("latency_samples"):
            result["latency_rows"] = report.latency_rows(result["latency_samples"], target_pages)
        if result.get("firefox_samples"):
            target = [result["config"]["action_page"]]
            result["firefox_rows"] = report.latency_rows(result["firefox_samples"], target, raw_only_target=True)
        write(args.out, result, final=bool(result.get("complete")))
        print(report.markdown(result))
        return 0
    began = time.monotonic()
    base = saved(args.out) if args.merge else None
    phases: dict[str, float] = {}
    result: dict[str, Any] = {"machine": machine_info()}
    sizes = args.size_list
    action_size = 5000 if 5000 in sizes else max([s for s in sizes if s <= 5000] or [min(sizes)])
    target_label = f"listing {size_label(action_size)}"
    result["config"] = {
        "rounds": args.rounds,
        "warmup": args.warmup,
        "sizes": sizes,
        "sections": sorted(args.sections),
        "ops": args.ops,
        "target_pages": [target_label] if action_size == 5000 else [],
        "action_page": target_label,
    }
    read_ops = [op for op in READ_OPS if op in args.ops]
    action_ops = [op for op in ACTION_OPS if op in args.ops]
    observations: dict[str, dict[str, list[float]]] = {}

    def observe(contender: Contender, op: str, output: object) -> None:
        if isinstance(contender, Ours) and op in ("read_all", "read_interactive") and isinstance(output, str):
            lines = [line for line in output.splitlines() if "[ref_" in line]
            if lines:
                seen = observations.setdefault(current_page, {})
                # the line of an element with a ref (its newline included), and the whole output per ref
                seen.setdefault(op, []).append(sum(len(line) + 1 for line in lines) / len(lines))
                seen.setdefault(f"{op}_per_ref", []).append(len(output) / len(lines))
                seen.setdefault(f"{op}_chars", []).append(len(output))

    def checkpoint() -> None:
        """Write what is measured so far, so an interrupted run still leaves its figures."""
        if args.no_write:
            return
        if samples:
            result["latency_samples"] = samples
            result["latency_rows"] = report.latency_rows(samples, result["config"]["target_pages"])
            result["scaling"] = scaling(samples, observations, sizes)
        result["phase_seconds"] = {k: round(v, 1) for k, v in phases.items()}
        write(args.out, result, final=False, base=base)

    current_page = ""
    samples: suite.Samples = {}
    with serve(sizes) as site:
        if args.sections & {"latency", "features"}:
            t0 = time.monotonic()
            suite.log("starting Chromium for ours, raw BiDi, classic Selenium and Playwright")
            contenders = start([Ours, RawBidi, Classic, Playwright])
            try:
                if "latency" in args.sections:
                    for size in sizes:
                        current_page = f"listing {size_label(size)}"
                        big = size > 5000
                        rounds = max(2, args.rounds // 3) if big else args.rounds
                        if size == action_size:
                            ops = [*read_ops, *action_ops]
                        else:  # the scaling figures need only the reads; find is measured on the target page
                            ops = [op for op in read_ops if op in SCALING_OPS]
                        if ops:
                            # the browsers are warm after the first page: the largest page skips the warm-up round
                            warmup = 0 if big and size != sizes[0] else args.warmup
                            suite.latency(contenders, site.listing(size), current_page, ops, rounds=rounds,
                                          warmup=warmup, samples=samples, observe=observe)  # fmt: skip
                        checkpoint()
                feature_ops = [op for op in read_ops if op != "find_after_read"]
                if "features" in args.sections and feature_ops:
                    for feature in FEATURES:
                        current_page = feature
                        suite.latency(contenders, site.url(feature), feature, feature_ops,
                                      rounds=max(2, args.rounds // 2), warmup=args.warmup, samples=samples,
                                      observe=observe)  # fmt: skip
                        checkpoint()
            finally:
                close(contenders)
            result["latency_samples"] = samples
            result["latency_rows"] = report.latency_rows(samples, result["config"]["target_pages"])
            result["scaling"] = scaling(samples, observations, sizes)
            phases["chromium latency"] = time.monotonic() - t0
            checkpoint()

        if "firefox" in args.sections:
            t0 = time.monotonic()
            suite.log("starting Firefox for ours and raw BiDi")
            contenders = start([lambda: Ours("firefox"), lambda: RawBidi("firefox")])
            ff: suite.Samples = {}
            try:
                if len(contenders) == 2:
                    ops = [*read_ops, *action_ops]
                    suite.latency(contenders, site.listing(action_size), target_label, ops,
                                  rounds=max(3, args.rounds // 2), warmup=args.warmup, samples=ff)  # fmt: skip
                else:
                    result["firefox_error"] = "Firefox did not start"
            finally:
                close(contenders)
            result["firefox_samples"] = ff
            result["firefox_rows"] = report.latency_rows(ff, [target_label], raw_only_target=True)
            phases["firefox latency"] = time.monotonic() - t0
            checkpoint()

        memory_page = site.listing(1000) if 1000 in sizes else site.listing(min(sizes))
        if "memory" in args.sections:
            t0 = time.monotonic()
            suite.log(f"memory over {args.memory_calls} mixed calls")
            ours: Ours | None = None
            try:
                ours = Ours()
                ours.goto(memory_page)
                result["memory"] = suite.memory_growth(ours, memory_page, args.memory_calls)
            except Exception as exc:
                result["memory"] = {"error": f"{type(exc).__name__}: {exc}"}
            finally:
                if ours is not None:
                    close([ours])
            phases["memory"] = time.monotonic() - t0
            checkpoint()

        if "scaleout" in args.sections:
            t0 = time.monotonic()
            suite.log(f"scale-out: {args.levels} local sessions")
            result["scale_local"] = scale(None, args, memory_page)
            phases["scale-out local"] = time.monotonic() - t0
            checkpoint()
        if "grid" in args.sections:
            t0 = time.monotonic()
            suite.log(f"scale-out: {args.levels} sessions through a local Selenium Grid")
            result["scale_grid"] = scale_grid(args, memory_page)
            phases["scale-out Grid"] = time.monotonic() - t0
            checkpoint()

    if "render" in args.sections:
        t0 = time.monotonic()
        result["render"] = render_table()
        phases["render"] = time.monotonic() - t0
    if "mcp" in args.sections:
        from .bench_mcp import table as mcp_table

        result["mcp"] = mcp_table()
        print(f"\n### MCP server (`benchmarks/bench_mcp.py`)\n\n{result['mcp']}")
    phases["total"] = time.monotonic() - began
    result["phase_seconds"] = {k: round(v, 1) for k, v in phases.items()}
    print("\n" + report.markdown(result))
    if not args.no_write:
        write(args.out, result, final=True, base=base)
        print(f"wrote {args.out}/results.md, results.json, performance-table.md")
    return 0


def saved(out: Path) -> dict[str, Any] | None:
    try:
        value = json.loads((out / "results.json").read_text())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def merged(base: dict[str, Any] | None, result: dict[str, Any]) -> dict[str, Any]:
    """This run's figures laid over the saved ones: whole parts replace theirs; latency samples replace by page
    and operation, so a partial latency run keeps the other operations' figures."""
    if base is None:
        return result
    combined = {**base}
    for key, value in result.items():
        if key in ("latency_samples", "firefox_samples") and isinstance(base.get(key), dict):
            pages = {page: dict(ops) for page, ops in base[key].items()}
            for page, ops in value.items():
                pages.setdefault(page, {}).update(ops)
            combined[key] = pages
        elif key not in ("config", "machine", "phase_seconds", "latency_rows", "firefox_rows", "complete"):
            combined[key] = value
    config = base.get("config", {})
    combined["config"] = config
    sections = set(result["config"].get("sections", []))
    earlier = [m for m in base.get("merges", []) if not set(m.get("config", {}).get("sections", [])) <= sections]
    combined["merges"] = [*earlier, {"machine": result["machine"], "config": result["config"],
                                                     "phase_seconds": result.get("phase_seconds")}]  # fmt: skip
    target_pages = config.get("target_pages", [])
    if combined.get("latency_samples"):
        combined["latency_rows"] = report.latency_rows(combined["latency_samples"], target_pages)
    if combined.get("firefox_samples"):
        target = [config.get("action_page", "")]
        combined["firefox_rows"] = report.latency_rows(combined["firefox_samples"], target, raw_only_target=True)
    return combined


def write(out: Path, result: dict[str, Any], *, final: bool, base: dict[str, Any] | None = None) -> None:
    if base is not None:
        result = merged(base, result)
    out.mkdir(parents=True, exist_ok=True)
    partial = "" if final else "\n(partial: the run is still going or was interrupted)\n"
    (out / "results.md").write_text("# browser-toolset benchmark\n\n" + report.markdown(result) + partial)
    (out / "results.json").write_text(json.dumps({**result, "complete": final}, indent=1, default=str) + "\n")
    snippet = "## Measurements\n\n" + report.markdown(result, summary=True) + partial
    (out / "performance-table.md").write_text(snippet)  # pasted by hand into docs/performance.md


def scaling(samples: suite.Samples, observations: dict[str, Any], sizes: list[int]) -> dict[str, Any] | None:
    from .pages import listing

    rows = []
    points: dict[str, list[tuple[float, float]]] = {"ours_all": [], "ours_interactive": [], "pw": []}
    for size in sizes:
        page = f"listing {size_label(size)}"
        ops = samples.get(page, {})
        elements = listing(size).count("<") - listing(size).count("</") - 4  # start tags, less doctype/head parts

        def med(op: str, name: str, ops: dict[str, Any] = ops) -> float | None:
            values = ops.get(op, {}).get(name, {}).get("ms") or []
            return statistics.median(values) if values else None

        row = {"page": page, "elements": elements, "ours_all": med("read_all", "ours"),
               "ours_interactive": med("read_interactive", "ours"), "pw": med("read_all", "Playwright")}  # fmt: skip
        seen = observations.get(page, {})
        if seen.get("read_all"):
            row["chars_per_ref"] = statistics.median(seen["read_all"])
            row["output_per_ref"] = statistics.median(seen["read_all_per_ref"])
            row["capped"] = max(seen.get("read_all_chars", [0])) >= 49_000
        rows.append(row)
        for key in points:
            if row.get(key) is not None:
                points[key].append((elements, row[key]))
    if not rows:
        return None
    out: dict[str, Any] = {"rows": rows}
    for key in points:
        out[f"{key}_ms_per_element"] = report.slope(points[key])
    ours_slope = out.get("ours_all_ms_per_element")
    out["slope_met"] = None if ours_slope is None else ours_slope <= 0.02
    cprs = [row["chars_per_ref"] for row in rows if row.get("chars_per_ref")]
    out["chars_met"] = None if not cprs else max(cprs) <= 35
    return out


def _session_memory(sessions: list[Ours], count: int) -> dict[str, Any]:
    totals = [tree_memory(root) for root in (s.memory_root() for s in sessions[:count]) if root is not None]
    if not totals:
        return {}
    return {
        "rss_per_session_mib": round(sum(t["rss_mib"] for t in totals) / len(totals), 1),
        "pss_per_session_mib": round(sum(t["pss_mib"] for t in totals) / len(totals), 1),
    }


def scale(remote: str | None, args: argparse.Namespace, url: str, grid_pids: list[int] | None = None) -> dict[str, Any]:
    sessions: list[Ours] = []
    try:
        sessions = suite.start_sessions(max(args.levels), remote)

        def memory(level: int) -> dict[str, Any]:
            if grid_pids is None:
                return _session_memory(sessions, level)
            # Grid's browsers belong to its node processes: all open sessions share the total
            rss = sum(tree_memory(pid)["rss_mib"] for pid in grid_pids)
            pss = sum(tree_memory(pid)["pss_mib"] for pid in grid_pids)
            return {"rss_per_session_mib": round(rss / len(sessions), 1),
                    "pss_per_session_mib": round(pss / len(sessions), 1)}  # fmt: skip

        rows = suite.scale_out(sessions, args.levels, url, args.scale_calls, memory)
        return {"rows": rows, "calls_per_session": args.scale_calls, "open_sessions": len(sessions)}
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}
    finally:
        close(list(sessions))


def scale_grid(args: argparse.Namespace, url: str) -> dict[str, Any]:
    from .grid import local_grid

    try:
        with local_grid(max(max(args.levels), 2)) as grid:
            suite.log(f"  Grid up: {grid.kind} at {grid.url}")
            out = scale(grid.url, args, url, grid.pids())
            out["kind"] = grid.kind
            return out
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {str(exc)[:500]}"}


def render_table() -> str:
    from . import bench_render

    tree = bench_render.synthetic_tree()

    def ref_for(node: Any) -> str:
        return f"ref_{node.key}"

    rows = {
        "read_page render (all)": lambda: bench_render.tree_text.render_tree(
            tree, ref_for=ref_for, filter=None, depth=15, max_chars=50_000
        ),
        "read_page render (interactive)": lambda: bench_render.tree_text.render_tree(
            tree, ref_for=ref_for, filter="interactive", depth=15, max_chars=50_000
        ),
        "find ranking": lambda: bench_render.finder.find_matches(tree, "read 500 link"),
    }
    lines = [f"Synthetic tree of {len(tree.walk())} nodes, median of {bench_render.ROUNDS} runs.\n",
             "| executor step | ms |", "|---|---|"]  # fmt: skip
    lines += [f"| {name} | {bench_render.median_ms(work):.1f} |" for name, work in rows.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
