"""The checkpoint protocol, vendor-neutral: see docs/architecture.md for its layers, read top-down."""
