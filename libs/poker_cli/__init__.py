"""``poker``: a command-line client of the card room, through its one public door
(the gateway's ``poker.room.v1.Room``).

Run ``python -m poker_cli --help``.  :mod:`poker_cli.format` turns events into
readable lines; :mod:`poker_cli.play` parses what a person types at the table.
"""
