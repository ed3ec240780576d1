# Every document the test suite parses is held to the "no word dropped" invariant: a page whose
# layout misses a word of its text layer raises instead of being quietly repaired
# (pipelines/stages/coverage.py), so a regression anywhere fails loudly.
from pipelines.stages import coverage as _coverage

_coverage.set_mode("raise")
