"""Property-based tests: many random hands of every game, checked after every action.

Hypothesis draws a seed and a few parameters per example (stakes, ante, cap, burns,
river-shortage procedure, timeout policy, player count, stack profile, playing
style); a ``random.Random(seed)`` then builds the stacks (sometimes so small that the
ante, blind or bring-in puts a player all-in) and drives the hand with random legal
actions, all-ins and timeouts.  One example is one hand, so every game (Stud, Stud
Hi-Lo, and 7-A draw in fixed limit, pot limit and no limit) plays ``HANDS_PER_GAME``
hands.

Checked after every action and at the end of every hand:

1. chips are conserved to the unit, every amount is a non-negative ``int``;
2. the pots hold exactly what was put in (uncalled bet returned, G6), the awards
   exactly the pots, and the pot layers are those an independent computation gives;
3. every live player who reached a pot's level is eligible for it, folded players
   never are;
4. exactly one player is to act until the hand ends, and nothing is accepted after;
5. every action on the menu is accepted (tried on a copy of the hand, replayed from
   its action list, at one state in ``FORK_EVERY``), everything else is rejected with
   ``IllegalActionError`` and leaves the hand exactly as it was;
6. the hand replays identically from (configuration, stacks, seed, actions).

Layout: ``setups`` (the random tables and players), ``checks`` (properties 1-4
and the rule-book facts), ``legality`` (property 5), ``play`` (one hand with every
check, many hands, coverage); the ``test_*`` modules run them.
"""
