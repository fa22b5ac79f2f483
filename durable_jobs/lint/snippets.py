'''Before/after snippets shown with each finding.

The "after" side follows the canonical examples of the state-store guide (sections 3-6), with
one deliberate change: the mixin comes first in the bases, because the guide's own order raises
TypeError on Airflow 3.3.2. ``AFTER_PRE33`` replaces snippets whose comments would promise that
``durable=True`` adds crash safety, which is not true below Airflow 3.3.
'''

from __future__ import annotations

import textwrap


def _s(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


_MIXIN_AFTER = _s('''
    class MySparkOperator(ResumableJobMixin, BaseOperator):  # mixin first
        external_id_key = "spark_job_id"
        def execute(self, context): return self.execute_resumable(context)
        def submit_job(self, context): return self.hook.submit(...)
        # ... implement the 5 other methods ...
''')

_SPLIT_BEFORE = _s('''
    submit = DatabricksSubmitRunOperator(task_id="submit", tasks=[...], wait_for_termination=False)
    wait = PythonSensor(task_id="wait", python_callable=run_finished,
                        op_kwargs={"run_id": submit.output}, mode="reschedule")
    submit >> wait
''')

_SPLIT_AFTER = _s('''
    # Triggerer deployed: one deferrable task, and say wait_for_termination=True explicitly
    run_job = DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        deferrable=True,
        wait_for_termination=True,   # required - deferrable=True alone does not imply this
    )
    # No Triggerer, short/medium job: one durable synchronous task (holds a worker slot)
    run_job = DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        wait_for_termination=True,   # synchronous - holds the worker for the run
        durable=True,                # default; ResumableJobMixin checkpoints the run id end-to-end
    )
    # Genuinely long job: keep the split (keep durable=True on the submit task),
    # a mode="reschedule" sensor, and everything downstream on the sensor
    submit >> wait >> downstream
''')

_SPLIT_AFTER_PRE33 = _s('''
    # Triggerer deployed: one deferrable task, and say wait_for_termination=True explicitly
    run_job = DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        deferrable=True,
        wait_for_termination=True,   # required - deferrable=True alone does not imply this
    )
    # No Triggerer, short/medium job: one synchronous task (holds a worker slot)
    run_job = DatabricksSubmitRunOperator(
        task_id="run_job",
        tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
        wait_for_termination=True,   # synchronous - holds the worker for the run
    )
    # Genuinely long job: keep the split, a mode="reschedule" sensor,
    # and everything downstream on the sensor
    submit >> wait >> downstream
''')

BEFORE: dict[str, str] = {
    "DJ000": "",
    "DJ011": _s('''
        @task
        def process(**context):
            cursor = Variable.get("etl_cursor", default_var=0)
            # ... process ...
            Variable.set("etl_cursor", new_cursor)  # global, any task can overwrite
    '''),
    "DJ021": _s('''
        @task(retries=3)
        def run_job(**context):
            ti = context["ti"]
            job_id = ti.xcom_pull(key="job_id")      # cleared before every try: None on retry
            if job_id is None:
                job_id = hook.submit_run(payload)
                ti.xcom_push(key="job_id", value=job_id)
            hook.wait(job_id)
    '''),
    "DJ031": _s('''
        def execute(self, context):
            job_id = Variable.get("spark_job_id", default_var=None)
            if job_id and self._is_running(job_id):
                self._wait(job_id)
            else:
                job_id = self.hook.submit(...)
                Variable.set("spark_job_id", job_id)   # global, race-prone
                self._wait(job_id)
    '''),
    "DJ041": _s('''
        Variable.set(f"watermark_{asset_name}", new_offset)   # global, not scoped to asset
    '''),
    "DJ051": _SPLIT_BEFORE,
    "DJ052": _s('''
        submit >> wait
        submit >> notify      # runs (and alerts) as soon as the job is *accepted*
    '''),
    "DJ061": _s('''
        run_job = DatabricksSubmitRunOperator(task_id="run_job", tasks=[...],
                                              deferrable=True, wait_for_termination=False)
    '''),
    "DJ071": _s('''
        class MyBatchOperator(ResumableJobMixin, BaseOperator):
            external_id_key = "batch_job_id"
            def execute(self, context):
                job_id = self.submit_job(context)        # bypasses the checkpoint
                self.poll_until_complete(job_id, context)
    '''),
    "DJ072": _s('''
        class MyBatchOperator(ResumableJobMixin, BaseOperator):
            def execute(self, context):
                return self.execute_resumable(context)
    '''),
    "DJ073": _s('''
        # deployed version:   external_id_key = "batch_job_id"
        class MyBatchOperator(ResumableJobMixin, BaseOperator):
            external_id_key = "job_id"                   # renamed
    '''),
    "DJ074": _s('''
        class MyBatchOperator(BaseOperator, ResumableJobMixin):   # TypeError on 3.3.2
            external_id_key = "batch_job_id"
    '''),
    "DJ081": 'task_state_store.set("job_id", None)',
    "DJ082": 'task_state_store.set("started_at", datetime.now(tz=timezone.utc))',
    "DJ083": 'task_state_store.set("s3/orders.offset", offset)',
    "DJ084": 'asset_state_store.set("watermark", datetime.utcnow().isoformat())',
    "DJ085": _s('''
        @task(inlets=[ORDERS], outlets=[ORDERS])
        def load(asset_state_store=None, **context):
            ...
    '''),
    "DJ086": _s('''
        @task
        def process_partition(partition_id, **context):
            context["task_state_store"].clear()   # clears this map index only
        process_partition.expand(partition_id=[0, 1, 2, 3])
    '''),
    "DJ087": _s('''
        @task(outlets=[my_asset])
        def load_partition(partition_id, asset_state_store=None):
            asset_state_store[my_asset].set("offset", new_offset)   # every index, same key
        load_partition.expand(partition_id=[0, 1, 2, 3])
    '''),
    "DJ091": 'run = DatabricksSubmitRunOperator(task_id="run", tasks=[...], retries=0)',
    "DJ092": 'run = DatabricksSubmitRunOperator(task_id="run", tasks=[...], durable=False)',
    "DJ101": _s('''
        @task(retries=3)
        def run_glue_job():
            hook = GlueJobHook(job_name="nightly")
            run_id = hook.initialize_job()["JobRunId"]   # a retry submits a second run
            hook.job_completion("nightly", run_id)
    '''),
    "DJ102": _s('''
        def submit_job(self, context):
            response = self.hook.submit(...)
            return response.get("jobId")      # None when the key is missing
    '''),
    "DJ111": _s('''
        @task
        def extract(**context):
            context["task_state_store"].set("row_count", n)
        @task
        def load(**context):
            n = context["task_state_store"].get("row_count")   # another task: always None
    '''),
    "DJ112": 'task_state_store.set("frame", df.to_dict())',
    "DJ113": 'task_state_store.set("api_key", api_key)',
}

AFTER: dict[str, str] = {
    "DJ000": "",
    "DJ011": _s('''
        @task(retries=3)
        def process(**context):
            task_state_store = context["task_state_store"]
            cursor = task_state_store.get("cursor", default=0)
            # ... process ...
            task_state_store.set("cursor", new_cursor)    # scoped to this task instance
    '''),
    "DJ021": _s('''
        @task(retries=3)
        def run_job(**context):
            task_state_store = context["task_state_store"]   # survives retries
            job_id = task_state_store.get("job_id")
            if job_id is None:
                job_id = hook.submit_run(payload)
                task_state_store.set("job_id", job_id, retention=NEVER_EXPIRE)
            hook.wait(job_id)
        # better still: a ResumableJobMixin operator (see DJ031) or a durable operator
    '''),
    "DJ031": _MIXIN_AFTER,
    "DJ041": _s('''
        @task(inlets=[my_asset], outlets=[my_asset])
        def load(asset_state_store=None):
            asset_state_store = asset_state_store[my_asset]
            asset_state_store.set("watermark", new_offset)
    '''),
    "DJ051": _SPLIT_AFTER,
    "DJ052": "submit >> wait >> notify    # the sensor carries the job's real outcome",
    "DJ061": _s('''
        run_job = DatabricksSubmitRunOperator(
            task_id="run_job",
            tasks=[{"task_key": "job", "notebook_task": {"notebook_path": NOTEBOOK_PATH}}],
            deferrable=True,
            wait_for_termination=True,   # required - deferrable=True alone does not imply this
        )
    '''),
    "DJ071": _s('''
        class MyBatchOperator(ResumableJobMixin, BaseOperator):
            external_id_key = "batch_job_id"
            def execute(self, context):
                return self.execute_resumable(context)  # never call self.execute() - call this
    '''),
    "DJ072": _s('''
        class MyBatchOperator(ResumableJobMixin, BaseOperator):
            external_id_key = "batch_job_id"   # key used in task_state_store; set once, never rename
            def execute(self, context):
                return self.execute_resumable(context)
    '''),
    "DJ073": _s('''
        class MyBatchOperator(ResumableJobMixin, BaseOperator):
            external_id_key = "batch_job_id"             # the deployed key, unchanged
    '''),
    "DJ074": _s('''
        class MyBatchOperator(ResumableJobMixin, BaseOperator):   # mixin first
            external_id_key = "batch_job_id"
    '''),
    "DJ081": 'task_state_store.delete("job_id")',
    "DJ082": 'task_state_store.set("started_at", datetime.now(tz=timezone.utc).isoformat())',
    "DJ083": 'task_state_store.set("orders_offset", offset)',
    "DJ084": 'asset_state_store.set("watermark", datetime.now(tz=timezone.utc).isoformat())',
    "DJ085": _s('''
        @task(inlets=[ORDERS], outlets=[ORDERS])
        def load(asset_state_store=None):        # declared as a kwarg, no **context
            asset_state_store = asset_state_store[ORDERS]
    '''),
    "DJ086": _s('''
        @task
        def reset_partitions(**context):       # downstream, not inside the mapped task
            requests.delete(
                f"{API}/dags/{dag_id}/dagRuns/{run_id}/taskInstances/process_partition/state-store",
                params={"all_map_indices": "true"}, headers=auth,
            )
    '''),
    "DJ087": _s('''
        @task(outlets=[my_asset])
        def load_partition(partition_id, asset_state_store=None):
            asset_state_store = asset_state_store[my_asset]
            asset_state_store.set(f"offset_{partition_id}", new_offset)   # distinct key per index
    '''),
    "DJ091": 'run = DatabricksSubmitRunOperator(task_id="run", tasks=[...], retries=3)',
    "DJ092": _s('''
        run = DatabricksSubmitRunOperator(task_id="run", tasks=[...])   # durable=True is the default
        # keep durable=False for tests, or where the vendor deduplicates submissions itself
    '''),
    "DJ101": _s('''
        from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator   # drop-in, durable by default

        run_glue_job = GlueJobOperator(task_id="run_glue_job", job_name="nightly", retries=3)
        # or a ResumableJobMixin operator: class MyGlueOperator(ResumableJobMixin, BaseOperator)
    '''),
    "DJ102": _s('''
        def submit_job(self, context):
            response = self.hook.submit(...)
            return response["jobId"]           # fails loudly instead of disabling crash safety
    '''),
    "DJ111": _s('''
        @task
        def extract():
            return n                             # XCom
        @task
        def load(row_count):
            ...
        load(extract())
    '''),
    "DJ112": _s('''
        @task
        def transform():
            return df      # XCom, with an object-storage XCom backend for large values
    '''),
    "DJ113": 'api_key = Variable.get("vendor_api_key")   # or a Connection\'s password',
}

AFTER_PRE33: dict[str, str] = {
    "DJ051": _SPLIT_AFTER_PRE33,
    "DJ092": _s('''
        run = DatabricksSubmitRunOperator(task_id="run", tasks=[...])
        # below Airflow 3.3 durable= has no effect; revisit the flag after upgrading
    '''),
    "DJ101": _s('''
        from durable_jobs.providers.amazon.aws.operators.glue import GlueJobOperator   # drop-in operator

        run_glue_job = GlueJobOperator(task_id="run_glue_job", job_name="nightly", retries=3)
        # crash safety for the submit needs Airflow 3.3+ (AIP-103)
    '''),
}


def before(rule_id: str) -> str:
    return BEFORE[rule_id]


def after(rule_id: str, modern: bool) -> str:
    if not modern and rule_id in AFTER_PRE33:
        return AFTER_PRE33[rule_id]
    return AFTER[rule_id]
