"""Where a running server's CPU goes per request, by category, under wrk load.

    python3 benches/http/profile.py --pid PID --url http://127.0.0.1:PORT/v1/legal-moves

Runs `wrk -t2 -c32` with `benches/http/post.lua` (body: `--body`, by default
the two-player start as `/v1/legal-moves` takes it) against URL, and meanwhile
`perf record -F 999 --call-graph dwarf -p PID` for `--seconds`. Each sample
goes to the first category (table below) that a frame of its stack names,
from the innermost frame out; the share of samples times the server's CPU per
request (from /proc, over the whole wrk run) gives µs per request. perf's
unwinding itself adds about a fifth to the CPU per request. The breakdown of
benches/http/NOTES.md was made this way. Needs perf (/usr/bin/perf) and wrk.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
START = '{"position": "star4 classic south:111-120/north:0-9 0 0 -"}'

# (category, substrings or patterns of a frame's symbol), tried in this order
# on each frame.
CATEGORIES = [
    (
        "access log",
        ["middleware::logger", "tracing_", "LogTracer", "log::__private_api", "Stderr"]
        + ["FormatText"],
    ),
    ("access log: ConnectionInfo", ["ConnectionInfo"]),
    ("metrics", ["actix_web_prom", "prometheus::"]),
    ("per-client limits", ["clients::enforce", "ClientLimits"]),
    ("standard methods", ["standard_methods_only"]),
    (
        "position parsed and validated",
        ["sternhalma::wire::position", "PositionInput::resolve", "notation::"]
        + ["Setup::validate", "from_checked"],
    ),
    ("legal moves", ["movegen::.*legal_moves", "movegen::.*generate", "unrestricted"]),
    ("witness paths", ["witness_path"]),
    (
        "move views (after: views, paths and bytes)",
        ["MoveView", "Move as core::fmt::Display", "Played"],
    ),
    ("outcome", ["OutcomeView", "outcome::", "finishers"]),
    (
        "answer serialised",
        ["serde_json::ser", "Serialize for", "as serde_core::ser::Serialize"]
        + ["Json<T> as actix_web::responder", "respond_to"],
    ),
    (
        "request JSON extracted",
        ["JsonBody", "JsonExtractFut", "Json<T> as actix_web::extract", "serde_json::de"]
        + ["Object<T> as serde", "wire::whole"],
    ),
    ("handler, rest", ["routes::play::legal_moves"]),
    (
        "actix routing, services, extractors",
        ["actix_router", "AppRouting", "AppInitService", "ResourceService", "handler_service"],
    ),
    (
        "HTTP/1 read and parse",
        ["h1::decoder", "Codec as tokio_util::codec::decoder", "MessageDecoder"]
        + ["read_available", "poll_read_buf", "__libc_recv", "PollEvented<E>::poll_read"],
    ),
    (
        "HTTP/1 write, TCP send (kernel)",
        ["h1::encoder", "Codec as tokio_util::codec::encoder", "poll_flush", "__libc_send"]
        + ["send_response"],
    ),
    (
        "runtime: epoll, park, timers",
        ["epoll_wait", "Driver::turn", "park", "tokio::runtime::time"],
    ),
]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stacks(perf_script: str):
    frames: list[str] = []
    for line in perf_script.splitlines():
        if not line.strip() or not line[0].isspace():
            if frames:
                yield frames
            frames = []
            continue
        parts = line.strip().split(None, 1)
        frames.append(parts[1] if len(parts) > 1 else "?")
    if frames:
        yield frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--body", default=START)
    parser.add_argument("--seconds", type=int, default=6)
    args = parser.parse_args()
    compiled = [(name, re.compile("|".join(patterns))) for name, patterns in CATEGORIES]
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch) / "perf.data"
        before = cpu_seconds(args.pid)
        wrk = subprocess.Popen(
            [
                "wrk",
                "-t2",
                "-c32",
                f"-d{args.seconds + 2}s",
                "-s",
                str(HERE / "post.lua"),
                args.url,
            ],
            env=dict(os.environ, WRK_BODY=args.body),
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(1)
        subprocess.run(
            ["perf", "record", "-F", "999", "--call-graph", "dwarf,32768", "-p", str(args.pid)]
            + ["-o", str(data), "--", "sleep", str(args.seconds)],
            check=True,
            capture_output=True,
        )
        output, _ = wrk.communicate()
        cpu = cpu_seconds(args.pid) - before
        summary = next(x for x in output.splitlines() if x.startswith("SIDEBYSIDE "))
        requests = int(re.search(r'"requests": (\d+)', summary).group(1))
        script = subprocess.run(
            ["perf", "script", "-i", str(data), "-F", "ip,sym", "--no-inline"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    per_request = cpu * 1e6 / requests
    counts: collections.Counter[str] = collections.Counter()
    for frames in stacks(script):
        category = next(
            (name for frame in frames for name, rx in compiled if rx.search(frame)), "rest"
        )
        counts[category] += 1
    total = sum(counts.values())
    print(f"{requests} requests, {per_request:.1f} µs of server CPU each, {total} samples\n")
    print("| category | share | µs per request |\n| --- | ---: | ---: |")
    for name, count in counts.most_common():
        print(f"| {name} | {100 * count / total:.1f} % | {per_request * count / total:.1f} |")


if __name__ == "__main__":
    main()
