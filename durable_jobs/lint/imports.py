"""Resolve names in a DAG file to the dotted paths they were imported from.

Rules compare dotted paths, so ``from airflow.models import Variable as V`` and
``import airflow.sdk as sdk; sdk.Variable`` are recognised alike. A name that was never
imported resolves to itself, which keeps snippets without imports (docs, reviews) lintable.
"""

from __future__ import annotations

import ast

from durable_jobs import vendors as registry

#: Imports that make a file talk to a job system: each family's provider and SDKs (the registry's
#: ``Family.modules``), and our own package.
VENDOR_PREFIXES = ("durable_jobs", *(prefix for family in registry.FAMILIES for prefix in family.modules))


class ImportMap:
    """Local name -> dotted path, for every import anywhere in the module."""

    def __init__(self, tree: ast.AST) -> None:
        self.names: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.names[alias.asname] = alias.name
                    else:
                        root = alias.name.split(".")[0]
                        self.names[root] = root
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                for alias in node.names:
                    self.names[alias.asname or alias.name] = f"{module}.{alias.name}".lstrip(".")

    def dotted(self, node: ast.AST | None) -> str | None:
        """``V.get`` -> ``airflow.models.Variable.get``; None for anything but a name chain."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.names.get(node.id, node.id))
        return ".".join(reversed(parts))

    def touches_vendor(self) -> bool:
        """True when the file imports a job system's hook, SDK or client library."""
        return any(path.startswith(VENDOR_PREFIXES) for path in self.names.values())


def last(dotted: str | None) -> str:
    return dotted.rsplit(".", 1)[-1] if dotted else ""
