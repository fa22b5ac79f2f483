"""Triggers: one generic ``JobTrigger`` that polls any ``JobClient``."""
