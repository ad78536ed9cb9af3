"""Starting the configured browser for a command, and the person asked about high-impact calls.

`exec` and `run` share this: the settings name the driver (none: the first browser installed here, see
`browser_toolset.config.browsers`); a driver that cannot start, or a toolset that cannot be set up, is a message on
standard error and no browser left behind.
"""

from __future__ import annotations

import io
import os
import sys
from typing import IO, Any

from anthropic.tools import ToolsetConfigError
from anthropic.tools.browser import BetaConfirmContext

from ..config import OPTIONAL_MEMBERS, Settings, toolset_on
from ..executor.toolset import BrowserToolset
from ..registry import load_driver
from ..safety.confirm import Ask, Assessment
from ..safety.sanitize import one_line

__all__ = ["ask_on", "close_quietly", "make_toolset", "silence_stdout", "start_driver", "terminal_asker"]


def approve_unattended(context: BetaConfirmContext) -> bool:
    """`--enable` is the operator's consent for the optional members; each of their calls is logged so it can be
    read. Every other member runs as it would with no `confirm` at all."""
    if context.member in OPTIONAL_MEMBERS:
        print(f"browser-toolset: approved {context.member} unattended (enabled with --enable)", file=sys.stderr)
    return True


def terminal_asker() -> Ask | None:
    """A person to ask on the controlling terminal, or None when there is none (in `exec` stdin is the call
    stream, so it cannot be the one asked)."""
    try:
        tty = open("/dev/tty", "r+", encoding="utf-8")  # noqa: SIM115
    except OSError:
        return None

    def ask(assessment: Assessment) -> bool:
        return ask_on(tty, assessment)

    return ask


def ask_on(tty: IO[str], assessment: Assessment) -> bool:
    """Ask about one call on `tty`; only an explicit yes lets it run."""
    target = assessment.target
    element = f" {target.role} {one_line(target.name or '', 80)!r}" if target.role else ""
    tty.write(
        f"\nbrowser-toolset: Claude wants to run {target.member}{element}"
        f"{' on ' + one_line(target.url, 200) if target.url else ''}.\n"
        f"It looks like {assessment.describe()} ({'; '.join(assessment.reasons)}). Allow it? [y/N] "
    )
    tty.flush()
    return tty.readline().strip().lower() in ("y", "yes")


def start_driver(settings: Settings) -> Any:
    """The configured driver (settings whose browser is chosen already), or None after saying on stderr why it
    could not start."""
    try:
        return load_driver(settings.driver, settings.driver_options)
    except SystemExit:
        raise
    except Exception as exc:
        print(
            f"browser-toolset: could not start the {settings.driver} driver: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return None


def make_toolset(settings: Settings, driver: Any, asker: Ask | None) -> BrowserToolset | None:
    """The toolset on `driver`, or None (the driver closed) after saying on stderr why it could not be set up."""
    try:
        return toolset_on(driver, settings, ask=asker, then=approve_unattended)
    except (ToolsetConfigError, ValueError) as exc:
        print(f"browser-toolset: {exc}", file=sys.stderr)
    except Exception as exc:
        print(f"browser-toolset: the browser could not be set up: {type(exc).__name__}: {exc}", file=sys.stderr)
    return None


def close_quietly(resource: Any) -> None:
    """Close the toolset or driver; a browser that already died is no reason for a traceback at the end."""
    try:
        resource.close()
    except Exception as exc:
        print(f"browser-toolset: closing the browser failed: {type(exc).__name__}: {exc}", file=sys.stderr)


def silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush to a closed pipe cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass
