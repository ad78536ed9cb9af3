"""`python -m browser_toolset.mcp`: `browser-toolset mcp`, its arguments those that follow."""

import sys

from ..cli import main

sys.exit(main(["mcp", *sys.argv[1:]]))
