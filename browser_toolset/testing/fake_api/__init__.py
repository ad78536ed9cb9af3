"""A fake Messages API that plays a scripted Claude, for testing agent loops end to end without the network.

An executor's mistakes only show up when the API rejects a request, and a real run costs money and is not
repeatable. This server answers `POST /v1/messages` with assistant turns read from a script, and holds every
incoming request to the rules the API enforces on browser tool results, answering `400 invalid_request_error` with
a specific message when one is broken, as the API does. Every request is recorded, so a test can assert on what
an agent sent (how many images, which thread, which turn).

It speaks message threads the way the SDK's threads and tool runner use them: a `thread: {"type": "create"}`
request carries the whole history, `system` and `tools`; the reply's `id` names the thread's state; a
`thread: {"type": "continue", "previous_message_id": ID}` request carries only the new messages and neither
`system` nor `tools`. An unknown id is answered `404` with `error_code: thread_not_found` and a second continue from
the same reply `409` with `thread_already_continued`, which the SDK recovers from by replaying the whole history.

What is checked on every request, over the whole conversation the model would see (the thread's history plus the
new messages):

- every `tool_use` is answered by a `tool_result` in the next message, and no `tool_result` answers nothing;
- each answer to a turn, with the independent checker `browser_toolset.testing.contract` (it shares no code with
  the executor): ids and order, `toolset_name`, one `browser_state` at most and none on an error, tab-management
  shapes, the batch rule, image types and sizes;
- image limits: at most `max_images` images, and once there are more than 20, every image (earlier ones included)
  at most 2000x2000 px;
- the `tools` entry of the browser toolset, and the `message-threads` beta on threaded requests.

The script format. A script is a JSON list of turns (a file, or the parsed list given to `FakeMessagesAPI` or
`load_script`); a turn is a list of content blocks, or an object with `content` and an optional `stop_reason`:

```json
[
  [{"type": "text", "text": "Opening the shop."},
   {"type": "tool_use", "toolset_name": "browser", "name": "navigate", "input": {"url": "https://shop.test/"}}],
  {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}
]
```

A block is `text` or `tool_use`; a `tool_use` names a browser member with `toolset_name: "browser"`, or a custom
tool without it. `tool_use` ids may be left out (they are generated); `stop_reason` defaults to `tool_use` when the
turn calls a tool and `end_turn` otherwise. A script is checked when it is loaded (`ScriptError` says where). The
answer to a request is the script turn whose index is the number of assistant messages in its conversation, so a
replayed or rewritten history gets the turn that follows it; past the end of the script every answer is a final
`end_turn` with the text `END_OF_SCRIPT`.

Run it from a shell with `browser-toolset fake-api --script FILE [--port N]` (it prints its base URL), then point
the SDK at it with `ANTHROPIC_BASE_URL`.

- `script`: the script format; `rules`: the API's rules for a request, and token accounting; `threads`: the thread
  state the server holds; `server`: `FakeMessagesAPI`, over HTTP; `command`: the `fake-api` subcommand.
"""

from .script import END_OF_SCRIPT, ScriptError, ScriptTurn, load_script
from .server import FakeMessagesAPI, RecordedRequest

__all__ = ["END_OF_SCRIPT", "FakeMessagesAPI", "RecordedRequest", "ScriptError", "ScriptTurn", "load_script"]
