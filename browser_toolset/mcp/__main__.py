"""`python -m browser_toolset.mcp`: the MCP server on its own (`browser-toolset mcp` once the CLI registers it)."""

import sys

from .command import main

sys.exit(main())
