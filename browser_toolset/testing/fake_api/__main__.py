"""`python -m browser_toolset.testing.fake_api`: the `browser-toolset fake-api` command."""

import sys

from .command import main

if __name__ == "__main__":
    sys.exit(main())
