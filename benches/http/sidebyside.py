"""`POST /v1/legal-moves` side by side with a minimal actix-web JSON hello-world.

    python3 benches/http/sidebyside.py            # builds both, 5 rounds of 10 s each, ~3 minutes

Installs wrk (apt-get) when it is missing, builds `sternhalma` and the
hello-world (`benches/http/hello`, into `target/http-hello`) in release, starts
both on free ports with the same number of workers (one per core, as `sternhalma
serve` has by default), and runs interleaved rounds of

    wrk -t2 -c32 -d10s --latency -s benches/http/post.lua URL

against our `POST /v1/legal-moves` (the two-player start, and a middle-game
position) and the hello-world's `POST /echo`, which parses the same JSON body
and answers a small JSON object. Every other round runs the targets in the
reverse order, so each server goes first in turn. It prints a markdown table
per round (req/s, p50, p99, ratio to the hello-world of the same round, server
CPU time per request from /proc, bytes per answer, load average) and the
medians, and writes everything (both servers' commands, the load average at
start and end, each run's wrk numbers and CPU) to
`benches/results/http-sidebyside-<date>.json`.

Our server runs as `sternhalma serve` does by default: log level `info` (the
access log on, written to a file here), the per-client limits on
(`/v1/legal-moves` is a stateless computation, never limited, so the limits
cost it only their check, as in production; `--no-limits` to compare). Every
answer must be a 200: wrk's non-2xx count is recorded and a run with any is
flagged in its table.

Options: `--rounds N`, `--seconds S`, `--connections C`, `--threads T`,
`--workers W` (both servers), `--server PATH` (our binary; default
`target/release/sternhalma`), `--baseline PATH` (another build of ours, e.g. a
copy of the binary before a change, timed in the same rounds: before and after
under the same load), `--sized-hello` (also the hello-world padded to answer as
many bytes as our first position: what the answer's size alone costs),
`--no-build`, `--no-limits`, `--log-level LEVEL`, `--only start,middle`,
`--json PATH`.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
LUA = HERE / "post.lua"
HELLO_MANIFEST = HERE / "hello" / "Cargo.toml"
HELLO_TARGET = ROOT / "target" / "http-hello"
HELLO_BINARY = HELLO_TARGET / "release" / "sternhalma-http-hello"

# The positions of benches/movegen.rs and benches/python_loop.py.
POSITIONS = {
    "start": "star4 classic south:111-120/north:0-9 0 0 -",
    "middle": (
        "star4 classic south:59,64,72,80,81,91,102,105,116,120"
        "/north:5,6,14,17,29,32,38,42,54,90 0 40 -"
    ),
}
HELLO = "hello"
SIZED = "hello, answer as large as ours"
BASELINE = "baseline"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    log("wrk is missing: apt-get install -y --no-install-recommends wrk")
    subprocess.run(
        ["apt-get", "install", "-y", "--no-install-recommends", "wrk"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is still missing after apt-get")
    return found


def build() -> None:
    log("building sternhalma (release) ...")
    subprocess.run(["cargo", "build", "--release", "-p", "sternhalma-api"], cwd=ROOT, check=True)
    log("building the hello-world (release) ...")
    subprocess.run(
        [
            "cargo",
            "build",
            "--release",
            "--manifest-path",
            str(HELLO_MANIFEST),
            "--target-dir",
            str(HELLO_TARGET),
        ],
        cwd=ROOT,
        check=True,
    )


class Server:
    """A server process started on port 0; its URL is the first line of its stdout."""

    def __init__(self, name: str, command: list[str], log_path: Path) -> None:
        self.name = name
        self.command = command
        self.log_path = log_path
        self.log_file = open(log_path, "wb")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=self.log_file, cwd=ROOT
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode().strip()
        if "http://" not in line:
            self.stop()
            sys.exit(f"{name} did not start: {line!r}; see {log_path}")
        self.url = line[line.index("http://") :]

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    def threads(self) -> int:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("Threads:"):
                return int(line.split()[1])
        return 0

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log_file.close()


def post(url: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.status, dict(answer.headers), answer.read()


def loadavg() -> str:
    return Path("/proc/loadavg").read_text().strip()


def run_wrk(wrk: str, args: argparse.Namespace, url: str, body: str, server: Server) -> dict:
    env = dict(os.environ, WRK_BODY=body)
    command = [
        wrk,
        f"-t{args.threads}",
        f"-c{args.connections}",
        f"-d{args.seconds}s",
        "--latency",
        "-s",
        str(LUA),
        url,
    ]
    load_before = loadavg()
    cpu_before = server.cpu_seconds()
    children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    output = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    wall = time.monotonic() - started
    children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = server.cpu_seconds() - cpu_before
    line = next((x for x in output.splitlines() if x.startswith("SIDEBYSIDE ")), None)
    if line is None:
        sys.exit(f"no summary line from wrk:\n{output}")
    summary = json.loads(line.removeprefix("SIDEBYSIDE "))
    requests = summary["requests"]
    wrk_cpu = (children_after.ru_utime - children_before.ru_utime) + (
        children_after.ru_stime - children_before.ru_stime
    )
    return {
        "url": url,
        "requests": requests,
        "req_per_s": requests / (summary["duration_us"] / 1e6),
        "p50_ms": summary["latency_us"]["p50"] / 1000,
        "p90_ms": summary["latency_us"]["p90"] / 1000,
        "p99_ms": summary["latency_us"]["p99"] / 1000,
        "max_ms": summary["latency_us"]["max"] / 1000,
        "mean_ms": summary["latency_us"]["mean"] / 1000,
        "bytes_per_response": summary["bytes"] / max(requests, 1),
        "errors": summary["errors"],
        "server_cpu_s": cpu,
        "server_cpu_us_per_request": cpu * 1e6 / max(requests, 1),
        "wrk_cpu_us_per_request": wrk_cpu * 1e6 / max(requests, 1),
        "wall_s": wall,
        "loadavg_before": load_before,
        "loadavg_after": loadavg(),
    }


def fmt_row(name: str, run: dict, ratio: float | None) -> str:
    bad = sum(run["errors"].values())
    flag = f" ({bad} errors)" if bad else ""
    shown = f"{ratio:.3f}" if ratio is not None else ""
    return (
        f"| {name}{flag} | {run['req_per_s']:,.0f} | {run['p50_ms']:.2f} | {run['p99_ms']:.2f} "
        f"| {shown} | {run['server_cpu_us_per_request']:.1f} "
        f"| {run['bytes_per_response']:.0f} | {run['loadavg_before'].split()[0]} |"
    )


HEADER = (
    "| target | req/s | p50 ms | p99 ms | ratio to hello | server CPU µs/req "
    "| bytes/answer (headers too) | load 1 min |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
)


def git_state() -> dict:
    def git(*arguments: str) -> str:
        result = subprocess.run(
            ["git", *arguments], check=False, cwd=ROOT, capture_output=True, text=True
        )
        return result.stdout.strip()

    return {"commit": git("rev-parse", "HEAD"), "dirty": git("status", "--porcelain") != ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--server", type=Path, default=ROOT / "target" / "release" / "sternhalma")
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--no-limits", action="store_true")
    parser.add_argument("--log-level", default="info")
    parser.add_argument("--only", default=",".join(POSITIONS), help="positions: start,middle")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--baseline", type=Path, help="another build of ours, timed in the same rounds"
    )
    parser.add_argument(
        "--sized-hello",
        action="store_true",
        help="also time the hello-world answering as many bytes as our first position",
    )
    args = parser.parse_args()
    positions = {name: POSITIONS[name] for name in args.only.split(",") if name}

    wrk = ensure_wrk()
    if not args.no_build:
        build()
    for binary in (args.server, HELLO_BINARY, args.baseline):
        if binary is not None and not binary.exists():
            sys.exit(f"{binary} is missing (build it, or drop --no-build)")

    scratch = Path(tempfile.mkdtemp(prefix="http-sidebyside-"))

    def ours_command(binary: Path, database: str) -> list[str]:
        return [
            str(binary),
            "serve",
            "--port",
            "0",
            "--database",
            str(scratch / database),
            "--workers",
            str(args.workers),
            "--log-level",
            args.log_level,
        ] + (["--no-limits"] if args.no_limits else [])

    commands = {"sternhalma": ours_command(args.server, "bench.sqlite3")}
    if args.baseline:
        commands[BASELINE] = ours_command(args.baseline, "baseline.sqlite3")
    commands[HELLO] = [str(HELLO_BINARY), "--port", "0", "--workers", str(args.workers)]
    load_start = loadavg()
    started_at = datetime.datetime.now().astimezone()
    servers: dict[str, Server] = {}
    try:
        for name, command in commands.items():
            servers[name] = Server(name, command, scratch / f"{name}.log")
        # Check that each answers what we think, once, before timing them.
        bodies = {name: json.dumps({"position": text}) for name, text in positions.items()}
        hello_body = bodies["start"] if "start" in bodies else next(iter(bodies.values()))
        checked: dict[str, dict] = {}
        targets = []  # (label, server, url, body)
        hello = servers[HELLO]
        status, _, answer = post(f"{hello.url}/echo", hello_body.encode())
        assert status == 200 and json.loads(answer)["position"], answer
        checked[HELLO] = {"body_bytes": len(answer)}
        targets.append((HELLO, hello, f"{hello.url}/echo", hello_body))
        for server_name in [n for n in commands if n != HELLO]:
            server = servers[server_name]
            suffix = "" if server_name == "sternhalma" else f" ({server_name})"
            for name, body in bodies.items():
                url = f"{server.url}/v1/legal-moves"
                status, headers, answer = post(url, body.encode())
                parsed = json.loads(answer)
                assert status == 200 and parsed["count"] == len(parsed["moves"]), answer[:200]
                label = name + suffix
                checked[label] = {"moves": parsed["count"], "body_bytes": len(answer)}
                log(f"{label}: {parsed['count']} moves, {len(answer)} bytes; {headers}")
                targets.append((label, server, url, body))
        if args.sized_hello:
            size = checked[next(iter(bodies))]["body_bytes"]
            url = f"{hello.url}/echo/{size}"
            _, _, answer = post(url, hello_body.encode())
            checked[SIZED] = {"body_bytes": len(answer)}
            targets.insert(1, (SIZED, hello, url, hello_body))

        rounds = []
        for index in range(args.rounds):
            order = targets if index % 2 == 0 else targets[::-1]
            runs = {}
            for label, server, url, body in order:
                log(f"round {index + 1}: {label} ...")
                runs[label] = run_wrk(wrk, args, url, body, server)
            ratios = {
                label: runs[label]["req_per_s"] / runs[HELLO]["req_per_s"]
                for label in runs
                if label != HELLO
            }
            rounds.append(
                {"round": index + 1, "order": [t[0] for t in order], "runs": runs, "ratios": ratios}
            )
            print(f"\n### Round {index + 1} (first: {order[0][0]})\n\n{HEADER}")
            for label, *_ in order:
                print(fmt_row(label, runs[label], ratios.get(label)))
            sys.stdout.flush()
        threads = {name: server.threads() for name, server in servers.items()}
    finally:
        for server in servers.values():
            server.stop()
    load_end = loadavg()

    labels = [t[0] for t in targets]
    medians = {}
    for label in labels:
        runs = [r["runs"][label] for r in rounds]
        medians[label] = {
            key: statistics.median(run[key] for run in runs)
            for key in (
                "req_per_s",
                "p50_ms",
                "p99_ms",
                "server_cpu_us_per_request",
                "wrk_cpu_us_per_request",
                "bytes_per_response",
            )
        }
        if label != HELLO:
            medians[label]["ratio"] = statistics.median(r["ratios"][label] for r in rounds)
            medians[label]["ratio_of_medians"] = (
                medians[label]["req_per_s"] / medians[HELLO]["req_per_s"]
            )
    print(f"\n### Medians over {args.rounds} rounds\n")
    print(
        "| target | req/s | p50 ms | p99 ms | median ratio | server CPU µs/req | wrk CPU µs/req |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    )
    for label in labels:
        m = medians[label]
        ratio = f"{m['ratio']:.3f}" if "ratio" in m else ""
        print(
            f"| {label} | {m['req_per_s']:,.0f} | {m['p50_ms']:.2f} | {m['p99_ms']:.2f} | {ratio} "
            f"| {m['server_cpu_us_per_request']:.1f} | {m['wrk_cpu_us_per_request']:.1f} |"
        )
    print(f"\nload average at start: {load_start}; at end: {load_end}")

    result = {
        "started_at": started_at.isoformat(timespec="seconds"),
        "machine": {
            "nproc": os.cpu_count(),
            "cpu": cpu_model(),
            "kernel": platform.release(),
        },
        "git": git_state(),
        "settings": {
            "wrk": f"wrk -t{args.threads} -c{args.connections} -d{args.seconds}s --latency",
            "rounds": args.rounds,
            "workers": args.workers,
            "commands": commands,
            "limits": not args.no_limits,
            "log_level": args.log_level,
        },
        "positions": positions,
        "checked": checked,
        "binaries": {name: describe_binary(Path(command[0])) for name, command in commands.items()},
        "server_threads": threads,
        "loadavg_start": load_start,
        "loadavg_end": load_end,
        "rounds": rounds,
        "medians": medians,
    }
    path = args.json or (
        ROOT / "benches" / "results" / f"http-sidebyside-{started_at:%Y-%m-%d-%H%M}.json"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    log(f"wrote {path}")
    shutil.rmtree(scratch, ignore_errors=True)


def describe_binary(path: Path) -> dict:
    """Which build a run timed: its path, modification time and SHA-256."""
    data = path.read_bytes()
    modified = datetime.datetime.fromtimestamp(path.stat().st_mtime).astimezone()
    return {
        "path": str(path),
        "modified": modified.isoformat(timespec="seconds"),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


if __name__ == "__main__":
    main()
