"""A small stand-in for Airflow's ``tests_common`` (the Airflow repository's devel-common), written by us.

The official provider tests import Airflow's own test infrastructure, which is not published on
PyPI at a version matching Airflow 3.3.2. This package provides only the names the selected test
modules use (``python -m tests.official.sources`` lists the modules), written for this suite against the
installed Airflow's own APIs, with the semantics of devel-common's helpers of the same names (read, not
copied). A helper too large to re-create honestly is not faked: the tests that need it would be listed
as not applicable in tests/official/expected.py, with that reason (none need one at the pinned versions).
"""
