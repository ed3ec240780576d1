"""Lines drawn over a PDF page's text that are no table rules: strike lines through words (the
words are struck, ``remove_strikethrough_lines``) and underlines under them (a link's).

Both leave the page's rules, so the table readers never take them for the rules between rows.
"""

from __future__ import annotations

from pipelines.stages.geometry import PageContent, Rule, Word


def mark_strikethrough(content: PageContent) -> list[Rule]:
    """Horizontal rules drawn through the middle of a run of words: the words are struck.

    Returns the rules used as strike lines (they are not table rulings) and sets
    ``content.meta["struck"]`` to the indices of the struck words. Underlines (a link's, in a
    browser's print) are no table rulings either, and leave the page's rules too: a rule in the
    lowest quarter of a run of words that covers the rule end to end (a cell's border runs on
    past its text by the cell's padding; one under a header spans the columns below it).
    """
    import bisect

    struck: set[int] = set()
    used: list[Rule] = []
    by_top = sorted(range(len(content.words)), key=lambda k: content.words[k].y1)
    tops = [content.words[k].y1 for k in by_top]
    tallest = max((w.y2 - w.y1 for w in content.words), default=0.0)
    for rule in content.rules:
        if not rule.horizontal or (rule.y2 - rule.y1) > 2.5:
            continue
        ry = (rule.y1 + rule.y2) / 2
        near = by_top[bisect.bisect_left(tops, ry - tallest):bisect.bisect_right(tops, ry)]
        hits = sorted(k for k in near
                      for w in (content.words[k],)
                      if w.y1 + w.h * 0.3 <= ry <= w.y2 - w.h * 0.2
                      and w.x1 >= rule.x1 - 3 and w.x2 <= rule.x2 + 3)
        if not hits:
            if _underline(rule, ry, [content.words[k] for k in near]):
                used.append(rule)
            continue
        covered = sum(content.words[k].x2 - content.words[k].x1 for k in hits)
        if covered >= 0.6 * (rule.x2 - rule.x1):
            struck.update(hits)
            used.append(rule)
    content.meta["struck"] = sorted(struck)
    content.rules = [r for r in content.rules if r not in used]
    return used


def _underline(rule: Rule, ry: float, near: list[Word]) -> bool:
    """Is ``rule`` under a run of words that spans it (within 1.5 pt at each end, 90 % inked), or
    one that starts where its first word starts and runs on at most an em past its last (an
    office suite underlines a link's trailing space to the end of its line), 60 % inked?"""
    under = [w for w in near if w.y2 - 0.25 * w.h <= ry <= w.y2 + 0.05 * w.h
             and w.x1 >= rule.x1 - 1.5 and w.x2 <= rule.x2 + 1.5]
    if not under:
        return False
    left, right, inked = min(w.x1 for w in under), max(w.x2 for w in under), sum(w.x2 - w.x1 for w in under)
    if left <= rule.x1 + 1.5 and right >= rule.x2 - 1.5 and inked >= 0.9 * (rule.x2 - rule.x1):
        return True
    em = max(w.h for w in under)
    return abs(left - rule.x1) <= 1.0 and rule.x2 <= right + em and inked >= 0.6 * (rule.x2 - rule.x1)
