"""Tests of ``poker_rules.evaluate`` (named after the RULES.md rule they check)."""
