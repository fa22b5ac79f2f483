"""Test doubles for users' own DAG tests: the vendor emulators and the pytest plugin. Never imported by runtime code."""
