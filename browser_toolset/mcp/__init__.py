"""`browser-toolset mcp`: the browser toolset for Claude Code, Claude Desktop and any MCP client, on the official
`mcp` SDK (the `mcp` extra: `pip install browser-toolset[mcp]`).

The modules, one job each: `tools` (the members as MCP tools, from the SDK's definitions), `results` (a
`tool_result` as MCP content), `sessions` (a browser per client: opened on first use, idle timeout, limit),
`confirm` (asking the person through the client), `server` (the MCP server over them), `metrics` (what `/metrics`
reports), `http` (the streamable HTTP app, its checks and operations routes), `options` (how it serves, from the
flags and the `BROWSER_TOOLSET_MCP_*` variables, without the `mcp` package) and `command` (`serve`). The command line
is `browser_toolset.cli`'s, its settings flags those of `exec`. Nothing here is public API: the command is the
interface.
"""
