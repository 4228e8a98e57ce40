"""Tests of the documentation: generated tables current, rule IDs traceable, links alive."""
