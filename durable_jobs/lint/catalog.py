"""The rule catalogue: ids, severities and the texts every output format shares.

Ids read ``DJ<group><variant>``: the first two digits are the anti-pattern's number in the
lint's issue (01-11), the last digit the variant, so DJ051 and DJ052 are both about the
submit-and-poll split but have different severities. DJ000 is the tool's own parse error.
"""

from __future__ import annotations

from durable_jobs.lint.model import Rule, Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

REST_CLEAR_ALL = (
    "DELETE /api/v2/dags/{dag_id}/dagRuns/{dag_run_id}/taskInstances/{task_id}/state-store"
    "?all_map_indices=true"
)

_RULES = [
    Rule("DJ000", "parse-error", E, 0, "File could not be parsed",
         "The file is not valid Python for this interpreter, so nothing in it was checked.",
         "fix the syntax error", needs_33=False),
    Rule("DJ011", "variable-task-state", W, 1,
         "Variable used as per-run or per-retry state inside a task",
         "Variables are global: every DAG run, every map index and every other DAG reads and "
         "overwrites the same value; nothing scopes it to a task instance or a retry.",
         "task_state_store"),
    Rule("DJ021", "xcom-job-id-across-retries", W, 2,
         "XCom used to carry a job id across retries",
         "XCom is scoped to the DAG run, not the retry: Airflow clears a task's XComs before "
         "each try and every retry gets a new ti_id, so the pull finds nothing and the job is "
         "submitted again. A warning, not an error: reading back a value pushed earlier in the "
         "same try works, and the lint cannot always tell the two apart.",
         "task_state_store or ResumableJobMixin"),
    Rule("DJ031", "hand-written-resume", W, 3,
         "Hand-written reconnect-or-submit logic on a Variable",
         "Re-implements what ResumableJobMixin already provides, without its crash-safety "
         "guarantees: the Variable is shared by every run (a concurrent run reconnects to "
         "another run's job) and any task can overwrite it. A warning: whether the branch really "
         "resumes a job is read from names (a job-id-like key, a submit/start/wait call in the "
         "branch), not proven.",
         "ResumableJobMixin"),
    Rule("DJ041", "variable-watermark", W, 4,
         "Watermark or last-processed timestamp kept in a Variable",
         "Variables are global: any DAG or task can overwrite the watermark, and it has no "
         "asset scope.",
         "asset_state_store"),
    Rule("DJ051", "submit-poll-split", INFO, 5,
         "Submit task followed by a separate sensor/poll task on the same job",
         "The submit task succeeding only means the job was *accepted*, not that it succeeded; "
         "only the sensor's outcome reflects the job. Whether to merge the two tasks is a "
         "trade-off, not a fixed answer: worker-slot cost against single-task correctness and "
         "the operator's built-in crash safety.",
         "Triggerer available: one deferrable task with wait_for_termination=True; no "
         "Triggerer and a short/medium job: one durable synchronous task; genuinely long job: "
         "keep the split with a mode=\"reschedule\" sensor",
         problem_pre33="The submit task succeeding only means the job was *accepted*, not that "
         "it succeeded; only the sensor's outcome reflects the job. Whether to merge the two "
         "tasks is a trade-off, not a fixed answer: worker-slot cost against single-task "
         "correctness.",
         primitive_pre33="Triggerer available: one deferrable task with "
         "wait_for_termination=True; no Triggerer and a short/medium job: one synchronous task; "
         "genuinely long job: keep the split with a mode=\"reschedule\" sensor",
         needs_33=False),
    Rule("DJ052", "depends-on-submit", W, 5,
         "Downstream task, alert or SLA depends on the submit task instead of the sensor",
         "It fires when the job is accepted, not when it finishes: a job that fails later still "
         "lets this run (or alerts success). Usually a real bug - fix the dependency, not the "
         "architecture. A warning, because some downstream tasks are meant to run on acceptance "
         "(recording the job id, notifying that it started); tasks that feed the sensor and "
         "tasks with a non-default trigger_rule are not reported.",
         "make it depend on the sensor/poll task", needs_33=False),
    Rule("DJ061", "deferrable-without-wait", W, 6,
         "deferrable=True together with wait_for_termination=False",
         "The operator only defers when it also waits for termination: this task neither "
         "defers nor polls and succeeds on acceptance - the fire-and-forget gap again. A "
         "warning: deferrable=True certainly does nothing here, but returning on acceptance may "
         "be intended (a sensor waits instead, or deferrable comes from default_args).",
         "deferrable=True, wait_for_termination=True", needs_33=False),
    Rule("DJ071", "mixin-execute-bypass", E, 7,
         "ResumableJobMixin operator whose execute() does not call self.execute_resumable(context)",
         "The checkpoint and reconnect logic lives in execute_resumable(); custom execute() "
         "logic bypasses it, so every retry submits a new job.",
         "def execute(self, context): return self.execute_resumable(context)"),
    Rule("DJ072", "mixin-default-key", W, 7,
         "ResumableJobMixin operator without its own external_id_key",
         "The job id is checkpointed under the inherited default key 'remote_job_id'. Choose a "
         "descriptive key now: renaming it after deployment breaks in-flight retries.",
         'external_id_key = "<job>_id" (set once, never rename)'),
    Rule("DJ073", "mixin-key-renamed", E, 7,
         "external_id_key differs from the previous version of the file (--baseline)",
         "Running task instances stored their job id under the old key; after the rename the "
         "mixin treats every in-flight retry as a fresh submit and duplicates the job.",
         "keep the deployed external_id_key"),
    Rule("DJ074", "mixin-base-order", E, 7,
         "ResumableJobMixin listed after BaseOperator (or another operator) in the bases",
         "On Airflow 3.3.2 `class X(BaseOperator, ResumableJobMixin)` raises TypeError "
         "(object.__init__() takes exactly one argument) when the operator is created.",
         "class X(ResumableJobMixin, BaseOperator) - the mixin first"),
    Rule("DJ081", "store-none-value", E, 8, "None written to a state store",
         "State stores reject None (ValueError: Cannot set value as None).",
         "delete(key) to remove a key; a non-None sentinel otherwise"),
    Rule("DJ082", "store-non-json-value", E, 8, "Non-JSON value written to a state store",
         "Values must be JSON-serialisable (str, int, float, bool, list, dict); datetime, "
         "set, bytes, Decimal, UUID and custom objects are not.",
         "convert first: .isoformat(), list(...), str(...)"),
    Rule("DJ083", "store-key-chars", W, 8, "State store key with a dot or slash",
         "The safety checklist asks for short, descriptive keys without dots or slashes: the "
         "store is flat (its scope comes from the task instance or asset, not the key), and "
         "path-like keys are easy to mismatch between writer and reader.",
         "a short snake_case key"),
    Rule("DJ084", "store-naive-utcnow", W, 8, "datetime.utcnow() timestamp in a state store",
         "utcnow() returns a naive datetime (no timezone) and is deprecated; stored "
         "watermarks then compare wrongly with timezone-aware ones.",
         "datetime.now(tz=timezone.utc).isoformat()"),
    Rule("DJ085", "asset-store-with-context", W, 8,
         "asset_state_store combined with **context in the task signature",
         "asset_state_store is injected as a named keyword argument; declare it as "
         "`asset_state_store=None` and do not combine it with **context - Airflow injects "
         "it separately.",
         "def my_task(asset_state_store=None)"),
    Rule("DJ086", "mapped-store-clear", W, 8, "task_state_store.clear() inside a mapped task",
         "clear() only clears the current map index; every other index keeps its state.",
         "clear every index from a downstream task through the REST API: " + REST_CLEAR_ALL),
    Rule("DJ087", "mapped-shared-asset-key", W, 8,
         "Mapped task writes the same asset_state_store key from every index",
         "asset_state_store is scoped to the asset, not the map index: the indices race and "
         "the last write wins.",
         'a distinct key per index (f"offset_{partition_id}") or a single writing index'),
    Rule("DJ091", "durable-no-retries", W, 9, "Durable operator with retries=0",
         "Crash recovery reconnects on a retry; with retries=0 there is no retry, so nothing "
         "ever reconnects.",
         "retries >= 1 (or a plain operator)"),
    Rule("DJ092", "durable-disabled", INFO, 9, "durable=False outside tests",
         "durable=False skips task_state_store entirely, so a crash after submit resubmits on "
         "the retry. Fine in tests or when the vendor deduplicates itself - check that this "
         "is intended.",
         "durable=True (the default)",
         problem_pre33="durable=False is set explicitly. Below Airflow 3.3 the flag has no "
         "effect (the shim always submits fresh); the stores it controls need Airflow 3.3+.",
         primitive_pre33="revisit the flag after upgrading to Airflow 3.3+",
         needs_33=False),
    Rule("DJ101", "hand-written-submit", W, 10,
         "Hand-written task submits an external job with retries and no checkpoint",
         "A crash or failure after the submit call makes the retry submit the job again: a "
         "duplicate run, double cost, double writes.",
         "a durable operator (durable_jobs.providers.*) or a ResumableJobMixin operator"),
    Rule("DJ102", "submit-job-may-return-none", W, 10,
         "ResumableJobMixin.submit_job() can return None",
         "A None id is not checkpointed: crash safety silently switches off and every retry "
         "resubmits.",
         "return the job id (raise if the system gave none); a plain operator if there is no "
         "trackable id"),
    Rule("DJ111", "store-inter-task-channel", W, 11,
         "task_state_store used to pass data between tasks",
         "task_state_store is scoped to one task instance (dag_id + run_id + task_id + "
         "map_index); another task reading the key always gets the default.",
         "XCom (return the value, pass it as an argument)"),
    Rule("DJ112", "store-large-payload", W, 11, "Large payload written to a state store",
         "State stores hold small coordination values (64 KB max_value_storage_bytes by "
         "default); dataframes, model weights and big literals do not belong there.",
         "XCom with an object-storage backend"),
    Rule("DJ113", "store-shared-config", W, 11, "Configuration or secret kept in a state store",
         "Shared configuration and secrets belong in Variables or Connections (secrets "
         "backends, masking), not in task or asset state.",
         "Variables / Connections"),
]

RULES: dict[str, Rule] = {rule.id: rule for rule in _RULES}
