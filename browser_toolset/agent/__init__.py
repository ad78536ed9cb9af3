"""The agent loop: Claude on the Messages API driving a toolset until the task ends (`run_task`, `arun_task`).

`flow` is the loop itself with no I/O in it, `run` its sync and async drivers, `command` the `run` subcommand;
`conversation` (how the drivers send it, on the SDK's message threads), `trimming` (image limits), `events`,
`describe`, `printing` and `options` are its parts."""
