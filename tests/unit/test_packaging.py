"""What ships: runtime imports stay lean, and the wheel holds the package and nothing of the repository.

* Each runtime module, imported alone in a fresh interpreter, pulls in none of the lint, the
  emulators, the demo, the repository's ``tools`` or pytest (they are user features or repository
  tooling; Airflow imports the runtime modules in every worker and triggerer).
* ``pip wheel`` builds the wheel (in isolation, as a user's pip would) once for this module; its file
  list, its ``.py`` files and its METADATA are checked against the repository.
* ``[tool.setuptools] packages`` in pyproject.toml names every package folder.
* The moto extras the ``[testing]`` extra asks for exist in the installed moto.
"""

from __future__ import annotations

import ast
import email
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

import pytest
from packaging.requirements import Requirement

from durable_jobs import vendors

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "durable_jobs"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: Top-level modules that are not runtime: the command dispatcher (its subcommands are the lint and
#: the demo, imported when chosen). Every other durable_jobs/*.py is runtime, as is every module in
#: RUNTIME_FOLDERS.
NOT_RUNTIME_TOP = ("cli.py",)
RUNTIME_FOLDERS = ("core", "providers", "shims")
#: What a runtime import must never bring in.
FORBIDDEN = ("durable_jobs.lint", "durable_jobs.testing", "durable_jobs.demo", "tools", "pytest")
#: Top-level folders of the repository that must not reach the wheel.
REPO_ONLY = ("tools", "tests", "docs", "artifacts", "benchmarks", "constraints", "example_dags")


def runtime_modules() -> list[str]:
    found = ["durable_jobs"] + [
        f"durable_jobs.{file.stem}" for file in sorted(PACKAGE.glob("*.py"))
        if file.name != "__init__.py" and file.name not in NOT_RUNTIME_TOP
    ]
    for folder in RUNTIME_FOLDERS:  # subpackages too (durable_jobs.providers.amazon.aws.operators.batch)
        for file in sorted((PACKAGE / folder).rglob("*.py")):
            parts = file.relative_to(PACKAGE).with_suffix("").parts
            found.append(".".join(("durable_jobs", *parts)).removesuffix(".__init__"))
    return found


def test_runtime_module_list_is_taken_from_the_filesystem():
    modules = runtime_modules()
    for expected in ("durable_jobs.vendors", "durable_jobs.core.arguments", "durable_jobs.core.cancel",
                     "durable_jobs.core.exceptions", "durable_jobs.core.mixin", "durable_jobs.core.trigger"):
        assert expected in modules
    assert len(modules) == len(set(modules))


PROBE = (
    "import importlib, json, sys; importlib.import_module({module!r}); "
    "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('tools', 'pytest') "
    "or m.startswith(('durable_jobs.lint', 'durable_jobs.testing', 'durable_jobs.demo')))))"
)


def _import_alone(module: str) -> tuple[str, int, str, str]:
    # cwd is the repository root, so an import of the repository's tools/ would *succeed* (and be seen)
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True, cwd=ROOT, timeout=180,
    )
    return module, proc.returncode, proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "", proc.stderr


def test_runtime_modules_import_no_lint_emulators_demo_tools_or_pytest():
    with ThreadPoolExecutor(max_workers=2) as pool:  # one fresh interpreter per module
        results = list(pool.map(_import_alone, runtime_modules()))
    problems = []
    for module, code, out, err in results:
        if code != 0:
            problems.append(f"{module}: import failed:\n{err[-2000:]}")
        elif out != "[]":
            problems.append(f"{module} imports {out}")
    assert not problems, "runtime modules must not import " + ", ".join(FORBIDDEN) + ":\n" + "\n".join(problems)


def _module_file(module: str) -> Path:
    rel = ROOT.joinpath(*module.split("."))
    return rel / "__init__.py" if rel.is_dir() else rel.with_suffix(".py")


def test_runtime_modules_have_no_lazy_import_of_them_either():
    """The fresh-interpreter check sees module-level imports; this one also sees imports inside functions."""
    problems = []
    for module in runtime_modules():
        path = _module_file(module)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
            )
            problems += [f"{path.relative_to(ROOT)}:{node.lineno} imports {name}" for name in names
                         if name.split(".")[0] in ("tools", "pytest") or name.startswith(FORBIDDEN[:3])]
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------- pyproject
def _package_folders() -> set[str]:
    """Every folder under durable_jobs/ that holds Python files, as a dotted package name."""
    folders = {p.parent for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    return {".".join(f.relative_to(ROOT).parts) for f in folders}


def test_setuptools_packages_list_every_package_folder():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    expected = _package_folders() | {"durable_jobs.example_dags"}
    missing, extra = sorted(expected - listed), sorted(listed - expected)
    assert not missing, f"pyproject.toml [tool.setuptools] packages is missing {missing}: they would not ship"
    assert not extra, f"pyproject.toml [tool.setuptools] packages lists {extra}, which is no folder of durable_jobs/"
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"durable_jobs.example_dags": "example_dags"}
    assert (ROOT / "example_dags" / "__init__.py").exists()


def _requirements() -> list[Requirement]:
    extras = PYPROJECT["project"]["optional-dependencies"]
    return [Requirement(spec) for specs in extras.values() for spec in specs]


def test_moto_extras_we_ask_for_exist_in_the_installed_moto():
    provided = set(importlib.metadata.metadata("moto").get_all("Provides-Extra") or ())
    asked = {extra for req in _requirements() if req.name == "moto" for extra in req.extras}
    assert asked, "no moto requirement with extras in pyproject.toml; update this test"
    assert asked <= provided, f"moto {importlib.metadata.version('moto')} has no extra(s) {sorted(asked - provided)}"


# ---------------------------------------------------------------------------- the wheel
_COPY_IGNORE = shutil.ignore_patterns(
    ".git", ".venv", ".venv-*", "build", "dist", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache",
    ".pytest_cache", ".airflow-test",
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> tuple[Path, str]:
    """Build once, from a copy of the working tree (the build writes build/ and *.egg-info into it)."""
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    shutil.copytree(ROOT, src, ignore=_COPY_IGNORE, symlinks=True)
    pip = Path(sys.executable).with_name("pip")
    proc = subprocess.run(
        [str(pip), "wheel", "--no-deps", "--no-cache-dir", "-v", str(src), "-w", str(work / "out")],
        capture_output=True, text=True, timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"pip wheel failed:\n{log[-6000:]}"
    [built] = (work / "out").glob("airflow_durable_jobs-*.whl")
    return built, log


def _names(whl: Path) -> list[str]:
    with zipfile.ZipFile(whl) as zf:
        return zf.namelist()


def test_build_has_no_license_deprecation_warning(wheel):
    _, log = wheel
    assert "running bdist_wheel" in log or "Building wheel" in log, "the build backend's output is not in the log"
    bad = [line for line in log.splitlines()
           if "project.license" in line or "License classifiers are deprecated" in line]
    assert not bad, "setuptools warns about the license metadata:\n" + "\n".join(bad)


def test_wheel_holds_the_package_markers_and_example_dags(wheel):
    names = set(_names(wheel[0]))
    assert "durable_jobs/py.typed" in names
    package_dirs = {str(PurePosixPath(n).parent) for n in names if n.startswith("durable_jobs/") and n.endswith(".py")}
    no_init = sorted(d for d in package_dirs if f"{d}/__init__.py" not in names)
    assert not no_init, f"packages in the wheel without __init__.py: {no_init}"
    examples = {f"durable_jobs/example_dags/{p.name}" for p in (ROOT / "example_dags").glob("*.py")}
    assert examples and examples <= names, f"example DAGs missing from the wheel: {sorted(examples - names)}"
    # every runtime/user module of the checkout is in the wheel
    ours = {p.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    assert ours <= names, f"modules missing from the wheel: {sorted(ours - names)}"


def test_wheel_holds_nothing_of_the_repository(wheel):
    tops = {n.split("/")[0] for n in _names(wheel[0])}
    leaked = sorted(tops & set(REPO_ONLY))
    assert not leaked, f"repository folders in the wheel: {leaked}"
    assert tops <= {"durable_jobs"} | {t for t in tops if t.endswith(".dist-info")}, tops


#: Folders that exist only in a checkout; a string literal naming a path under one is a checkout path.
REPO_PATH = re.compile(r"(?<![\w.-])(?:\.\./|(?:artifacts|tests|tools|benchmarks|constraints)/)")


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _is_file_path(node: ast.AST) -> bool:
    """``__file__`` or ``Path(__file__)`` / ``Path(__file__).resolve()``."""
    if isinstance(node, ast.Name):
        return node.id == "__file__"
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("resolve", "absolute"):
            return _is_file_path(node.func.value)
        return bool(node.args) and _is_file_path(node.args[0])
    return False


def _climb(node: ast.AST) -> int | None:
    """How many folders above the file's own folder an expression climbs from ``__file__`` (None: not that)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
        if _is_file_path(node.value.value) and isinstance(node.slice, ast.Constant):
            return int(node.slice.value)
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        below = 0 if _is_file_path(node.value) else _climb(node.value)
        return None if below is None else below + (0 if _is_file_path(node.value) else 1)
    return None


def checkout_references(name: str, source: str) -> list[str]:
    """What in one shipped module would only work in a checkout.

    * a path computed from ``__file__`` that climbs above ``durable_jobs/`` (``parents[N]`` or
      ``.parent`` chains; in an install that is site-packages);
    * a string literal (docstrings aside) naming a path in a repository-only folder
      (``artifacts/``, ``tests/``, ``tools/``, ``benchmarks/``, ``constraints/``) or ``../``;
    * an import of the repository's ``tools`` package.
    """
    tree = ast.parse(source)
    depth = len(PurePosixPath(name).parts) - 1  # folders between site-packages and the file
    docstrings = _docstring_nodes(tree)
    found = []
    for node in ast.walk(tree):
        climb = _climb(node) if isinstance(node, (ast.Subscript, ast.Attribute)) else None
        if climb is not None and climb >= depth:
            found.append(f"{name}:{node.lineno}: climbs {climb + 1} folder(s) up from __file__: {ast.unparse(node)}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and REPO_PATH.search(node.value):
            found.append(f"{name}:{node.lineno}: names a checkout path: {node.value[:80]!r}")
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tools" for a in node.names):
            found.append(f"{name}:{node.lineno}: imports tools")
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "tools":
            found.append(f"{name}:{node.lineno}: imports tools")
    return list(dict.fromkeys(found))


def test_checkout_reference_check_can_fail():
    source = (
        "from pathlib import Path\nimport tools.crash_matrix\n"
        "ROOT = Path(__file__).resolve().parents[2]\nUP = Path(__file__).parent.parent.parent\n"
        "OK = Path(__file__).resolve().parent / 'dags'\nM = 'artifacts/crash-matrix.json'\n"
        "def f():\n    'a docstring may mention artifacts/ and tests/'\n    return 'docs/aws.md'\n"
    )
    found = checkout_references("durable_jobs/demo/x.py", source)
    assert len(found) == 4, found
    assert checkout_references("durable_jobs/x.py", "from pathlib import Path\nP = Path(__file__).parent\n") == []


def test_wheel_code_refers_to_no_checkout_paths(wheel):
    problems = []
    with zipfile.ZipFile(wheel[0]) as zf:
        for name in zf.namelist():
            if name.endswith(".py"):
                problems += checkout_references(name, zf.read(name).decode("utf-8"))
    assert not problems, "shipped code that only works in a repository checkout:\n" + "\n".join(problems)


def test_metadata_license_and_extras(wheel):
    with zipfile.ZipFile(wheel[0]) as zf:
        [meta_name] = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        meta = email.message_from_bytes(zf.read(meta_name))
    assert meta["License-Expression"] == "Apache-2.0"
    assert not meta.get_all("License"), "a License: field next to License-Expression"
    assert not [c for c in meta.get_all("Classifier") or () if c.startswith("License ::")]
    extras = set(meta.get_all("Provides-Extra") or ())
    families = {f.extra for f in vendors.families(supported=True)}
    families |= {s.extra for _, s in vendors.services() if s.extra}  # google-dataflow: the Beam provider
    assert families, "the registry lists no supported family"
    assert extras == families | {"testing", "docs", "test"}, (
        f"extras {sorted(extras)}; expected one per supported vendor family {sorted(families)} "
        "plus testing, docs, test"
    )
