"""The demo site of `browser-toolset demo` (package data)."""
