"""The Posse draft of Red Dog Junction under rules version 5 (the deck dealt as its last
shuffle pass lands: the last joiner peels in its join, the host in the start, the other
deal peels in rounds; the opens one round, one of its entries drawing the rest of
set-up) against version 4 (dealt at the start, its peels one after another; the first
open alone, drawing): hops, deck work in the save, the last join's size and the time to verify.

    python bench/bench_earlydeal.py [--quick] [--players N]

Both drafts are the same greedy-bot game of bench_hops.py (fixed identities and entropy),
cut at the entry that shows the last pick (bench_onestep.draft_save). Verify is
`engine.replay` of that save, CPU time, the two timed in turn (common.paired_times).
"""

from __future__ import annotations

import bench_onestep

if __name__ == "__main__":
    bench_onestep.main((4, 5), __doc__)
