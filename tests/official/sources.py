"""Where the official tests come from: the providers' source distributions on PyPI, at our pins.

The registry (``durable_jobs.vendors``) names every operator we ship and the official class it
replaces; the constraints file pins each provider. From those two this module derives, with nothing
typed by hand:

* the sdists to fetch (``pip download --no-deps --no-binary :all: <provider>==<pin>``) into
  ``.official-tests/`` (gitignored), unpacked there;
* for each operator, the official test modules that test it: ``tests/unit/<package path>/test_<module>*.py``
  of its provider's sdist, those with a test class named ``Test<OfficialName>...``, and those classes.

    python -m tests.official.sources          # fetch (if not there yet) and list what would run
"""

from __future__ import annotations

import ast
import hashlib
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

from durable_jobs import vendors

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".official-tests"
CONSTRAINTS = ROOT / "constraints" / "constraints-3.3-py3.11.txt"
REQUIREMENTS = Path(__file__).resolve().parent / "requirements.txt"


@dataclass(frozen=True)
class Provider:
    """One official provider distribution, at the version our constraints pin."""

    distribution: str  # apache-airflow-providers-amazon
    version: str

    @property
    def sdist_stem(self) -> str:
        """The sdist's name and top folder (``apache_airflow_providers_amazon-9.39.0``)."""
        return f"{self.distribution.replace('-', '_')}-{self.version}"

    @property
    def root(self) -> Path:
        """The unpacked sdist."""
        return CACHE / self.sdist_stem

    @property
    def tests(self) -> Path:
        """Its ``tests`` folder: the pytest rootdir of its runs (node ids start with ``unit/``)."""
        return self.root / "tests"

    @property
    def key(self) -> str:
        return self.distribution.removeprefix("apache-airflow-providers-")


@dataclass(frozen=True)
class Target:
    """One of our operators and the official tests that test the class it replaces."""

    family: str
    label: str  # "Databricks `DatabricksSubmitRunOperator`"
    classpath: str  # ours
    official: str  # the official classpath
    provider: Provider

    @property
    def official_module(self) -> str:
        return self.official.rpartition(".")[0]

    @property
    def official_name(self) -> str:
        return self.official.rpartition(".")[2]

    @property
    def class_prefix(self) -> str:
        """Test classes named ``Test<OfficialName>`` or ``Test<OfficialName><More>`` test this operator."""
        return f"Test{self.official_name}"

    def test_dir(self) -> Path:
        """``airflow.providers.amazon.aws.operators.batch`` -> ``tests/unit/amazon/aws/operators``."""
        parts = self.official_module.split(".")
        if parts[:2] != ["airflow", "providers"]:
            raise ValueError(f"{self.official}: not an airflow.providers class")
        return self.provider.tests.joinpath("unit", *parts[2:-1])

    def test_modules(self) -> dict[Path, list[str]]:
        """Test module -> the names of its test classes for this operator (``test_<module>*.py`` only)."""
        module = self.official_module.rpartition(".")[2]
        found: dict[Path, list[str]] = {}
        for path in sorted(self.test_dir().glob(f"test_{module}*.py")):
            classes = [name for name in test_classes(path) if owner(name, [self]) is self]
            if classes:
                found[path] = classes
        return found


def test_classes(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [node.name for node in tree.body if isinstance(node, ast.ClassDef) and node.name.startswith("Test")]


def owner(class_name: str, targets: list[Target]) -> Target | None:
    """The target a test class belongs to: the longest ``Test<OfficialName>`` prefix it starts with."""
    best: Target | None = None
    for target in targets:
        if class_name.startswith(target.class_prefix) and (
            best is None or len(target.class_prefix) > len(best.class_prefix)
        ):
            best = target
    return best


def pinned(distribution: str, constraints: Path = CONSTRAINTS) -> str:
    """The version ``constraints`` pins ``distribution`` to."""
    wanted = distribution.lower().replace("_", "-")
    for line in constraints.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.strip().partition("==")
        if sep and name.lower().replace("_", "-") == wanted:
            return version.strip()
    raise SystemExit(f"{constraints}: no pin for {distribution}")


def targets() -> list[Target]:
    """Every operator of the registry, in registry order."""
    out = []
    for family, service, op in vendors.operators():
        provider = Provider(family.provider, pinned(family.provider))
        out.append(Target(family.key, f"{service.name} `{op.name}`", op.classpath, op.official, provider))
    return out


def providers(selected: list[Target] | None = None) -> list[Provider]:
    return list(dict.fromkeys(t.provider for t in (selected or targets())))


def fetch(provider: Provider, *, python: str = sys.executable, quiet: bool = True) -> Path:
    """Download the provider's sdist from PyPI (pip's cache at most) and unpack it; idempotent."""
    stamp = provider.root / ".unpacked"
    if stamp.exists():
        return provider.root
    downloads = CACHE / "sdists"
    downloads.mkdir(parents=True, exist_ok=True)
    archive = downloads / f"{provider.sdist_stem}.tar.gz"
    if not archive.exists():
        cmd = [python, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--disable-pip-version-check",
               "-d", str(downloads), f"{provider.distribution}=={provider.version}"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL if quiet else None)
    if not archive.exists():
        raise SystemExit(f"pip download left no {archive.name} in {downloads}")
    if provider.root.exists():
        shutil.rmtree(provider.root)
    with tarfile.open(archive) as tar:
        tar.extractall(CACHE, filter="data")
    if not (provider.tests / "unit").is_dir():
        raise SystemExit(f"{archive.name} has no tests/unit: the official tests are not in this sdist")
    stamp.touch()
    return provider.root


def requirements(path: Path = REQUIREMENTS) -> list[str]:
    return [line.split("#")[0].strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.split("#")[0].strip()]


def site() -> Path:
    """Where ``requirements.txt`` is installed (named by its content, so an edit installs afresh)."""
    digest = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()[:12]
    return CACHE / f"site-{digest}"


def install_requirements(*, python: str = sys.executable, quiet: bool = True) -> Path:
    """``pip install --no-deps --target`` the official tests' extra dependencies; idempotent."""
    target = site()
    if (target / ".installed").exists():
        return target
    wanted = requirements()
    for spec in wanted:
        name = spec.partition("==")[0]
        try:
            pinned(name)
        except SystemExit:
            continue
        raise SystemExit(f"{REQUIREMENTS}: {name} is pinned in {CONSTRAINTS.name}; it must come from the venv")
    if target.exists():
        shutil.rmtree(target)
    cmd = [python, "-m", "pip", "install", "--no-deps", "--disable-pip-version-check", "--target", str(target),
           *(["--quiet"] if quiet else []), *wanted]
    subprocess.run(cmd, check=True)
    (target / ".installed").touch()
    return target


def main() -> int:
    for provider in providers():
        fetch(provider, quiet=False)
    print(f"extra test dependencies in {install_requirements(quiet=False)}")
    for target in targets():
        print(f"{target.label} ({target.provider.distribution}=={target.provider.version})")
        for path, classes in target.test_modules().items():
            print(f"  {path.relative_to(target.provider.tests)}: {', '.join(classes)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
