"""The `browser-toolset` command (`python -m browser_toolset.cli` runs it too).

`parsers` holds every parser and `main` the one entry point; each command is a function taking plain values:
`exec_command`, `run_command` (over `browser_toolset.agent.command`), `config_command`, `grid_command` (over
`grid`), `demo`, and `browser_toolset.sessions.replay` / `.report` and `browser_toolset.testing.fake_api.command`.
`browser` starts the configured browser for `exec` and `run`, `record` records them, `exec_lines` is the `exec`
wire, and `demo_site/` the demo's bundled site.
"""

from .main import main

__all__ = ["main"]
