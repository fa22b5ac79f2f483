"""The machinery behind ``tools/upstream_pins.py``: source hashes, their rewrite, the private-use scan.

Normalisation: ``inspect.getsource``, dedented, parsed, docstrings dropped, then ``ast.unparse``.
Comments, docstrings, blank lines and formatting do not count; anything the interpreter would run
does. The unparser is the running Python's (3.11, as in ``constraints/``): a new Python version may
re-spell the same code, in which case ``--update`` after a look at ``--check`` is all it takes.

The private-use scan (:func:`private_uses`) reads our runtime modules with ``ast`` and reports each
underscore name taken from an ``airflow`` module or class (``_official._helper``,
``getattr(obj, "_attr")``, ``from airflow.x import _y``) and each ``self._name`` in our classes
that an *upstream* base class (of the class, or of our subclasses of a mixin) defines or assigns:
its class namespace, or ``self._name`` in its source. What it cannot see: a private attribute
reached through a local variable (``hook = self.hook; hook._x``); list those by hand.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib
import importlib.metadata
import inspect
import re
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "durable_jobs"
#: Runtime code (what runs inside Airflow); lint, emulators and the demo are not scanned.
RUNTIME_FOLDERS = ("core", "providers", "shims")
#: Top-level modules that are not runtime (the command dispatcher); every other durable_jobs/*.py is.
NOT_RUNTIME_TOP_LEVEL = ("cli.py",)
#: Only these roots count as "upstream" for the scan (structlog: the Task SDK's log writer, see cancel.py).
UPSTREAM_ROOTS = ("airflow", "structlog")

COPIED = "copied block"
PRIVATE = "private name"
REUSED = "reused behaviour"
KINDS = (COPIED, PRIVATE, REUSED)


@dataclass(frozen=True)
class Pin:
    """One upstream object whose source we depend on."""

    #: ``module:qualname`` of the upstream object, as we import it.
    target: str
    #: ``copied block``: we copied (part of) it; ``private name``: a private or undocumented name we
    #: call, read or set; ``reused behaviour``: a public method we call for its exact internals.
    kind: str
    #: Our code that copies or uses it: ``durable_jobs.module:qualname``.
    used_by: tuple[str, ...]
    why: str
    #: sha256 of the normalised source (``--update`` writes it).
    sha256: str = ""
    #: ``distribution==version`` that provided the target when the hash was written.
    pinned: str = ""
    #: Further private names (dotted, as the scan reports them) this pin accounts for: attributes
    #: that have no source of their own, checked through the code that defines or reads them.
    covers: tuple[str, ...] = ()

    @property
    def dotted(self) -> str:
        return self.target.replace(":", ".")

    def covered(self) -> frozenset[str]:
        own = {self.dotted} if any(is_private(part) for part in self.target.split(":")[1].split(".")) else set()
        return frozenset(own | set(self.covers))


# ============================================================================ hashing
def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def resolve(path: str) -> Any:
    """``module:qualname`` → the object, as its class namespace holds it (no descriptor binding)."""
    module_name, _, qualname = path.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split("."):
        if isinstance(obj, type):
            owner = next((klass for klass in obj.__mro__ if part in vars(klass)), None)
            if owner is None:
                raise AttributeError(f"{path}: {obj.__qualname__} has no attribute {part!r}")
            obj = vars(owner)[part]
        else:
            obj = getattr(obj, part)
    return obj


def unwrap(obj: Any) -> Any:
    """The function behind a descriptor (cached_property, property, staticmethod, classmethod)."""
    if isinstance(obj, functools.cached_property):
        return obj.func
    if isinstance(obj, property):
        return obj.fget
    if isinstance(obj, (staticmethod, classmethod)):
        return obj.__func__
    return obj


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def normalised_source(obj: Any) -> str:
    """The object's source without docstrings, comments or formatting (``ast.unparse``)."""
    source = textwrap.dedent(inspect.getsource(unwrap(obj)))
    return ast.unparse(_strip_docstrings(ast.parse(source)))


def source_hash(obj: Any) -> str:
    return hashlib.sha256(normalised_source(obj).encode("utf-8")).hexdigest()


def distribution_of(obj: Any) -> str:
    """``name==version`` of the installed distribution whose files hold ``obj``'s source."""
    path = Path(inspect.getsourcefile(unwrap(obj)) or "").resolve()
    for dist_name in _upstream_distributions():
        dist = importlib.metadata.distribution(dist_name)
        for file in dist.files or ():
            if Path(str(dist.locate_file(file))).resolve() == path:
                return f"{dist.metadata['Name']}=={dist.version}"
    return "unknown"


@functools.cache
def _upstream_distributions() -> tuple[str, ...]:
    names = {
        d.metadata["Name"] for d in importlib.metadata.distributions()
        if (d.metadata["Name"] or "").lower().startswith("apache-airflow")
        or (d.metadata["Name"] or "").lower() in UPSTREAM_ROOTS
    }
    # The most specific first: a provider's files before the core's.
    return tuple(sorted(names, key=lambda n: (not n.lower().startswith("apache-airflow-providers"), n)))


@dataclass(frozen=True)
class Drift:
    pin: Pin
    problem: str  # "changed" | "missing" | "unhashed"
    detail: str = ""
    installed: str = ""

    def message(self) -> str:
        pin = self.pin
        ours = ", ".join(pin.used_by)
        if self.problem == "missing":
            head = f"{pin.target} ({pin.kind}) no longer resolves in the installed provider: {self.detail}."
        elif self.problem == "unhashed":
            head = f"{pin.target} ({pin.kind}) has no sha256 yet."
        else:
            head = (
                f"{pin.target} ({pin.kind}) changed upstream: pinned at {pin.pinned or 'an unknown version'}, "
                f"installed {self.installed or 'unknown'} hashes differently."
            )
        return (
            f"{head}\n  Our code that depends on it: {ours}.\n  Why we depend on it: {pin.why}\n"
            "  What to do: review the upstream change (the installed source against the pinned release's), "
            "adapt our code, run the unit and integration tests, then run "
            "`python -m tools.upstream_pins --update` and commit the new hashes with the adaptation."
        )


def check(pins: Iterable[Pin]) -> list[Drift]:
    drifts = []
    for pin in pins:
        try:
            obj = resolve(pin.target)
            digest = source_hash(obj)
        except (ImportError, AttributeError, OSError, TypeError) as err:
            drifts.append(Drift(pin, "missing", f"{type(err).__name__}: {err}"))
            continue
        if not pin.sha256:
            drifts.append(Drift(pin, "unhashed"))
        elif digest != pin.sha256:
            drifts.append(Drift(pin, "changed", installed=distribution_of(obj)))
    return drifts


# ============================================================================ --update
def _pin_calls(tree: ast.Module) -> list[ast.Call]:
    """The ``Pin(...)`` calls of a pins module, in source order (the order of its ``PINS``)."""
    calls = [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Pin"
    ]
    return sorted(calls, key=lambda node: (node.lineno, node.col_offset))


def rewrite(text: str, values: list[dict[str, str]]) -> str:
    """``text`` with the n-th Pin's ``sha256=`` / ``pinned=`` strings replaced by ``values[n]``."""
    calls = _pin_calls(ast.parse(text))
    if len(calls) != len(values):
        raise SystemExit(f"found {len(calls)} Pin(...) calls for {len(values)} pins: keep PINS one literal tuple")
    lines = text.splitlines(keepends=True)
    edits = []  # (line index, start byte, end byte, new literal)
    for call, new in zip(calls, values):
        for kw in call.keywords:
            if kw.arg in new:
                node = kw.value
                one_line_str = isinstance(node, ast.Constant) and isinstance(node.value, str)
                if not (one_line_str and node.lineno == node.end_lineno):
                    raise SystemExit(f"line {call.lineno}: {kw.arg}= must be a one-line string literal")
                assert node.end_col_offset is not None
                edits.append((node.lineno - 1, node.col_offset, node.end_col_offset, f'"{new[kw.arg]}"'))
    for row, start, end, literal in sorted(edits, reverse=True):
        raw = lines[row].encode("utf-8")  # ast column offsets count UTF-8 bytes
        lines[row] = (raw[:start] + literal.encode("utf-8") + raw[end:]).decode("utf-8")
    return "".join(lines)


def update(pins: Iterable[Pin], path: Path) -> list[str]:
    """Rewrite every pin's hash and version in ``path`` from the installed sources; the targets that changed."""
    values, changed = [], []
    for pin in pins:
        obj = resolve(pin.target)  # a vanished target is an error, not something to hash away
        digest, dist = source_hash(obj), distribution_of(obj)
        values.append({"sha256": digest, "pinned": dist})
        if (digest, dist) != (pin.sha256, pin.pinned):
            changed.append(pin.target)
    text = path.read_text(encoding="utf-8")
    new = rewrite(text, values)
    if new != text:
        path.write_text(new, encoding="utf-8")
    return changed


# ============================================================================ the private-use scan
@dataclass(frozen=True)
class PrivateUse:
    """One place where our runtime code touches an upstream private name."""

    #: Dotted upstream name, e.g. ``airflow.providers.x.operators.y.Class._attr``.
    name: str
    #: ``path:line`` in this repository.
    where: str


def runtime_modules() -> list[str]:
    """Every runtime module of the package, from the filesystem (new modules are covered)."""
    names = [f"durable_jobs.{f.stem}".removesuffix(".__init__") for f in sorted(PACKAGE.glob("*.py"))
             if f.name not in NOT_RUNTIME_TOP_LEVEL]
    for folder in RUNTIME_FOLDERS:  # subpackages too (durable_jobs.providers.*)
        for file in sorted((PACKAGE / folder).rglob("*.py")):
            parts = file.relative_to(PACKAGE).with_suffix("").parts
            names.append(".".join(("durable_jobs", *parts)).removesuffix(".__init__"))
    return names


def _module_path(module: str) -> Path:
    rel = Path(*module.split("."))
    return ROOT / (rel / "__init__.py" if (ROOT / rel).is_dir() else rel.with_suffix(".py"))


def _upstream(path: str) -> bool:
    return path.split(".")[0] in UPSTREAM_ROOTS


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local name → dotted upstream path, for every ``import`` of an upstream module or name.

    The first binding of a name wins: fallbacks (``except ImportError:``) come after the import
    that the supported Airflow takes.
    """
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _upstream(alias.name):
                    local = alias.asname or alias.name.split(".")[0]
                    aliases.setdefault(local, alias.name if alias.asname else local)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and _upstream(node.module):
            for alias in node.names:
                aliases.setdefault(alias.asname or alias.name, f"{node.module}.{alias.name}")
    # ast.walk is breadth-first: module-level imports are seen before those in functions.
    return aliases


def _is_attr_call(node: ast.Call, functions: tuple[str, ...]) -> bool:
    """``getattr(obj, "name", ...)`` (or setattr/hasattr) with a literal name."""
    return (
        isinstance(node.func, ast.Name) and node.func.id in functions and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)
    )


def _literal_name(node: ast.Call) -> str:
    """The attribute name of a call ``_is_attr_call`` accepted."""
    name = node.args[1]
    assert isinstance(name, ast.Constant) and isinstance(name.value, str)
    return name.value


def _dotted(node: ast.expr, aliases: dict[str, str]) -> str | None:
    """The upstream dotted path an expression denotes, when it is a chain rooted in an import."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value, aliases)
        return f"{base}.{node.attr}" if base else None
    if isinstance(node, ast.Call) and _is_attr_call(node, ("getattr",)):
        base = _dotted(node.args[0], aliases)
        return f"{base}.{_literal_name(node)}" if base else None
    return None


def _private_parts(dotted: str, root: str) -> list[str]:
    """Every prefix of ``dotted`` (past the imported ``root``) that ends in a private name."""
    parts = dotted.split(".")
    skip = len(root.split("."))
    return [".".join(parts[: i + 1]) for i in range(len(parts)) if i >= skip - 1 and is_private(parts[i])]


def _class_qualname(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> str | None:
    """The qualname of the class enclosing ``node`` (None outside classes)."""
    names, current = [], parents.get(node)
    while current is not None:
        if isinstance(current, ast.ClassDef):
            names.append(current.name)
        current = parents.get(current)
    return ".".join(reversed(names)) or None


def _enclosing_class(node: ast.AST, parents: dict[ast.AST, ast.AST], mod: Any,
                     aliases: dict[str, str]) -> type | None:
    """The class ``node`` is defined in directly, or for a class made inside a function (a factory, as
    ``keyed_hook_class``) its first upstream base, resolved through the module's imports."""
    parent = parents.get(node)
    if not isinstance(parent, ast.ClassDef):
        return None
    cls: Any = mod
    for part in (_class_qualname(node, parents) or "").split("."):
        cls = getattr(cls, part, None)
    if isinstance(cls, type):
        return cls
    for base in parent.bases:
        if isinstance(base, ast.Name) and base.id in aliases:
            module, _, name = aliases[base.id].rpartition(".")
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type):
                return found
    return None


def _durable_subclasses(cls: type) -> list[type]:
    seen: list[type] = [cls]
    todo: list[type] = [cls]
    while todo:
        subclasses: list[type] = todo.pop().__subclasses__()
        for sub in subclasses:
            if sub.__module__.startswith("durable_jobs") and sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return seen


def _upstream_classes(cls: type) -> list[type]:
    """Upstream classes in the MRO of ``cls`` and of each of our subclasses of it (mixins included)."""
    found: list[type] = []
    for klass in _durable_subclasses(cls):
        for base in klass.__mro__:
            if _upstream(base.__module__) and base not in found:
                found.append(base)
    return found


@functools.cache
def _class_source(cls: type) -> str:
    try:
        return inspect.getsource(cls)
    except (OSError, TypeError):
        return ""


def _upstream_owner(cls: type, name: str) -> str | None:
    """The upstream class (dotted) that defines or assigns attribute ``name`` for ``cls``, if any."""
    pattern = re.compile(rf"\bself\.{re.escape(name)}\b")
    for base in _upstream_classes(cls):
        if name in vars(base) or pattern.search(_class_source(base)):
            return f"{base.__module__}.{base.__qualname__}.{name}"
    return None


def scan_module(module: str, path: Path | None = None) -> list[PrivateUse]:
    """The upstream private names ``module`` (imported, so its classes are inspectable) touches."""
    path = path or _module_path(module)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    aliases = _aliases(tree)
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    mod = importlib.import_module(module)
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path

    def where(node: ast.stmt | ast.expr) -> str:
        return f"{shown}:{node.lineno}"

    uses: list[PrivateUse] = []

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and is_private(node.name) \
                and not node.name.startswith("__"):
            # def _name(...) in one of our classes that overrides an upstream private method: upstream
            # calls it, so a rename or a new signature upstream silently bypasses ours.
            owner_cls = _enclosing_class(node, parents, mod, aliases)
            if owner_cls is not None and (owner := _upstream_owner(owner_cls, node.name)):
                uses.append(PrivateUse(owner, where(node)))
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and _upstream(node.module):
            uses += [PrivateUse(f"{node.module}.{a.name}", where(node)) for a in node.names if is_private(a.name)]
            continue
        if not isinstance(node, (ast.Attribute, ast.Call)):
            continue
        if isinstance(node, ast.Attribute) and isinstance(parents.get(node), ast.Attribute):
            continue  # the outermost attribute of a chain reports the whole chain
        dotted = _dotted(node, aliases)
        if dotted:
            root: ast.expr = node
            while isinstance(root, (ast.Attribute, ast.Call)):
                root = root.value if isinstance(root, ast.Attribute) else root.args[0]
            imported = aliases[root.id] if isinstance(root, ast.Name) else dotted
            uses += [PrivateUse(name, where(node)) for name in _private_parts(dotted, imported)]
            continue
        # self._name / cls._name / getattr(self, "_name") inside one of our classes
        attr, owner_expr = None, None
        if isinstance(node, ast.Attribute):
            attr, owner_expr = node.attr, node.value
        elif _is_attr_call(node, ("getattr", "setattr", "hasattr")):
            attr, owner_expr = _literal_name(node), node.args[0]
        if attr is None or not is_private(attr):
            continue
        is_self = isinstance(owner_expr, ast.Name) and owner_expr.id in ("self", "cls") or (
            isinstance(owner_expr, ast.Call) and isinstance(owner_expr.func, ast.Name) and owner_expr.func.id == "super"
        )
        qualname = _class_qualname(node, parents)
        if not is_self or qualname is None:
            continue
        cls: Any = mod
        for part in qualname.split("."):
            cls = getattr(cls, part, None)
        if isinstance(cls, type) and (owner := _upstream_owner(cls, attr)):
            uses.append(PrivateUse(owner, where(node)))
    return uses


def private_uses(modules: Iterable[str] | None = None) -> list[PrivateUse]:
    modules = list(runtime_modules() if modules is None else modules)
    for module in modules:  # every class first, so that mixins see all their subclasses
        importlib.import_module(module)
    return [use for module in modules for use in scan_module(module)]


def unpinned(uses: Iterable[PrivateUse], pins: Iterable[Pin]) -> dict[str, list[str]]:
    """Private names used but covered by no pin → where they are used."""
    covered = frozenset().union(*(pin.covered() for pin in pins))
    missing: dict[str, list[str]] = {}
    for use in uses:
        if use.name not in covered:
            missing.setdefault(use.name, []).append(use.where)
    return missing
