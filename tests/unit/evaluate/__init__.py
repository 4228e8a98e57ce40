"""Tests of ``poker_rules.evaluate`` (named after the docs/rules.md rule they check)."""
