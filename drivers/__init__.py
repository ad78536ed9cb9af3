"""Driver implementations of the `browser_toolset.driver.Driver` protocol, installed as `browser_toolset.drivers`.

- `mock`: an in-memory browser for unit tests (ours and our users').
- `selenium`: Chromium / Chrome, Firefox, or a Selenium Grid, through WebDriver BiDi.

A third-party driver registers itself under the `browser_toolset.drivers` entry-point group with a factory
`(options: Mapping[str, str]) -> Driver`; see `browser_toolset.registry`.
"""
