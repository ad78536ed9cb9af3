"""Confirmation through the MCP client: where a high-impact call's category is `ask`, the person is asked through
the client that made the call.

`ActionGate` (`browser_toolset.safety.confirm`) decides which calls need a person and calls `ask`, a plain function
run on the session's worker thread while the call waits. On the handshake protocol `ask` sends an
`elicitation/create` request back through the call's own request and waits for the answer. The per-request
protocol (2026-07-28) has no server-to-client requests: `ask` stops the call before it runs (`InputNeeded`), the
server answers with an input-required result holding the question, and the client asks the person and sends the
call again with the answer, which the gate then reads. Accepted, the call runs; declined or cancelled, the gate
refuses it saying the person declined. A client that cannot ask (no elicitation capability) gets the refusal a
session without a person gets.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

import anyio.from_thread
import attrs
import mcp_types as types
from anthropic.tools import ToolsetUsageError
from mcp.server import ServerRequestContext
from mcp_types.version import is_version_at_least

from ..executor.errors import ActionError
from ..safety.confirm import Assessment
from ..safety.sanitize import one_line

__all__ = ["CONFIRM_KEY", "CURRENT", "CallContext", "InputNeeded", "ask", "question", "refusal"]

log = logging.getLogger("browser_toolset")

CONFIRM_KEY = "confirm"
"""The key of the one input request a call may need, in the input-required result and in the client's answer."""
PER_REQUEST_VERSION = "2026-07-28"
NO_PERSON = "this session refuses such actions without a person to confirm them"
ASK_FAILED = "the person could not be asked through the MCP client"
DECLINED = "the user declined it"
_SCHEMA: types.ElicitRequestedSchema = {"type": "object", "properties": {}}
"""Nothing to fill in: accepting the question is the go-ahead."""


@attrs.frozen
class CallContext:
    """The MCP request a member call is answering, for `ask` to reach the person behind it."""

    request: ServerRequestContext[Any, Any]
    input_responses: Mapping[str, Any] | None = None
    request_state: str | None = None

    @property
    def per_request(self) -> bool:
        return is_version_at_least(self.request.protocol_version, PER_REQUEST_VERSION)

    def can_ask(self) -> bool:
        capabilities = self.request.session.client_capabilities
        elicitation = capabilities.elicitation if capabilities is not None else None
        # A bare `elicitation: {}` (from before there were modes) is form support; URL-only support is not.
        return elicitation is not None and (elicitation.form is not None or elicitation.url is None)

    def answer(self, digest: str) -> types.ElicitResult | None:
        """The client's answer to the question whose digest is `digest`, sent with this retry of the call; None
        when it answers another question (the page changed between the rounds) or none."""
        answer = (self.input_responses or {}).get(CONFIRM_KEY)
        if not isinstance(answer, types.ElicitResult) or not self.request_state:
            return None
        try:
            asked = json.loads(self.request_state).get("q")
        except (ValueError, AttributeError):
            return None
        return answer if asked == digest else None


CURRENT: ContextVar[CallContext | None] = ContextVar("browser_toolset_mcp_call", default=None)
"""The request the running call answers (copied to the worker thread with the rest of the context)."""


class InputNeeded(ToolsetUsageError):
    """Raised by `ask` on the per-request protocol to stop the call before it runs. A `ToolsetUsageError`, because
    that is what the SDK's pipeline lets through a `confirm` hook untouched rather than answering the model with
    it; the server turns it into the input-required result."""

    def __init__(self, request: types.ElicitRequest, state: str) -> None:
        super().__init__("the person must be asked through the MCP client first")
        self.request = request
        self.state = state

    def result(self) -> types.InputRequiredResult:
        return types.InputRequiredResult(input_requests={CONFIRM_KEY: self.request}, request_state=self.state)


def question(assessment: Assessment) -> str:
    """What the person reads."""
    target = assessment.target
    element = f" on {target.role} {one_line(target.name or '', 80)!r}" if target.role else ""
    where = f" at {one_line(target.url, 200)}" if target.url else ""
    return (
        f"The assistant wants to run {target.member}{element}{where}. It looks like {assessment.describe()} "
        f"({'; '.join(assessment.reasons)}). Allow it?"
    )


def refusal(assessment: Assessment, outcome: str) -> ActionError:
    """The refusal the model reads, worded as `ActionGate` words its own."""
    target = assessment.target
    what = target.member
    if target.role and target.name is not None:
        what += f" on {target.role} {one_line(target.name, 80)!r}"
    elif target.member == "navigate" and target.url:
        what += " to this address"
    return ActionError(
        f"{what} was not run: it looks like {assessment.describe()} ({'; '.join(assessment.reasons)}), and "
        f"{outcome}. Do not retry it or work around it; tell the user what you were about to do so they can do it "
        "themselves or allow it."
    )


async def _elicit(request: ServerRequestContext[Any, Any], message: str) -> types.ElicitResult:
    return await request.session.elicit_form(message, _SCHEMA, related_request_id=request.request_id)


def ask(assessment: Assessment) -> bool:
    """The gate's `ask` for MCP sessions (see the module's docstring); True lets the call run."""
    call = CURRENT.get()
    if call is None or not call.can_ask():
        raise refusal(assessment, NO_PERSON)
    message = question(assessment)
    if call.per_request:
        digest = hashlib.sha256(message.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        answer = call.answer(digest)
        if answer is None:
            request = types.ElicitRequest(
                params=types.ElicitRequestFormParams(message=message, requested_schema=_SCHEMA)
            )
            raise InputNeeded(request, json.dumps({"q": digest}))
    else:
        try:
            answer = anyio.from_thread.run(_elicit, call.request, message)
        except Exception as exc:
            log.warning("asking through the MCP client failed: %s", exc)
            raise refusal(assessment, ASK_FAILED) from exc
    log.info("the person answered %s to %s", answer.action, assessment.describe())
    return answer.action == "accept"
