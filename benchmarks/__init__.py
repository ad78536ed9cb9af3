"""The benchmark suite: browser-toolset side by side with raw WebDriver BiDi, classic Selenium and Playwright on the
same system Chromium (and Firefox against raw BiDi), on generated pages served from 127.0.0.1.

Run `python -m benchmarks` (or `tox -e bench`); `python -m benchmarks --help` lists the options. Playwright is
optional (the `bench` extra) and never downloads a browser: it drives `/usr/bin/chromium`. Nothing here asserts a
time: speed is read from the tables in `benchmarks/results/`, not tested.
"""
