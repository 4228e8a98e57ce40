"""Key-sum lookup tables shared by the high (Stud) and 7-A (Draw) evaluators.

How a hand is scored in a handful of integer operations
--------------------------------------------------------
Each card has an integer key ``(RANK_KEYS[rank] << 8) + SUIT_KEYS[suit]``.  Adding the
keys of a hand's cards gives one int whose two parts answer the two questions a high
hand asks:

* **Bits 8 and up: the rank multiset.**  ``RANK_KEYS`` are chosen (greedily, smallest
  first) so that any multiset of up to seven ranks with at most four of each has its
  own sum among multisets of the same size.  Suits do not matter for anything but a
  flush, so this sum alone identifies the best non-flush hand: one dict lookup.
* **Bits 0-7: the suit counts, squeezed.**  ``SUIT_KEYS = (0, 1, 24, 33)`` were found
  by search: their sum (at most ``7 * 33 = 231``, so eight bits) still tells, for 5, 6
  and 7 cards, whether some suit has five or more cards and which one (no keys do it
  in seven bits, and no eight-bit keys make a flush one bit test).  One small
  list lookup detects the (rare: ~3% of 7-card hands) flush; only then do we look at
  the suits of the individual cards and index a table by the flush suit's rank bitmask.
  A flush can be read this way because with seven cards a flush rules out quads and
  full houses, so the best flush (or straight flush) is the hand.

Why these exact widths: CPython adds ints below 2**30 in magnitude ("medium" ints)
on a fast path, and the 7-card loop spends most of its time adding.  The largest
7-rank sum is ``4*1479181 + 3*636345 = 7_825_759 < 2**23``; shifted by the 8 suit
bits that is just under ``2**31``, so the first card's key also carries ``-BIAS << 8``
(``FIRST_KEYS``), centring every partial and final sum inside ``(-2**30, 2**30)``.
``key >> 8`` is then ``rank_sum - BIAS`` and ``key & 255`` the suit sum (Python's
shifts and masks act on negative ints as two's complement, so this is exact).

The 7-card lookup is a list, not a dict
--------------------------------------
A dict lookup costs a hash probe, a compare against the stored key object and the
cache misses of three scattered arrays (index, entries, key objects), and the 49,205
seven-card rank sums span 7.8 million ints, too sparse for a plain list.  So the sums
are packed into a ~178k-entry list by *row displacement*: split ``r = key >> 8`` into
a row ``r >> 12`` and a column ``r & 4095``; each row gets an offset such that no two
sums land on the same slot, and ``r`` lives at ``ROW_OFFSETS[row] + column``.  The
lookup is two list indexings and three integer operations, measurably faster than
the dict (the dominant cost of ``high_rank`` on this hardware).  Finding offsets
(first-fit, biggest rows first: ``pack_rows``) takes ~0.6 s, too slow for import, so
the offsets are stored below as a constant; the tests rebuild them and compare, and
filling a table checks for collisions, so a stale constant cannot go unnoticed.
The offsets depend only on ``RANK_KEYS``; the 7-A tables use a subset of the same
sums, so they share them.  The 5- and 6-card paths keep plain dicts.

Values are dense: the weakest 5-card class of a game gets 1, the strongest gets the
number of classes (7462 for standard high), so values total-order hands and equal
values tie (``value.py``).  0 in a packed table means "not a hand of this game".
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement, product, repeat
from operator import sub
from typing import Final

from ..cards import Card
from .value import HandCategory, ShortDeckCategory

RANK_KEYS: Final = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349, 636345, 1479181)
"""Deuce..ace: every multiset (<= 4 of a rank) of a given size 1..7 has its own sum."""

SUIT_KEYS: Final = (0, 1, 24, 33)
"""Clubs, diamonds, hearts, spades: the suit sum of 5..7 cards tells the flush suit."""

SUIT_BITS: Final = 8
SUIT_MASK: Final = (1 << SUIT_BITS) - 1
BIAS: Final = (1 << 22) - 1
"""Subtracted from the rank sum (via the first card) to keep every sum a medium int."""

CARD_KEYS: Final[list[int]] = [
    (RANK_KEYS[c >> 2] << SUIT_BITS) + SUIT_KEYS[c & 3] for c in range(52)
]
"""Per-card key, indexed by card int."""

FIRST_KEYS: Final[list[int]] = [k - (BIAS << SUIT_BITS) for k in CARD_KEYS]
"""Key of the first card of a hand: ``CARD_KEYS`` with the bias folded in."""


def _flush_suit_table(n_cards: int) -> list[int]:
    """Suit sum of ``n_cards`` cards -> flush suit + 1 (0: no suit has five cards)."""
    table = [0] * (SUIT_MASK + 1)
    seen: dict[int, int] = {}
    for counts in product(range(n_cards + 1), repeat=4):
        if sum(counts) != n_cards:
            continue
        total = sum(n * key for n, key in zip(counts, SUIT_KEYS, strict=True))
        flush = next((s + 1 for s, n in enumerate(counts) if n >= 5), 0)
        if seen.setdefault(total, flush) != flush:  # the keys were chosen so this holds
            raise AssertionError(f"suit keys cannot tell flushes of {n_cards} cards apart")
        table[total] = flush
    return table


FLUSH_SUIT: Final[dict[int, list[int]]] = {n: _flush_suit_table(n) for n in (5, 6, 7)}
"""Cards in hand -> (suit sum -> flush suit + 1, or 0)."""

ROW_BITS: Final = 12
ROW_MASK: Final = (1 << ROW_BITS) - 1
N_ROWS: Final = 2048
"""Rows of ``r = rank_sum - BIAS``: -1024..886 for seven cards; negative rows index
the offsets list from its end, as Python lists do, so no extra addition is needed."""

_ROW_OFFSETS_HEX: Final = (
    "000000000003b42000000000100000000000000a0049a0179c0003c1a6e80000103a390d20202e950384b00001"
    "000000000003bac00000026f300000000010000000000000000000011ab2000ab03b76000a1000000006200000"
    "000000000000000000000000200000000000005c000000379f000000000100000036cd00003000040000000000"
    "00000000010000000000000001fcfd0a95b1ce671868e0d8d5032bd0b43500064185810000303ac90a57302f2e"
    "0395f187660000703be303c7800005027f205e2e13cfe02d2b012d60000002de31a7910000203c0c000c500002"
    "008420002700000028f70000000003000000000000000000811ab880000f0393c0000000000037980000000010"
    "00000000000000000002000000000000000000000000000000000000000003a2300000000001998001b1f0de41"
    "02f03039d0000081884b000d703cd5000000000203b58000010001403e0600000000090000000007000010ad5b"
    "02bfa001c00007f00000000020382b0000000001000000000000000000a7000000000100000000000000000000"
    "000000000013d8f0000102ac00000000000008e100069000000007300000000000000200000000000000000000"
    "00000000000000000000023de00000000000b5b50008f03b3f0000c000010000003e3100000000040000000000"
    "000040000000000000250000000000000000000300000009b30006a000000007100000000000000010561186df"
    "04a3001393001ec000761acae0001f038320000000003009e3000910000000efa0000000018000010000000001"
    "000001afd80000c03ae300000000000392b0000600000000000000000000000070000000001000000000003c9a"
    "00084000010000003bb8000050002f000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000bc000000b8eb02d6e009cd000660000000069039e7000000000000000"
    "000000000300000000000000200000000000000000000000000000003c82000000000100000000000000200000"
    "00000000000000000000000000000000000000000000000000000000000000000028370000c000000000000000"
    "000000000100000000000000000000000000000000000000000000000000000000000000000000000004e00000"
    "037f20000400003000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000001b1560000003c6b000000000b03a940000000000"
    "00000000000000000000000000000000000000000000000000000000000003d3f000b800000000000000000000"
    "000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000"
    "0000000000000000000000000000001e7721b3850b07303e1d0399c000001894c0000b03ced000000000003b0f"
    "000010000003e1800000000000000500000000000122301e890000003f8d000000000603da9000d80000000000"
    "000000000000003000000000000000000000000000000000000000003b0a000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000e23204030"
    "03b3b00000000000000003f19000000000000000000000000a0000000000000000000000000000000000000000"
    "002450008100000000530000000000000000000000000000000000000000000000000000000000000000000000"
    "00000000000000002b1c00000000030000000000000000007d0000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000003c81000000000000000000000000000000000000000000000"
    "00000000000000000000000000000000000000000000000000000000007b000000000000000000000000002699"
    "0182a002cc0006e000000003b03a7d00000000020000000000000000009e000000000e00000000000000000000"
    "000000000003d2c000000000200000000000000600000000000000000000000000000000000000000000000000"
    "000010000000000000000001100000000000000000000000000000000000000000000000000000000000000000"
    "00000000000000000000000000000000000000000000000a4b0005700000000650000000000000350000000000"
    "000000000000000000000000000000000000000000000000000000000000000140000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000100000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000003e52000000000200000000000000100000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000c95c"
    "00e1c1c31009454053000424f0da5d11ee8132631546a07c3c23ebe1c9811da150743e0e0ed25b1308405058e5"
    "04b4b0f5b80ceeb19a431f72426d8a0624e181d318b6d0ed8311ce022f3125fd10d40b112b6079260180b27f69"
    "00218186a70591d146c8129bc220d30059e28ff61ff941672d160821344806c1602f6f27d360010014caa00008"
    "02e4a0af9d012ec0040f000011dd410d0d91e03b01d001661606f28248ca1a7e21001c12ff221415236770b34f"
    "011731ce5b1921329790022bf0c6e8029792611503bc009a800f96222060210421fa931b22d12604171e70aee4"
    "167a90043014c1f0f498136f707c23009c10082100000188e40001502d6300001116dd00dda29304004d518ca3"
    "03ccf015b10b37c015e3028120000c150e40000602ff30000000006029ba0000d00000000002a27b019b705bd9"
    "0a0f21349317d46002932983422608258270b0d00cfbb023280028e29b06013d9189e9000120014b0234b03bab"
    "0036c000e823b3528c241c6b103ac705721013992829f03380118690eb82207a30b9b51b3de0b0c50f88e16e88"
    "1339926f7722df0122ec0af6d02d9504f9408a1e274bd010cc1121f0698314dcd243470148b0261d272141d2bd"
    "19919138ba012490010f037670f6a1000001ab680000100f151829f016a120ee30081d15933184382506803f3f"
    "08f010bfe60eb7f0ad830010102c010326f151b8000d100626000000002114464001fd072d5009691264e15619"
    "077250e3922238e0fd911a5311541604bc51c5c700b420c56200b320233a1d46b13d7207e2705d43027070188a"
    "158a5050a50128e03f4f262d10492d0024a00024111232a1a8025c40b6e70012702a47001de005a40000001504"
    "000000000027adf01b59153c200026275020231b0b2990003f004e50287a00032014c30001f000000000102ca2"
    "000010000000000000000198c031cc02bd00000102d430311f00a7b087da0300517a7b10d1b062dd0179d27f7c"
    "01fd90dc8f0000102fb70bb0701edd02cb101f9c0000600000031e80335a0000002342015580000011cfd00000"
    "033460edc70d2b81606d1892d2642601b7007fa61e09d1d472205ac02703047f102de80ae56000da0c87900001"
    "0192b0f0210001a0085a000021d9f71598a270bb0317a12563049500f66d0419e0059f003320001218f3e00003"
    "01b1d00004000060726512f510bc0b0132c1414115ea6088ea00194016ed000000e14d0012101c790000102977"
    "1ad1f0883226d051e4c61227610ffc09996167f3028b40487719b45073fc19d86259ff084bf1bbef08d9f0d414"
    "226c413cb71561d1e9110cd9509cdc11fa518f07144892912e006ef06b54044230caa604bdf0ad87017800a329"
    "15e59006dc0547e0065c20f70003332945b003810958e1e3210df960857a01f9f04ee3021d808afc000060007c"
    "0348c003da0033300009000010336a0b4760132b061a30a9f6128751b2f10f3f12a37d2279924eb9015b2098c3"
    "0000d13a6b27db3014620078b05f080232e0046303a0700c1906196234dd273822a58b1259c04123000a128393"
    "0002815d400000501c77089070202502a98160780000301f110313f00000009020000113a3900b040df9901fc3"
    "108481463f0856a039720096e0030a000151070d00040016380000100003014b40000200001000090657500419"
    "05fc51b8cd07a4e294280c4c40699e0155e104cd023bc004b0000020246e15f3300005027ea001a7001430018b"
    "00c5e004ae01e8009040165cd052bc00b12000d2000871969d106bf20f9b07a0328d461887d145b51786510edd"
    "17383001a316b5407f191324e06ce3257c4015cd0dda617235007a9090e700df2224970090828d41024ef07e89"
    "06148010f80bc8a02486000730000616f75000030416f0361f0000827700009f50778200be0281d8014d507a68"
    "000010009c02159006c202fe503650003c60001f02f400000d00293000060000008a330240002d960000106111"
    "0333801d2423dd6299d70fd1513a7406380002292869f0073317493000280319e099c70238202e7f0793100000"
    "021990335f023c6001760156008d6f00035179170000d0240a0c7fc027230316b0000300000000000364b00000"
    "0126e00000000001719b0000103117000050c619006a202dcd026ed00dda003040b58b0007e026890000000001"
    "018c9000010000100002000000304e0000d00000000000300500b8e000a41742919ae8018640108e0301c00003"
    "1790000001033e00000e00000032920000000001025500000000001000090249b000000000019d5e0004502528"
    "0000000000035dc01ae425f6f039c609e600004517afa2a4360161a0c8ae0271e035060000a14993000001108a"
    "0004d012ab000e70000c00002028aa29bc7024e2176030000100dac04dc0010d1003e2000190000000000031af"
    "00000003e5000140000009acc026cc0342e000000a0ad035a302354000000000b000000345c000000000000000"
    "0bc54221671f0630fd5216b8b0309224b85060f2072720003c19db21c23401c230570d0247c0048809999000fb"
    "036e1065160925c26b600cdc51338602b5c0039729eaf021fa179bd0000c0264601ab4014d20032c146b000001"
    "022120330500001004da0003c2a2a9027d1178ff00011024760c87b014710339c0000001f66000000257300000"
    "020f20000200002000010000000000000000cb5e039750361d1f3da100632a653004ff0cd810e26101e9600033"
    "14cbe000010386009bba0001901171014a4000010397e0127700028028f50d91d110e7064d601384000140006b"
    "19c650000f0339f00000000000062c00000000000246b0000000001000000000000004000001aecc027dd1202d"
    "00000023f304a97009410088c0005a000000004c025f9000000000100000000000000600000000000000007ab1"
    "02aee01bc229f5d00de906651001560370901aea0041e0000002c160000000001039c0000240016f0000d00000"
    "000090000102cb30000209aa102a070069a0001c000000004c034d423f9928f9e0ee4418056065a9028e828764"
    "0023e19c5700001033c709c08028df007e90018400002008930359e0001e0112e00002299dd02de61a09200000"
    "02a170ccb902d460362f0000000010000000387c00000018cb00000000010833e00073039f3000310df6e00136"
    "000e800000000410000003b1c00002000020000000010000000000000000000020000003530000010000000000"
    "008fe0001c000000e4731a0a80907b0149a009040005d1a086000220368e0000000000035740000100000029ed"
    "0000000000000000000000001000001a3b50000203921000000000803814000050000200000000000000000000"
    "000000000000000000000355100000000020000009c9f02e880257f00004000000000002e09000000000000000"
    "00000000050000000000000000000000000000000000000000003810006b000000a916039b10356a0000200000"
    "0000003893000000000000000000000000200000000000000200000000000000000001"
)
ROW_OFFSETS: Final[list[int]] = [
    int(_ROW_OFFSETS_HEX[i : i + 5], 16) for i in range(0, len(_ROW_OFFSETS_HEX), 5)
]
"""Row -> offset of its slots in a packed 7-card table (generated by ``pack_rows``)."""

PACKED_SIZE: Final = max(ROW_OFFSETS) + (1 << ROW_BITS)


def check_fast_path_constants() -> None:
    """The unrolled fast paths write these constants as literals; keep them honest."""
    if (SUIT_MASK, SUIT_BITS + ROW_BITS, SUIT_BITS, ROW_MASK) != (255, 20, 8, 4095):
        raise AssertionError("update the literals in high_rank and short_deck_rank")


def packed_slot(r: int) -> int:
    """Slot of ``r = rank_sum - BIAS`` in a packed table (what the fast paths inline)."""
    return ROW_OFFSETS[r >> ROW_BITS] + (r & ROW_MASK)


def pack_rows(keys: Iterable[int]) -> list[int]:
    """Row offsets that give every key its own slot: first-fit decreasing displacement.

    Rows are placed biggest first at the lowest offset where none of their columns
    hits an occupied slot.  The candidate offsets are tested all at once with a
    big-int bitset: bit ``o`` of ``forbidden`` is set when some column ``c`` of the
    row would land on an occupied slot ``o + c``.
    """
    rows: dict[int, list[int]] = {}
    for key in keys:
        rows.setdefault(key >> ROW_BITS, []).append(key & ROW_MASK)
    offsets = [0] * N_ROWS
    occupied = 0
    for row, columns in sorted(rows.items(), key=lambda rc: (-len(rc[1]), rc[0])):
        if not -N_ROWS // 2 <= row < N_ROWS // 2:
            raise AssertionError(f"row {row} does not fit {N_ROWS} rows")
        forbidden = 0
        for column in columns:
            forbidden |= occupied >> column
        offset = (~forbidden & (forbidden + 1)).bit_length() - 1  # lowest clear bit
        for column in columns:
            occupied |= 1 << (column + offset)
        offsets[row] = offset
    return offsets


def packed_table(values: dict[int, int]) -> list[int]:
    """``{rank_sum - BIAS: value}`` of 7-card hands as a packed list (0: no hand)."""
    table = [0] * PACKED_SIZE
    for r, value in values.items():
        slot = packed_slot(r)
        if table[slot]:
            raise AssertionError("ROW_OFFSETS are stale: regenerate them with pack_rows")
        table[slot] = value
    return table


FLUSH_BITS: Final[list[list[int]]] = [
    [0] * 52,
    *([1 << (c >> 2) if c & 3 == suit else 0 for c in range(52)] for suit in range(4)),
]
"""Flush suit + 1 -> card -> its rank bit if the card is of that suit, else 0: the
unrolled paths OR seven of these to get the flush suit's rank bitmask."""

Straight = tuple[int, int, int, int, int]
"""A straight's rank indexes from the top card down (a low ace comes last)."""


def standard_straights() -> tuple[Straight, ...]:
    """Straights of the 52-card deck, weakest first: the wheel 5-4-3-2-A up to A-K-Q-J-T."""
    wheel: Straight = (3, 2, 1, 0, 12)
    return (wheel, *((i + 4, i + 3, i + 2, i + 1, i) for i in range(9)))


def short_deck_straights(with_sixes: bool) -> tuple[Straight, ...]:
    """Straights of the 7-A deck (D8), weakest first.

    The ace plays low only below the deck's lowest rank: T-9-8-7-A (32 cards) or
    9-8-7-6-A (36 cards, sixes in).  So with the sixes in, A-7-8-9-T is *not* a
    straight, and 6-7-8-9-T is one that beats A-6-7-8-9.
    """
    low = 4 if with_sixes else 5  # rank index of the six or the seven
    low_ace: Straight = (low + 3, low + 2, low + 1, low, 12)
    return (low_ace, *((i + 4, i + 3, i + 2, i + 1, i) for i in range(low, 9)))


@dataclass(frozen=True, slots=True)
class RankTables:
    """Everything a key-sum evaluator of one game needs.

    ``nonflush[n]``: for hands of ``n`` cards, ``key >> 8`` (rank sum minus BIAS) ->
    value of the best five cards ignoring suits; ``packed7`` is ``nonflush[7]`` as a
    packed list (see the module docstring).  ``flush``: rank bitmask (bit r for
    rank index r) of the flush suit's cards -> value of the best flush or straight
    flush among them (0 where fewer than five ranks).  ``floors``: lowest value of
    each category, in category order.
    """

    nonflush: dict[int, dict[int, int]]
    packed7: list[int]
    flush: list[int]
    floors: tuple[int, ...]
    categories: tuple[HandCategory | ShortDeckCategory, ...]
    straights: tuple[Straight, ...]
    ranks: frozenset[int]
    top: int
    """The best value of this game (the royal flush) = the number of 5-card classes."""

    def category_of(self, value: int) -> HandCategory | ShortDeckCategory:
        """The category of a value of this game."""
        if not 1 <= value <= self.top:
            raise ValueError(f"not a hand value of this game: {value}")
        return self.categories[bisect_right(self.floors, value) - 1]


_SHAPES: Final = {
    (4, 1): "FOUR_OF_A_KIND",
    (3, 2): "FULL_HOUSE",
    (3, 1, 1): "THREE_OF_A_KIND",
    (2, 2, 1): "TWO_PAIR",
    (2, 1, 1, 1): "PAIR",
}


def build_tables(
    ranks: Sequence[int],
    straights: tuple[Straight, ...],
    categories: type[HandCategory] | type[ShortDeckCategory],
) -> RankTables:
    """Score every 5-card class of a game, then extend to 6 and 7 cards.

    A class is a rank multiset (non-flush) or a set of five ranks in one suit.  The
    classes are sorted by (category strength in this game's enum, tie-break ranks)
    and numbered from 1.  A 6- or 7-card hand is worth the best of the hands left by
    removing one card, so its table entry is a max over the smaller table: no
    21-way combination loop at import.
    """
    straight_order = {frozenset(s): i for i, s in enumerate(straights)}
    classes: list[tuple[tuple[int, tuple[int, ...]], bool, int]] = []
    for combo in combinations_with_replacement(ranks, 5):
        counts = Counter(combo)
        if max(counts.values()) > 4:
            continue
        # Tie-break: groups first (bigger, then higher), then kickers high to low.
        order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
        rank_sum = sum(RANK_KEYS[r] for r in combo)
        if len(counts) == 5:
            mask = sum(1 << r for r in combo)
            height = straight_order.get(frozenset(combo))
            if height is None:
                classes.append(((categories["HIGH_CARD"], order), False, rank_sum))
                classes.append(((categories["FLUSH"], order), True, mask))
            else:
                classes.append(((categories["STRAIGHT"], (height,)), False, rank_sum))
                classes.append(((categories["STRAIGHT_FLUSH"], (height,)), True, mask))
        else:
            shape = tuple(sorted(counts.values(), reverse=True))
            classes.append(((categories[_SHAPES[shape]], order), False, rank_sum))
    classes.sort()

    nonflush5: dict[int, int] = {}
    flush = [0] * (1 << 13)
    floors: dict[int, int] = {}
    for value, ((category, _), is_flush, key) in enumerate(classes, start=1):
        floors.setdefault(category, value)
        if is_flush:
            flush[key] = value
        elif key - BIAS in nonflush5:
            raise AssertionError("rank keys collide for 5-card hands")
        else:
            nonflush5[key - BIAS] = value

    nonflush = {5: nonflush5}
    rank_key = RANK_KEYS.__getitem__
    for size in (6, 7):
        smaller = nonflush[size - 1].__getitem__
        table: dict[int, int] = {}
        for multiset in combinations_with_replacement(ranks, size):
            # The multiset is sorted: five of a rank would show as m[i] == m[i + 4].
            if (
                multiset[0] == multiset[4]
                or multiset[1] == multiset[5]
                or (size > 6 and multiset[2] == multiset[6])
            ):
                continue
            rank_sum = sum(map(rank_key, multiset)) - BIAS
            if rank_sum in table:
                raise AssertionError(f"rank keys collide for {size}-card hands")
            # Best of the hands left by removing one card (map/sub keep this loop in C).
            table[rank_sum] = max(map(smaller, map(sub, repeat(rank_sum), map(rank_key, multiset))))
        nonflush[size] = table
        for suited in combinations(ranks, size):
            mask = sum(1 << r for r in suited)
            flush[mask] = max(flush[mask & ~(1 << r)] for r in suited)

    members: tuple[HandCategory | ShortDeckCategory, ...] = tuple(categories)  # weakest first
    return RankTables(
        nonflush=nonflush,
        packed7=packed_table(nonflush[7]),
        flush=flush,
        floors=tuple(floors[int(c)] for c in members),
        categories=members,
        straights=straights,
        ranks=frozenset(ranks),
        top=len(classes),
    )


def rank_any(cards: Sequence[Card], tables: RankTables) -> int:
    """Value of a 5-, 6- or 7-card hand: the general (not unrolled) key-sum path."""
    n = len(cards)
    if not 5 <= n <= 7:
        raise ValueError(f"a hand to evaluate has 5 to 7 cards, got {n}")
    key = FIRST_KEYS[cards[0]]
    for card in cards[1:]:
        key += CARD_KEYS[card]
    suit = FLUSH_SUIT[n][key & SUIT_MASK]
    if suit:
        return flush_value(cards, suit, tables.flush)
    try:
        return tables.nonflush[n][key >> SUIT_BITS]
    except KeyError:
        raise ValueError(f"not a hand of distinct cards of this deck: {list(cards)}") from None


def flush_value(cards: Sequence[Card], suit_plus_one: int, flush: list[int]) -> int:
    """Value of a hand known to hold five or more cards of one suit (the rare path)."""
    suit = suit_plus_one - 1
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= 1 << (card >> 2)
    value = flush[mask]
    if not value:
        raise ValueError(f"not a hand of distinct cards of this deck: {list(cards)}")
    return value


def check_hand(cards: Sequence[Card], ranks: frozenset[int], sizes: range) -> tuple[Card, ...]:
    """Validate a hand for the rich ``evaluate_*`` paths; the fast paths trust input."""
    hand = tuple(cards)
    if len(hand) not in sizes:
        raise ValueError(f"a hand to evaluate has {sizes.start} to {sizes.stop - 1} cards")
    for card in hand:
        if not isinstance(card, int) or not 0 <= card < 52 or card >> 2 not in ranks:
            raise ValueError(f"not a card of this deck: {card!r}")
    if len(set(hand)) != len(hand):
        raise ValueError(f"the same card twice in {list(hand)}")
    return hand


def best_five(
    hand: Sequence[Card], rank: Callable[[Sequence[Card]], int], value: int
) -> tuple[Card, ...]:
    """Five cards of ``hand`` worth ``value``; among equals, the highest card ints."""
    for five in combinations(sorted(hand, reverse=True), 5):
        if rank(five) == value:
            return five
    raise AssertionError(f"no five cards of {list(hand)} are worth {value}")


def display_order(five: Sequence[Card], straights: tuple[Straight, ...]) -> tuple[Card, ...]:
    """Best-first order people say a hand in (see ``HandValue.cards``)."""
    ranks = [c >> 2 for c in five]
    rank_set = set(ranks)
    for straight in straights:
        if rank_set == set(straight):
            by_rank = {c >> 2: c for c in five}
            return tuple(by_rank[r] for r in straight)
    counts = Counter(ranks)
    return tuple(sorted(five, key=lambda c: (counts[c >> 2], c), reverse=True))
