"""``durable-jobs doctor``: what this Airflow deployment gives durable-jobs, probed, not assumed.

It imports the AIP-103 features instead of mapping version numbers (a backport or a patched build
answers for itself), reads the ``[state_store]`` / ``[workers]`` settings through Airflow's own
config (airflow.cfg, ``AIRFLOW__*`` variables, ``_cmd``/``_secret``), asks the API's health
endpoint whether a triggerer is alive, and from that says which submit-and-poll shape to prefer.
The same fields are printed on every Airflow version; ``--format json`` is for scripts (schema:
``REPORT_SCHEMA``). Exit status: 0, or 1 with ``--strict`` when there is a warning.

Usage: ``durable-jobs doctor [--format text|json] [--api-url URL] [--timeout S] [--strict]``
(or ``python -m durable_jobs.doctor``).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import platform
import sys
import urllib.error
import urllib.request
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from durable_jobs import AIP_103_URL, __version__, vendors
from durable_jobs.cli import command_parser
from durable_jobs.doctor_deployment import SCHEMA as DEPLOYMENT_SCHEMA
from durable_jobs.doctor_deployment import collect_deployment
from durable_jobs.doctor_deployment import render_lines as render_deployment
from durable_jobs.doctor_deployment import warnings_of as deployment_warnings

SCHEMA_ID = "durable-jobs-doctor/1"
#: The provider durable-jobs itself needs, then each supported family's (the registry's ``Family.provider``).
PROVIDERS = ("apache-airflow-providers-common-compat",
             *(family.provider for family in vendors.families(supported=True)))
NEEDS_33 = f"needs Airflow 3.3+ (AIP-103, {AIP_103_URL})"
DEFAULT_BACKEND = "airflow.state.metastore.MetastoreBackend"
#: (section, key, Airflow 3.3.2's default, what it does for durable-jobs)
SETTINGS: tuple[tuple[str, str, str, str], ...] = (
    ("state_store", "backend", DEFAULT_BACKEND,
     "class that stores task_state_store/asset_state_store values; the default keeps them in the "
     "metadata DB, so a checkpoint survives worker crashes and restarts"),
    ("state_store", "default_retention_days", "30",
     "days a task_state_store key lives after its last write (0 = no time-based cleanup); "
     "durable-jobs writes its checkpoints with NEVER_EXPIRE, so multi-day jobs keep theirs"),
    ("state_store", "state_cleanup_batch_size", "0",
     "rows deleted per batch by cleanup (0 = one unbounded delete); performance only"),
    ("state_store", "clear_on_success", "False",
     "delete all task_state_store keys of a task instance when it succeeds"),
    ("state_store", "max_value_storage_bytes", "65535",
     "largest value the REST API accepts (0 = no limit; workers only log a warning); "
     "a durable-jobs checkpoint stays under 1 KB"),
    ("workers", "state_store_backend", "",
     "worker-side class that stores values itself (the API keeps a reference); empty = values "
     "go through the Execution API to [state_store] backend"),
)


# ----------------------------------------------------------------------------- probes
def _dist_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _import_string(path: str) -> Any:
    module_name, _, attr = path.rpartition(".")
    if not module_name:
        raise ImportError(f"{path!r} is not a dotted path")
    return getattr(importlib.import_module(module_name), attr)


def probe_features() -> dict[str, dict[str, Any]]:
    from durable_jobs import shims

    sdk_mixin = shims.has_sdk_resumable_job_mixin()
    context = "airflow.sdk.execution_time.context"
    probes = {
        "task_state_store": (shims.has_state_store(), f"{context}.TaskStateStoreAccessor",
                             "context['task_state_store']: where durable-jobs keeps its checkpoint"),
        "asset_state_store": (shims.has_asset_state_store(), f"{context}.AssetStateStoreAccessors",
                              "per-asset state across runs (watermarks)"),
        "resumable_job_mixin": (sdk_mixin, "airflow.sdk.ResumableJobMixin",
                                "the SDK's mixin" if sdk_mixin else
                                "durable-jobs' stand-in is used: every try submits a fresh job"),
        "trigger_on_kill": (shims.has_trigger_on_kill(), "airflow.triggers.base.BaseTrigger.on_kill",
                            "a user's kill of a deferred task cancels the external job"
                            if shims.has_trigger_on_kill() else
                            "a user's kill of a deferred task cannot cancel the external job"),
    }
    return {
        name: {"available": ok, "probe": probe, "note": note if ok else f"{note}; {NEEDS_33}"}
        for name, (ok, probe, note) in probes.items()
    }


def _conf():
    try:
        from airflow.configuration import conf
    except Exception:  # pragma: no cover - apache-airflow is a dependency
        return None
    return conf


def _setting(conf, section: str, key: str, default: str, explanation: str, applies: bool) -> dict[str, Any]:
    env = f"AIRFLOW__{section.upper()}__{key.upper()}"
    value = None
    error = None
    if conf is not None:
        try:
            value = conf.get(section, key, fallback=None)
        except Exception as err:  # a broken _cmd/_secret, say
            error = str(err)
    if value is None and applies and error is None:
        value = default
    if env in os.environ or f"{env}_CMD" in os.environ or f"{env}_SECRET" in os.environ:
        source = "env"
    elif value is None:
        source = "unset"
    elif applies and str(value) == default:
        source = "default"
    else:
        source = "config"
    entry = {
        "section": section, "key": key, "value": value, "default": default, "source": source,
        "applies": applies,
        "explanation": explanation if applies else f"{explanation}. No effect here: {NEEDS_33}",
        "warning": _setting_warning(key, section, value) if applies else None,
    }
    if error is not None:
        entry["warning"] = f"[{section}] {key} cannot be read ({error})"
    return entry


def _setting_warning(key: str, section: str, value: Any) -> str | None:
    name = f"[{section}] {key}"
    text = "" if value is None else str(value).strip()
    if key in ("backend", "state_store_backend") and text:
        try:
            cls = _import_string(text)
        except Exception as err:
            return (f"{name} = {text} does not import ({type(err).__name__}: {err}): every task_state_store "
                    "access fails, so every durable task fails its try (a read error is never taken "
                    "for 'no checkpoint')")
        if key == "backend":
            with contextlib.suppress(ImportError):
                from airflow.state import BaseStoreBackend

                if not (isinstance(cls, type) and issubclass(cls, BaseStoreBackend)):
                    return f"{name} = {text} is not a BaseStoreBackend subclass: Airflow refuses to use it"
        return None
    if key in ("default_retention_days", "state_cleanup_batch_size", "max_value_storage_bytes"):
        try:
            number = int(text)
        except ValueError:
            return f"{name} = {text!r} is not an integer"
        if key == "max_value_storage_bytes" and 0 < number < 1024:
            return (f"{name} = {number} is below the ~1 KB checkpoint record: the REST API rejects it "
                    "and every worker write logs a warning")
        return None
    if key == "clear_on_success" and text.lower() in ("true", "1", "t", "yes", "on"):
        return (f"{name} = True deletes every checkpoint when its task succeeds: a user who then clears "
                "the task and expects a reconnect (fresh_on_clear=False, or the official operators, "
                "which reconnect on clear) gets a new job, and the job id is gone after success")
    return None


def default_health_url(conf=None) -> str:
    """The API's health endpoint: ``/api/v2/monitor/health`` with the FastAPI server, else ``/health``."""
    conf = conf if conf is not None else _conf()

    def get(section: str, key: str) -> str:
        try:
            return (conf.get(section, key, fallback="") or "") if conf is not None else ""
        except Exception:
            return ""

    if importlib.util.find_spec("airflow.api_fastapi") is not None:
        base = get("api", "base_url") or f"http://localhost:{get('api', 'port') or '8080'}"
        return base.rstrip("/") + "/api/v2/monitor/health"
    base = get("webserver", "base_url") or f"http://localhost:{get('webserver', 'web_server_port') or '8080'}"
    return base.rstrip("/") + "/health"


def probe_triggerer(url: str, timeout: float) -> dict[str, Any]:
    """Ask the health endpoint; never raises. ``alive`` is None when the answer is unknown."""
    result: dict[str, Any] = {"api_url": url, "reachable": False, "http_status": None, "status": None,
                              "latest_heartbeat": None, "alive": None, "error": None}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": "application/json"}),
                                    timeout=timeout) as reply:
            result["http_status"] = reply.status
            body = json.loads(reply.read(1_000_000) or b"null")
    except urllib.error.HTTPError as err:
        result.update(reachable=True, http_status=err.code, error=f"HTTP {err.code} {err.reason}")
        return result
    except Exception as err:  # refused, timeout, DNS, bad JSON
        result["error"] = f"{type(err).__name__}: {getattr(err, 'reason', None) or err}"
        return result
    result["reachable"] = True
    triggerer = body.get("triggerer") if isinstance(body, dict) else None
    if not isinstance(triggerer, dict):
        result["error"] = "the health reply has no 'triggerer' section"
        return result
    result["status"] = triggerer.get("status")
    result["latest_heartbeat"] = triggerer.get("latest_triggerer_heartbeat")
    result["alive"] = triggerer.get("status") == "healthy"
    return result


def recommend(alive: bool | None, crash_safe: bool, trigger_on_kill: bool) -> dict[str, Any]:
    """The seed's section 6, decided by the triggerer's health."""
    one_task = ("one task with deferrable=True and wait_for_termination=True (deferrable=True alone "
                "returns once the job is accepted)")
    durable = ", and durable=True (the default) checkpoints the job id end to end" if crash_safe else ""
    sync = ("one task, wait_for_termination=True (the default): the worker slot is held for the job's "
            f"run time{durable}")
    keep = ", keep durable=True" if crash_safe else ""
    split = ("for jobs so long that holding a slot costs too much, keep submit "
             f"(wait_for_termination=False{keep}) plus a sensor in mode='reschedule', and hang downstream "
             "tasks and alerts on the sensor: a successful submit only means the job was accepted")
    if alive is True:
        mode = "deferrable"
        lines = [f"A triggerer is alive: prefer {one_task}."]
        lines.append(
            "durable-jobs checkpoints before deferring, so this path is crash-safe too." if crash_safe
            else "Nothing is checkpointed on this Airflow: a retry after a crash submits again."
        )
    elif alive is False:
        mode = "sync"
        lines = [f"No live triggerer: a deferred task would wait with nothing polling it. Prefer {sync}.",
                 f"Or, {split}."]
    else:
        mode = "undetermined"
        lines = ["Could not tell whether a triggerer runs (see above; pass --api-url).",
                 f"With one, prefer {one_task}. Without one, prefer {sync}; {split}."]
    if not trigger_on_kill:
        lines.append("Triggers have no on_kill here: a user's kill of a deferred task leaves the external "
                     f"job running; cancel it in the vendor's console. Trigger on_kill {NEEDS_33}.")
    return {"mode": mode, "lines": lines}


# ----------------------------------------------------------------------------- report
def collect(api_url: str | None = None, timeout: float = 2.0) -> dict[str, Any]:
    from durable_jobs.shims import airflow_version

    conf = _conf()
    features = probe_features()
    crash_safe = features["task_state_store"]["available"] and features["resumable_job_mixin"]["available"]
    settings = [_setting(conf, s, k, d, e, applies=features["task_state_store"]["available"])
                for s, k, d, e in SETTINGS]
    triggerer = probe_triggerer(api_url or default_health_url(conf), timeout)
    backend = next((s["value"] for s in settings if s["key"] == "backend"), None)
    deployment = collect_deployment(conf, timeout, backend, DEFAULT_BACKEND)
    warnings = [s["warning"] for s in settings if s["warning"]] + deployment_warnings(deployment)
    return {
        "schema": SCHEMA_ID,
        "durable_jobs": __version__,
        "python": platform.python_version(),
        "airflow": airflow_version(),
        "providers": {name: _dist_version(name) for name in PROVIDERS},
        "features": features,
        "crash_safety": {
            "available": crash_safe,
            "summary": ("durable=True (the default) checkpoints every submit: retries and crashes reconnect"
                        if crash_safe else
                        f"durable= has no effect: every try submits a fresh job; crash safety {NEEDS_33}"),
        },
        "settings": settings,
        "triggerer": triggerer,
        "deployment": deployment,
        "recommendation": recommend(triggerer["alive"], crash_safe, features["trigger_on_kill"]["available"]),
        "warnings": warnings,
        "links": {"aip_103": AIP_103_URL},
    }


def render_text(report: dict[str, Any]) -> str:
    link = f"needs Airflow 3.3+ (AIP-103, see {report['links']['aip_103']})"
    out = [f"durable-jobs doctor {report['durable_jobs']} (Python {report['python']})",
           f"Airflow     {report['airflow']}"]
    out += [f"  {name.removeprefix('apache-airflow-providers-'):<14}{ver or 'not installed'}"
            for name, ver in report["providers"].items()]
    out.append("Features (probed)")
    for name, feat in report["features"].items():
        out.append(f"  {name:<20}{'yes' if feat['available'] else 'no ':<5}{_short(feat['note'])}")
    out.append(f"Crash safety: {report['crash_safety']['summary'].replace(NEEDS_33, link)}")
    out.append("Settings")
    for s in report["settings"]:
        shown = "(not set)" if s["value"] is None else f"{s['value'] or chr(34) * 2}  ({s['source']})"
        out.append(f"  [{s['section']}] {s['key']} = {shown}")
        out.append(f"      {_short(s['explanation'])}")
        if s["warning"]:
            out.append(f"      ! {s['warning']}")
    t = report["triggerer"]
    if t["alive"] is not None:
        alive = "alive" if t["alive"] else "not alive"
        state = f"{alive} (status {t['status']}, last heartbeat {t['latest_heartbeat']})"
    else:
        state = f"unknown: {t['error']}"
    out += render_deployment(report["deployment"])
    out += [f"Triggerer   {state}", f"  asked {t['api_url']}",
            f"Recommendation ({report['recommendation']['mode']})"]
    out += [f"  - {_short(line)}" for line in report["recommendation"]["lines"]]
    out.append("Warnings" if report["warnings"] else "Warnings    none")
    out += [f"  ! {w}" for w in report["warnings"]]
    return "\n".join(out)


def _short(text: str) -> str:
    """The AIP-103 link once per report in text form (the crash-safety line), not on every line."""
    return text.replace(NEEDS_33, "needs Airflow 3.3+ (AIP-103)")


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("durable-jobs doctor", __doc__)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--api-url", help="health endpoint (default: from [api] base_url, "
                        "e.g. http://localhost:8080/api/v2/monitor/health)")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for the API (default 2)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when there is a warning")
    args = parser.parse_args(argv)
    with contextlib.redirect_stdout(sys.stderr):  # Airflow's import-time chatter must not corrupt JSON
        report = collect(args.api_url, args.timeout)
    print(json.dumps(report, indent=2) if args.format == "json" else render_text(report))
    return 1 if args.strict and report["warnings"] else 0


def _obj(required: list[str], properties: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "additionalProperties": False,
            "properties": properties, **extra}


_STR = {"type": "string"}
_NULLABLE_STR = {"type": ["string", "null"]}
_BOOL = {"type": "boolean"}
_FEATURE = _obj(["available", "probe", "note"], {"available": _BOOL, "probe": _STR, "note": _STR})
_FEATURES = ("task_state_store", "asset_state_store", "resumable_job_mixin", "trigger_on_kill")
_SETTING = _obj(
    ["section", "key", "value", "default", "source", "applies", "explanation", "warning"],
    {"section": _STR, "key": _STR, "value": _NULLABLE_STR, "default": _STR,
     "source": {"enum": ["env", "config", "default", "unset"]}, "applies": _BOOL, "explanation": _STR,
     "warning": _NULLABLE_STR},
)
_TRIGGERER = _obj(
    ["api_url", "reachable", "http_status", "status", "latest_heartbeat", "alive", "error"],
    {"api_url": _STR, "reachable": _BOOL, "http_status": {"type": ["integer", "null"]},
     "status": _NULLABLE_STR, "latest_heartbeat": _NULLABLE_STR, "alive": {"type": ["boolean", "null"]},
     "error": _NULLABLE_STR},
)
#: JSON Schema of ``--format json`` (the same on every Airflow version).
REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_obj(
        ["schema", "durable_jobs", "python", "airflow", "providers", "features", "crash_safety", "settings",
         "triggerer", "deployment", "recommendation", "warnings", "links"],
        {
            "schema": {"const": SCHEMA_ID},
            "durable_jobs": _STR,
            "python": _STR,
            "airflow": _STR,
            "providers": {"type": "object", "required": list(PROVIDERS),
                          "additionalProperties": _NULLABLE_STR},
            "features": _obj(list(_FEATURES), {name: _FEATURE for name in _FEATURES}),
            "crash_safety": _obj(["available", "summary"], {"available": _BOOL, "summary": _STR}),
            "settings": {"type": "array", "items": _SETTING,
                         "minItems": len(SETTINGS), "maxItems": len(SETTINGS)},
            "triggerer": _TRIGGERER,
            "deployment": DEPLOYMENT_SCHEMA,
            "recommendation": _obj(
                ["mode", "lines"],
                {"mode": {"enum": ["deferrable", "sync", "undetermined"]},
                 "lines": {"type": "array", "items": _STR, "minItems": 1}},
            ),
            "warnings": {"type": "array", "items": _STR},
            "links": _obj(["aip_103"], {"aip_103": _STR}),
        },
    ),
}

if __name__ == "__main__":
    sys.exit(main())
