"""Sessions after the fact: recording a run, replaying it against a driver, and reporting it as one HTML page."""
