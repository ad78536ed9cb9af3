"""Test support for code that runs Claude's browser tool, ours and our users'.

- `browser_toolset.testing.contract`: the independent checker of what the API would reject (every `tool_result`,
  every answer to a turn, a whole session's tab ids).
- `browser_toolset.testing.site_server`: `SiteServer`, which serves a mock `Site` to a real browser, so that one
  site description drives both the mock driver and Chromium or Firefox.
- `browser_toolset.testing.plugin`: the pytest plugin (fixtures `mock_site`, `mock_driver`, `mock_toolset`,
  `site_server`, `chromium_toolset`, `firefox_toolset`, `browser_contract`), loaded by pytest on its own through the
  `pytest11` entry point once browser-toolset is installed.

Nothing is imported here, so that importing the contract checker loads neither the executor nor the drivers.
"""
