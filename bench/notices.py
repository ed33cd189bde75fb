#!/usr/bin/env python3
"""Controller round time without notice receivers vs with a receiver that never answers.

One real nats-server and S streams with a consumer each. Two controllers reconcile the same
manifests: one has no receivers, the other sends every notice to a receiver that accepts the TCP
connection and never replies (each request waits for its timeout, then is retried). Before each
round, K consumers are deleted behind the controllers' backs, so that every round heals drift and
tells it (a ``drift.healed`` notice per round, queued behind the stuck ones). The rounds of the two
controllers alternate in the same run (with a third controller without receivers, whose ratio to the
first is the run's noise); prints the median round time of each and the ratio (the target is
<= 1.05: a dead receiver must not delay reconciling).

    python bench/notices.py [--streams 20] [--rounds 45] [--drift 3]
"""

from __future__ import annotations

import argparse
import io
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # tests/natsserver.py imports its neighbours as top-level modules

from jsops.linter.config import Config, NoticeReceiver, Notices, SecretRef  # noqa: E402
from jsops.reconciler.client import Target  # noqa: E402
from jsops.reconciler.controller.events import EventLog  # noqa: E402
from jsops.reconciler.controller.loop import Controller, ControllerOptions  # noqa: E402
from tests.natsserver import NatsServer  # noqa: E402
from tests.reconciler.helpers import Js  # noqa: E402


class _Silent:
    """A TCP listener that accepts every connection and never answers (nor reads)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.held: list[socket.socket] = []
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)

    def close(self) -> None:
        self.sock.close()
        for c in self.held:
            c.close()


def _manifests(folder: Path, streams: int) -> None:
    docs = []
    for i in range(streams):
        docs.append(
            f"apiVersion: jsops/v1\nkind: Stream\nmetadata: {{name: S{i}}}\nspec: {{subjects: ['s{i}.>'], max_age: 1h}}\n"
        )
        docs.append(
            f"apiVersion: jsops/v1\nkind: Consumer\nmetadata: {{name: c, stream: S{i}}}\nspec: {{ack_wait: 30s}}\n"
        )
    (folder / "estate.yaml").write_text("---\n".join(docs))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=45)
    ap.add_argument("--drift", type=int, default=3, help="consumers deleted before each round")
    args = ap.parse_args()
    silent = _Silent()
    with tempfile.TemporaryDirectory() as tmp, NatsServer() as server:
        root = Path(tmp)
        (root / "m").mkdir()
        _manifests(root / "m", args.streams)
        (root / "dead.url").write_text(f"http://127.0.0.1:{silent.port}/hook\n")
        dead = Notices(receivers=[NoticeReceiver(name="dead", url=SecretRef(file="dead.url"), timeout=5.0)], queue=100)
        controllers = {}
        # "none2" is a second controller without receivers: the ratio none2 / none is the noise of the run
        for name, cfg in (
            ("none", Config(root=tmp)),
            ("dead", Config(notices=dead, root=tmp)),
            ("none2", Config(root=tmp)),
        ):
            opt = ControllerOptions(paths=[str(root / "m")], listen=None, lease=False, config=cfg, identity=name)
            controllers[name] = Controller(opt, Target(servers=(server.url,)), log=EventLog(io.StringIO()))
        js = Js(server.url)
        try:
            for ctl in controllers.values():  # converge, and both controllers have applied the revision
                ctl.round()
                ctl.round()
            times: dict[str, list[float]] = {n: [] for n in controllers}
            cpu: dict[str, list[float]] = {
                n: [] for n in controllers
            }  # the round's thread's CPU time: less noisy on a shared machine
            for r in range(args.rounds):
                items = list(controllers.items())
                order = items[r % 3 :] + items[: r % 3]  # each controller goes first, second and third in turn
                for name, ctl in order:
                    for k in range(args.drift):
                        js.ok(f"$JS.API.CONSUMER.DELETE.S{(r * args.drift + k) % args.streams}.c")
                    start, start_cpu = time.perf_counter(), time.thread_time()
                    ok = ctl.round()
                    times[name].append(time.perf_counter() - start)
                    cpu[name].append(time.thread_time() - start_cpu)
                    assert ok, f"round {r} of {name} failed"
            metrics = controllers["dead"].metrics
            queued = metrics.get("notices_queued", "dead")
            sent = metrics.get("notices_total", "dead", "sent")
        finally:
            js.close()
            for ctl in controllers.values():
                ctl.close()
            silent.close()
    med = {n: statistics.median(t) for n, t in times.items()}
    print(f"streams={args.streams} consumers={args.streams} rounds={args.rounds} (each) drift per round={args.drift}")
    print(
        f"no receivers:                 median round {med['none'] * 1000:8.1f} ms  (min {min(times['none']) * 1000:.1f}, max {max(times['none']) * 1000:.1f})"
    )
    print(
        f"a receiver that never answers: median round {med['dead'] * 1000:8.1f} ms  (min {min(times['dead']) * 1000:.1f}, max {max(times['dead']) * 1000:.1f})"
    )
    print(f"notices waiting for the dead receiver at the end: {queued:.0f}, sent: {sent:.0f}")
    print(f"no receivers (a second one):  median round {med['none2'] * 1000:8.1f} ms")
    print(
        f"ratio dead / none: {med['dead'] / med['none']:.3f}  (target <= 1.05); noise none2 / none: {med['none2'] / med['none']:.3f}"
    )
    mcpu = {n: statistics.median(t) for n, t in cpu.items()}
    print(
        f"round thread CPU, median: none {mcpu['none'] * 1000:.1f} ms, dead {mcpu['dead'] * 1000:.1f} ms, none2 {mcpu['none2'] * 1000:.1f} ms"
    )
    print(
        f"CPU ratio dead / none: {mcpu['dead'] / mcpu['none']:.3f}; noise none2 / none: {mcpu['none2'] / mcpu['none']:.3f}"
    )
    both = statistics.median([*times["none"], *times["none2"]])
    print(f"ratio dead / both controllers without receivers: {med['dead'] / both:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
