"""English words that hold no name and no type: the span finder skips spans made of them, the describers trim them,
and a slot word among them is no shortened type word. English, no SKB term."""

from __future__ import annotations

FUNCTION_WORDS = frozenset(
    """
a an the and or but nor of in on at to for from by with without within into onto about as than that this these
those is are was were be been being has have had do does did can could may might must shall should will would
which what who whom whose where when why how whether not no any all some each every both either neither
there their its it they them he she his her we our you your i me my also only just very more most less least
other another such same kind kinds type types sort related relate relates linked link links associated
associate associates present presents presenting show shows showing feature features featuring cause causes
caused have having known list name find identify give tell specific particular certain
exclude excluded excluding lack lacks lacking lacked documented explicitly
""".split()
)  # noqa: SIM905 (a word list reads best as text)
