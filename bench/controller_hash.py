#!/usr/bin/env python3
"""Controller revision id: hashing every manifest each round vs only the files whose stat changed.

Generates N manifest files, then times ``_content_id`` (the id the controller computes each round)
cold (every file read and hashed: what each round cost before the stat cache), warm (nothing
changed: no file read), and with one file changed. Prints the times and the ratios to the cold
run measured in the same process.

    python bench/controller_hash.py [--files 2000] [--kib 8] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jsops.reconciler.controller import source


def _time(fn: object, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--kib", type=int, default=8, help="size of each file")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i in range(args.files):
            p = Path(d) / f"s{i:05d}.yaml"
            p.write_text((f"# {i}\n" + "#" * 79 + "\n") * (args.kib * 1024 // 80))
            files.append(str(p))

        def cold() -> None:
            source._DIGESTS.clear()
            source._content_id(files, None)

        cold_s = _time(cold, args.repeat)
        source._content_id(files, None)
        warm_s = _time(lambda: source._content_id(files, None), args.repeat)
        changed = Path(files[len(files) // 2])

        def one_changed() -> None:
            changed.write_bytes(changed.read_bytes()[::-1])
            source._content_id(files, None)

        one_s = _time(one_changed, args.repeat)
    print(f"files={args.files} size={args.kib} KiB")
    print(f"cold (every file hashed, the old cost of each round): {cold_s * 1000:8.1f} ms")
    print(f"warm (nothing changed):                              {warm_s * 1000:8.1f} ms  ratio {warm_s / cold_s:.3f}")
    print(f"one file changed:                                    {one_s * 1000:8.1f} ms  ratio {one_s / cold_s:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
