"""The agent loop: Claude on the Messages API driving a toolset until the task ends (`run_task`, `arun_task`)."""
