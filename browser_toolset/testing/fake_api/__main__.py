"""`python -m browser_toolset.testing.fake_api ...`: the same as `browser-toolset fake-api ...`."""

import sys

from browser_toolset.cli.main import main

if __name__ == "__main__":
    sys.exit(main(["fake-api", *sys.argv[1:]]))
