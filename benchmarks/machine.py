"""What the run was measured on (date, machine, browser versions) and the memory of process trees, from /proc."""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
from pathlib import Path

__all__ = ["descendants", "machine_info", "tree_memory"]


def _first(pattern: str, text: str) -> str:
    found = re.search(pattern, text, re.M)
    return found.group(1).strip() if found else ""


def _version(command: list[str]) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.strip().splitlines()[-1] if out.strip() else ""


def machine_info() -> dict[str, object]:
    cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace") if Path("/proc/cpuinfo").exists() else ""
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    mem_kib = int(_first(r"^MemTotal:\s+(\d+)", meminfo) or 0)
    try:
        from importlib.metadata import version

        playwright = version("playwright")
    except Exception:  # the bench extra is optional
        playwright = ""
    try:
        from importlib.metadata import version

        selenium = version("selenium")
    except Exception:
        selenium = ""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "cpu": _first(r"^model name\s*:\s*(.+)$", cpuinfo) or platform.processor(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "chromium": _version(["chromium", "--version"]),
        "chromedriver": _version(["chromedriver", "--version"]),
        "firefox": _version(["firefox-esr", "--version"]) or _version(["firefox", "--version"]),
        "selenium": selenium,
        "playwright": playwright,
    }


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # the command name is in parentheses and may contain spaces
        fields = stat[stat.rfind(")") + 2 :].split()
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def descendants(root: int, *, include_root: bool = False) -> list[int]:
    tree = _children()
    found, stack = [], list(tree.get(root, ()))
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(tree.get(pid, ()))
    return [root, *found] if include_root else found


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


EXCLUDED = ("chromedriver", "geckodriver", "java", "node", "python", "crashpad")
"""Processes below a root that are not the browser: drivers, Grid's Java, Playwright's node, crash handlers."""


def tree_memory(root: int) -> dict[str, float]:
    """RSS and PSS (MiB) summed over the browser processes below `root` (a driver, Grid or Playwright process),
    leaving out `EXCLUDED`. PSS splits shared pages between the processes that share them, so it adds up across a
    tree; RSS counts a shared page once per process (the sum overstates what the browser holds)."""
    rss = pss = 0
    count = 0
    by_type: dict[str, float] = {}
    for pid in descendants(root):
        comm = _comm(pid).lower()
        if not comm or any(part in comm for part in EXCLUDED):
            continue
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        count += 1
        rss += int(_first(r"^VmRSS:\s+(\d+)", status) or 0)
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
            own = int(_first(r"^Pss:\s+(\d+)", rollup) or 0)
        except OSError:
            own = 0
        pss += own
        kind = _kind(pid, comm)
        by_type[kind] = by_type.get(kind, 0) + own / 1024
    return {
        "rss_mib": round(rss / 1024, 1),
        "pss_mib": round(pss / 1024, 1),
        "processes": count,
        "pss_by_type_mib": {kind: round(value, 1) for kind, value in sorted(by_type.items())},
    }


def _kind(pid: int, comm: str) -> str:
    """Chromium's `--type=` (renderer, gpu-process, utility, zygote) or `browser`; Firefox's process name."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return comm
    # Chromium rewrites its children's command lines into one space-separated string
    found = re.search(r"--type=([\w-]+)", cmdline)
    if found:
        return found.group(1)
    return "browser" if "chrom" in comm else comm
