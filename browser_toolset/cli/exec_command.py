"""`browser-toolset exec`: Claude's browser calls in, `tool_result` messages out, one JSON document per line.

Each stdin line is an assistant message (or a whole Messages API response, or a bare list of content blocks); each
stdout line is the `user` message answering its browser calls, with the batch rule applied. The browser lives for
the whole session, so a multi-step conversation can be replayed line by line. How lines are read and answered, and
what a line that cannot be answered gets, is `exec_lines`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from ..config import Settings
from ..config.toolsets import save_storage_on_close
from .browser import close_quietly, make_toolset, silence_stdout, start_driver, terminal_asker
from .exec_lines import serve
from .record import Timed, assistant_message, recorder_for

__all__ = ["exec_session"]


def exec_session(settings: Settings) -> int:
    """Answer stdin's lines on stdout with the browser `settings` describe (its browser chosen already), and save
    its storage state at the end when `storage.save` asks: 0 when every line was answered, 1 when one could not be,
    2 when the browser could not start."""
    recorder = recorder_for(settings)
    driver = start_driver(settings)
    if driver is None:
        return 2
    # stdin carries the calls, so a person is asked on the controlling terminal, if there is one
    asker = terminal_asker() if "ask" in settings.confirm.decisions().values() else None
    toolset = make_toolset(settings, driver, asker)
    if toolset is None:
        return 2
    save_storage_on_close(toolset, settings)
    try:
        if recorder is None:
            return serve(toolset, sys.stdin, sys.stdout, sys.stderr)
        timed = Timed(toolset)
        with recorder:

            def record(document: Any, answer: Mapping[str, Any]) -> None:
                recorder.record_exchange(assistant_message(document), answer, list(timed.seconds))

            return serve(toolset, sys.stdin, sys.stdout, sys.stderr, record=record, before=timed.seconds.clear)
    except BrokenPipeError:
        # whoever reads the answers has gone: stop quietly, and keep the interpreter's final flush from failing too
        silence_stdout()
        print("browser-toolset: the output was closed; stopping", file=sys.stderr)
        return 1
    finally:
        close_quietly(toolset)
