"""Drop-in durable operators, one module per vendor family (``databricks``, ``aws``).

``base`` holds the vendor-neutral checkpoint protocol (``DurableJobMixin``); ``checkpoint`` and
``decision`` are its record and its decision; ``signature`` makes our constructors show the official
ones. Import operators from their family's module; this package imports nothing on its own.
"""
