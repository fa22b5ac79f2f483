"""Benchmarks of the shared poller against the official triggers, in the same run (``make bench``).

``python -m benchmarks`` runs the matrix and prints the table; ``--quick`` runs small N. Every variant
runs in a fresh process (``benchmarks.one``) against its own counting, rate-limited vendor process
(``benchmarks.vendor``), so CPU, memory and sockets are the triggers' own.
"""
