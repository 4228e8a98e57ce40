"""The street indexes and the four hands that several Seven Card Stud scenario files
share (tests/unit/rules/test_stud_*.py).

Each test name ends with the rule ID it checks.  Cards are scripted with preset
decks (``tests/unit/rules/helpers.py``): each player's cards are listed in the order
that player receives them (down, down, door, fourth, fifth, sixth, seventh).
Amounts are in the smallest chip; the default table is $1/$2 (25 ante, 50
bring-in, 100/200) with 10_000 chips per player.
"""

from __future__ import annotations

THIRD, FOURTH, FIFTH, SIXTH, SEVENTH = range(5)

# Four hands used by several betting scenarios.  Boards: fourth street K-Q / T-8 /
# 9-6 / 2-4 (no pair), fifth K-Q-J / T-8-7 / 9-6-5 / 2-4-6: player 0 opens every
# street from fourth on.  With three players (0-2) the 9d brings in; with four, 2c.
# Showdown: 0 pair of aces, 1 pair of kings, 2 two pair (queens and threes).
P0 = "As Ah Kc Qd Jh 9c 8d"
P1 = "Ks Kh Tc 8s 7h 5c 4d"
P2 = "Qs Qh 9d 6s 5h 3c 3h"
P3 = "Js Jd 2c 4s 6h 7c 9s"
