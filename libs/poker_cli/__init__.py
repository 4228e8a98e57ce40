"""``poker``: a command-line client of the card room (lobby and table services).

Run ``python -m poker_cli --help``.  :mod:`poker_cli.format` turns events into
readable lines; :mod:`poker_cli.play` parses what a person types at the table.
"""
