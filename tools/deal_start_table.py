"""Write ``service/analysis/deal_start.json``: the mean least deadwood of a dealt hand.

Run once from the repository's root (``python tools/deal_start_table.py``); the table is
committed with the package.  Each entry is ``service.analysis.deal_start.estimate`` of
one option set: exact for hands of up to three cards, else a mean over seeded random
hands, so the same run writes the same file.  ``--jobs N`` spreads the work over N
processes.
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from service.analysis import deal_start as D
from service.engine.rules import ACE_MODES

OUT = Path(__file__).resolve().parent.parent / "service" / "analysis" / D.TABLE_FILE


def option_sets() -> list[tuple[str, int, int]]:
    sets = {(str(ace), points, size) for ace in ACE_MODES for points in D.ACE_POINTS
            for size in D.HAND_SIZES}
    return sorted(sets)


def entry(option_set: tuple[str, int, int]) -> tuple[str, dict]:
    ace, points, size = option_set
    samples = D.PRESET_SAMPLES if option_set in D.PRESET_SETS else D.SAMPLES
    mean, error, hands = D.estimate(ace, points, size, samples)
    return D.key(ace, points, size), {"mean": round(mean, 4), "stderr": round(error, 4),
                                      "hands": hands}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    with ProcessPoolExecutor(args.jobs) as pool:
        means = dict(pool.map(entry, option_sets(), chunksize=4))
    OUT.write_text(render(means), encoding="utf-8")
    print(f"wrote {len(means)} entries to {OUT.name}")


def render(means: dict[str, dict]) -> str:
    """The file's text: a header, then one entry a line, sorted by key."""
    head = {"what": "mean least deadwood of a dealt hand, by ace/ace_points/hand_size",
            "exact_up_to": D.EXACT_UP_TO, "samples": D.SAMPLES,
            "preset_samples": D.PRESET_SAMPLES}
    lines = [f"  {json.dumps(k)}: {json.dumps(means[k])}" for k in sorted(means)]
    return (json.dumps(head)[:-1] + ', "means": {\n' + ",\n".join(lines) + "\n}}\n")


if __name__ == "__main__":
    main()
