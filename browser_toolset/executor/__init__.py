"""The executor: `BrowserToolset` and what it does between the SDK's pipeline and the `Driver` protocol.

Tab ids and refs, coordinate scaling and image limits, input validation, the `read_page` text format and
`find`, the batch rule, and the async twin. Nothing here talks to a browser: every page effect goes through
`browser_toolset.driver.Driver`.
"""
