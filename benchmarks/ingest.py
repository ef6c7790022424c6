"""Ingest speed through the real service: gunicorn as shipped, concurrent HTTP clients.

Prints single-game uploads per second (one-deal two-player gin games, POST /games) and
deals per second through POST /games/batch (two-player gin and four-player rummy
corpora from the generator).  Clients run in this process, on the same machine.  Each
measurement ends with a read of the ratings, which rates the games the store's rating
catch-up still holds, outside the elapsed time but inside the CPU figures.  Each
figure is followed by the CPU it cost per game in each process (the HTTP workers, the
store process, the verifying pools, the analysis catch-up's process, the clients) and
how busy the machine was.

    python benchmarks/ingest.py
    python benchmarks/ingest.py --singles 3000 --clients 16 --batch-games 1500
    python benchmarks/ingest.py --ratings 0     # the store rates nothing (RUMMY_RATINGS=0)
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.generator import generate_games  # noqa: E402
from tests.e2e.server import Server  # noqa: E402


def corpus(variant: str, games: int, seed: int, players: int, rules: dict | None) -> list[bytes]:
    return [orjson.dumps(g) for g in generate_games(variant, games, seed=seed, players=players,
                                                    rules=rules)]


class Connection:
    """A lean HTTP/1.1 keep-alive client: the clients share the machine with the
    service, and the standard library's client took 0.35-0.45 ms of CPU per request
    here, against 0.13-0.19 ms for this one.  It still reads every answer whole: status
    line, headers, then the body by Content-Length or chunk by chunk, and connects again
    after an answer saying ``Connection: close`` (a batch answered before its body was
    read whole)."""

    def __init__(self, port: int):
        self.port = port
        self.head = f"Host: 127.0.0.1:{port}\r\n".encode()
        self._connect()

    def _connect(self) -> None:
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=300)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.closing = False

    def _open(self) -> None:
        if self.closing:
            self.sock.close()
            self._connect()

    def post(self, path: str, body: bytes, content_type: str) -> tuple[int, bytes]:
        self._open()
        self.sock.sendall(b"".join((
            f"POST {path} HTTP/1.1\r\n".encode(), self.head,
            f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n".encode(),
            body)))
        return self._answer()

    def get(self, path: str) -> tuple[int, bytes]:
        self._open()
        self.sock.sendall(f"GET {path} HTTP/1.1\r\n".encode() + self.head + b"\r\n")
        return self._answer()

    def _answer(self) -> tuple[int, bytes]:
        header = self._until(b"\r\n\r\n")
        status = int(header[9:12])
        fields = {}
        for line in header.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip()
        self.closing = fields.get(b"connection", b"").lower() == b"close"
        if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
            chunks = []
            while size := int(self._until(b"\r\n").split(b";")[0], 16):
                chunks.append(self._exactly(size))
                self._exactly(2)
            self._until(b"\r\n")  # no trailers are sent
            return status, b"".join(chunks)
        return status, self._exactly(int(fields.get(b"content-length", b"0")))

    def _fill(self) -> None:
        data = self.sock.recv(1 << 16)
        if not data:
            raise ConnectionError("the server closed the connection")
        self.buffer += data

    def _until(self, mark: bytes) -> bytes:
        while (end := self.buffer.find(mark)) < 0:
            self._fill()
        found, self.buffer = self.buffer[:end], self.buffer[end + len(mark):]
        return found

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._fill()
        found, self.buffer = self.buffer[:size], self.buffer[size:]
        return found

    def close(self) -> None:
        self.sock.close()


def post_all(port: int, path: str, bodies: list[bytes], content_type: str,
             clients: int) -> tuple[float, list[bytes]]:
    """Send every body with ``clients`` keep-alive connections; seconds and answers."""
    answers: list[bytes] = [b""] * len(bodies)

    def client(k: int) -> None:
        conn = Connection(port)
        for i in range(k, len(bodies), clients):
            status, answers[i] = conn.post(path, bodies[i], content_type)
            if status >= 300:
                raise RuntimeError(f"{status}: {answers[i][:200]!r}")
        conn.close()

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        for job in [pool.submit(client, k) for k in range(clients)]:
            job.result()
    return time.perf_counter() - start, answers


def commit_count(server: Server) -> int:
    _, _, text = server.request("GET", "/api/v1/metrics")
    for line in text.decode().splitlines():
        if line.startswith("rummy_store_commits_total "):
            return int(float(line.split()[1]))  # the exposition may write 24.0
    return -1


def rated(server: Server) -> None:
    """Read the ratings once: the store rates first whatever its catch-up holds still
    (docs/RATINGS.md), so that the CPU of a phase includes the rating of all its games."""
    status, _, _ = server.request("GET", "/api/v1/ratings?limit=1")
    if status != 200:
        raise RuntimeError(f"GET /ratings answered {status}")


class CpuMeter:
    """CPU seconds spent during a measurement by the server's processes, by role, by this
    process (the clients), and how busy the machine was; read from /proc (Linux)."""

    def __init__(self, server: Server):
        self.group = server.process.pid

    def _processes(self) -> dict[int, tuple[str, float]]:
        found = {}
        tick = os.sysconf("SC_CLK_TCK")
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
                cmd = Path(f"/proc/{name}/cmdline").read_bytes()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) != self.group:  # the process group
                continue
            found[int(name)] = (int(fields[1]), cmd, (int(fields[11]) + int(fields[12])) / tick)
        # The store and the verifying pool's dispatcher are both spawned by the master;
        # the dispatcher is the one whose children are spawned too (the pool's processes).
        spawning = {parent for parent, cmd, _ in found.values() if b"spawn_main" in cmd}
        return {pid: (self._role(pid, parent, cmd, pid in spawning), seconds)
                for pid, (parent, cmd, seconds) in found.items()}

    def _role(self, pid: int, parent: int, cmd: bytes, spawns: bool) -> str:
        if b"spawn_main" in cmd:
            if parent != self.group:
                return "pool"
            return "dispatcher" if spawns else "store"
        if pid == self.group:
            return "master"
        if b"service.store.worker" in cmd:
            return "analysis"
        return "worker" if b"gunicorn" in cmd else "other"

    def __enter__(self) -> CpuMeter:
        self.before = self._processes()
        self.client = sum(os.times()[:2])
        self.machine = self._machine()
        return self

    def __exit__(self, *exc: object) -> None:
        after = self._processes()
        self.spent: dict[str, float] = {}
        for pid, (role, seconds) in after.items():
            used = seconds - self.before.get(pid, (role, 0.0))[1]
            self.spent[role] = self.spent.get(role, 0.0) + used
        self.spent["clients"] = sum(os.times()[:2]) - self.client
        busy, steal, total = (b - a for a, b in zip(self.machine, self._machine(),
                                                    strict=True))
        self.busy = busy / total if total else 0.0
        self.steal = steal / total if total else 0.0

    @staticmethod
    def _machine() -> tuple[int, int, int]:
        """Ticks busy (steal included), stolen by the hypervisor, and in all."""
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
        idle = values[3] + values[4]
        steal = values[7] if len(values) > 7 else 0
        return sum(values) - idle, steal, sum(values)

    def per(self, count: int) -> str:
        parts = ", ".join(f"{role} {seconds / count * 1000:.2f} ms"
                          for role, seconds in sorted(self.spent.items()) if seconds > 0)
        return (f"CPU per game: {parts}; machine {self.busy:.0%} busy "
                f"({self.steal:.0%} stolen by the hypervisor)")


SINGLES_TARGET = 300  # single-deal uploads per second, clients included (issue 3)
BATCH_TARGET = 2000  # deals per second through /games/batch


def warm_up(server: Server, games: list[bytes]) -> None:
    """Warm what a running server has warmed already: the paths of both kinds of upload
    in every worker, and the imports of the verifying pool's processes.  The games are
    sent as small batches over many connections, so that every worker takes some; they
    are stored, and a measured upload of the same log would be a re-upload: they come
    from a seed of their own."""
    post_all(server.port, "/api/v1/games/batch", [b"\n".join(games[i:i + 4])
                                                 for i in range(0, len(games), 4)],
             "application/x-ndjson", len(games) // 4)


def deals_in(bodies: list[bytes]) -> int:
    return sum(len(orjson.loads(line)["deals"]) for body in bodies
               for line in body.split(b"\n") if line.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--singles", type=int, default=2000)
    parser.add_argument("--batch-games", type=int, default=2000)
    parser.add_argument("--batch-size", type=int, default=200)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ratings", choices=("1", "0"), default="1",
                        help="RUMMY_RATINGS of the server: 0, the store rates nothing")
    args = parser.parse_args()

    print("generating corpora ...", flush=True)
    singles = corpus("gin", args.singles, args.seed, 2, {"deals": 1})
    batches = {
        "gin 2p": corpus("gin", args.batch_games, args.seed + 1, 2, None),
        "rummy 4p": corpus("rummy", args.batch_games // 2, args.seed + 2, 4, None),
    }
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "bench.duckdb", env={"RUMMY_RATINGS": args.ratings}).start()
        print(f"RUMMY_RATINGS={args.ratings}", flush=True)
        try:
            meter = CpuMeter(server)
            warm_up(server, corpus("gin", 4 * args.clients, args.seed + 100, 2, None))
            with meter:
                seconds, answers = post_all(server.port, "/api/v1/games", singles,
                                            "application/json", args.clients)
                rated(server)
            created = sum(json.loads(a)["created"] for a in answers)
            commits = commit_count(server)
            print(f"single uploads: {len(singles) / seconds:,.0f} games/s "
                  f"({len(singles)} one-deal gin games, {args.clients} clients, "
                  f"{seconds:.1f} s, {created} stored in {commits} commits)")
            print(f"  {meter.per(len(singles))}")
            verdicts = [("single uploads/s", len(singles) / seconds, SINGLES_TARGET)]
            for name, games in batches.items():
                bodies = [b"\n".join(games[i:i + args.batch_size])
                          for i in range(0, len(games), args.batch_size)]
                with meter:
                    seconds, answers = post_all(server.port, "/api/v1/games/batch", bodies,
                                                "application/x-ndjson", min(args.clients, 4))
                    rated(server)
                lines = [json.loads(x) for a in answers for x in a.splitlines()]
                assert all("id" in x for x in lines), [x for x in lines if "id" not in x][:3]
                deals = deals_in(bodies)
                print(f"batch {name}: {deals / seconds:,.0f} deals/s, "
                      f"{len(games) / seconds:,.0f} games/s ({len(games)} games, {deals} deals, "
                      f"batches of {args.batch_size}, {seconds:.1f} s)")
                print(f"  {meter.per(len(games))}")
                verdicts.append((f"batch {name} deals/s", deals / seconds, BATCH_TARGET))
            for what, figure, target in verdicts:
                print(f"target {what} >= {target:,}: {figure:,.0f} "
                      f"{'ok' if figure >= target else 'MISSED'}")
            status, _, body = server.request("GET", "/api/v1/healthz")
            print(f"healthz {status}; database file {server.db.stat().st_size / 2**20:.1f} MiB")
        finally:
            server.stop()


if __name__ == "__main__":
    main()
