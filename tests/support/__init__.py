"""What the tests share: one page server (`server`), one polling helper and one free-port helper (`polling`), what to
do when a browser is missing (`needs`), the Grid (`grid`), Selenium and walker helpers (`browsers`, `walker`), a
session that runs tool calls and checks the contract (`session`), and the member suite run on every real browser
(`browser_suite`). Fixtures are in `tests/conftest.py`."""
