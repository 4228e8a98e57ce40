"""devroom: the whole card room on one machine, for development, tests and benchmarks.

Not part of any service (the images hold no file of it): it starts the five
services as processes on 127.0.0.1 and plays reference bots through them.

- ``launcher``: one service as its own process (``python -m services.<name>``);
- ``ports``: how a room picks its ports (the services' defaults, free ones, or a
  base port) and checks them before starting anything;
- ``stack``: the five services started in order, healthy, and stopped in reverse;
- ``room``: the main job (``make run``): a table of every game, bots, chip checks;
- ``tournament_room``: a whole tournament of bots (``make tournament``);
- ``selfplay``: the rules library alone, in this process (``make selfplay``).
"""
