"""``durable-jobs demo``: the official operators and ours, side by side, on the bundled emulator."""
