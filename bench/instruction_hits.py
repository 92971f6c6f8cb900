"""How often the instruction scan (engine/text/instructions.py) fires on real documents: every
distinct document (title and text) of the data files, each scanned as the pipeline scans it. A hit
on these retrieval corpora is a false positive (they hold no prompt injections).

`python -m vericite.bench.instruction_hits [FILES...]` (default: ../shared/data/*.jsonl) prints each
hit and a last line "H hits on N documents".
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from vericite.engine.config.paths import shared_dir
from vericite.engine.errors import InputError
from vericite.engine.text.instructions import find_instructions

from .datasets import load_demos, load_items


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vericite.bench.instruction_hits", description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="JSONL data files (default: ../shared/data/*.jsonl)")
    args = ap.parse_args(argv)
    files = [Path(f) for f in args.files] or sorted((shared_dir() / "data").glob("*.jsonl"))
    seen: set[tuple[str, str]] = set()
    hits, t0 = 0, time.perf_counter()
    for path in files:
        try:
            items = load_demos(path, ndoc=1000) if path.name.endswith("_demos.jsonl") else load_items(path, ndoc=1000)
        except InputError as e:  # the *_nodocs files hold no documents
            print(f"skipped: {e}", file=sys.stderr)
            continue
        lang = "ru" if path.name.startswith("ru_") else "en"
        for item in items:
            for d in item["docs"]:
                if (d.title, d.text) in seen:
                    continue
                seen.add((d.title, d.text))
                for s in find_instructions(d.title, lang) + find_instructions(d.text, lang):
                    hits += 1
                    print(f"{path.name}: {s[:200]!r}")
    print(f"{hits} hits on {len(seen)} documents ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
