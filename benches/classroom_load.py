"""How many students one machine holds: a class of `scripts/classroom`
under notebook 4's MCTS, every student at once (issue 48, item 6).

    sudo /var/cache/sternhalma-classroom/venv/bin/python benches/classroom_load.py \\
        --students 1,2,4,8,16 --runs 3 --out /tmp/classroom-load.json
    /var/cache/sternhalma-classroom/venv/bin/python benches/classroom_load.py \\
        --report /tmp/classroom-load.json          # the table again, from the JSON

For each number of students N (`--students`, a list; default 8) and each run
(`--runs`), a fresh throwaway class, as tests/classroom/run.sh makes one:
`scripts/classroom up` with N accounts named for the run on a free port of
127.0.0.1, in a temporary folder, with the hub's software from `--tools`;
removed at the end whatever happens (`down`, the accounts' processes killed,
`userdel -r`, the folder). Then, for every student at once, as a browser
does it over HTTP:

1. the login form (`_xsrf` from the page's cookie; the first login sets the
   password), which sends the student to the spawn; the spawn's progress
   stream (as the spawn-pending page reads it) until the server is ready;
   JupyterLab's page (the OAuth round trip into the server, its `_xsrf`);
   a kernel through the server's REST API (`POST /user/NAME/api/kernels`,
   cookie and `X-XSRFToken`); its websocket (`.../channels`) and
   `import sternhalma` in it. The time from the login's POST to that cell's
   answer is the student's "login to a running kernel";
2. once every student has that kernel, a pause of `--settle` seconds, then
   each student's memory: the resident set (RSS) of all the processes of
   the student's uid, as `scripts/classroom status` counts it (its own
   functions, reading /proc), split into the kernel and the rest (the
   server), and the same as proportional sets (PSS: a page shared by k
   processes counts 1/k, so the shared libraries of the one venv are not
   counted once per student); also the memory of the hub, its proxy, the
   idle culler and the game server;
3. the load: every student's kernel runs the code cells of notebook 4
   (the instructor's version, notebooks/source/04_mcts/04_mcts.ipynb: the
   solutions, and the `check(...)` cells a student's Validate runs), in
   order, all students starting at the same moment, after one warm-up cell
   that imports matplotlib (a student at notebook 4 has imported it in
   earlier notebooks, which builds matplotlib's font cache once per
   account). Per student: the wall time of the whole notebook, its kernel's
   CPU seconds, its cgroup's CPU throttling and peak memory (cgroup v1).
   Every second, during all of it: every student's memory, the machine's
   load average, CPU use and used memory (MemTotal - MemAvailable).

Before each N's runs it waits until no `cargo` or `rustc` runs and takes an
exclusive lock on /tmp/sternhalma-quiet.lock (flock), released after that
N's last run, so that other engineers' tests and builds that take the lock
do not overlap the measurement and may run between two N.

It prints a table per N and what follows from it (memory per student, the
time to a kernel, notebook 4's wall time against N, the students that fit by
memory and by CPU); the JSON (`--out`, default under /tmp) holds every raw
figure and every sample. It measures only: its exit status does not depend
on the figures. Run it as root with the hub's venv (the standard library and
websocket-client, which JupyterLab brings), on a machine where
`scripts/classroom up` works (target/release/sternhalma and a wheel in dist/,
or `--server` and `--wheel`).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import html
import http.cookiejar
import importlib.machinery
import importlib.util
import json
import os
import platform
import pwd
import queue
import re
import resource
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

try:
    import websocket  # websocket-client, in the hub's venv (JupyterLab's)
except ImportError:  # --report needs none
    websocket = None

REPO = Path(__file__).resolve().parent.parent
CLASSROOM = REPO / "scripts" / "classroom"
NOTEBOOK = REPO / "notebooks" / "source" / "04_mcts" / "04_mcts.ipynb"
DEFAULT_TOOLS = Path("/var/cache/sternhalma-classroom")
QUIET_LOCK = Path("/tmp/sternhalma-quiet.lock")
# Builds that would share the two cores with the measurement.
BUILDS = ("cargo", "rustc", "clippy-driver", "rustdoc")
GAME_USER = "sternhalma-game"
MIB = 2**20
GIB = 2**30
# The requests JupyterLab 4 sends its server at start, before a notebook is
# opened: every extension's settings, the kernel specs, the sessions and
# kernels running, the home folder's listing.
LAB_STARTUP = (
    "/lab/api/settings",
    "/api/kernelspecs",
    "/api/sessions",
    "/api/kernels",
    "/api/contents?content=1",
)
# A run during which other processes kept more than this many cores busy on
# average (logins and notebook 4) is set aside and run again.
OTHER_LIMIT = 0.2
# What "notebook 4 still works for a class" allows: a run at most this many
# times as long as alone (BENCHMARKS.md says why 3).
SLOWDOWN_LIMIT = 3.0


def load_classroom():
    """scripts/classroom as a module (a file without `.py`): its /proc
    readers, so memory is counted exactly as `status` counts it."""
    loader = importlib.machinery.SourceFileLoader("classroom_command", str(CLASSROOM))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # its dataclasses look themselves up there
    loader.exec_module(module)
    return module


def say(message: str = "") -> None:
    print(message, flush=True)


def now() -> float:
    return time.monotonic()


# -- The machine -----------------------------------------------------------------


def meminfo() -> dict[str, int]:
    found = {}
    for line in Path("/proc/meminfo").read_text().splitlines():
        name, _, rest = line.partition(":")
        found[name] = int(rest.split()[0]) * 1024
    return found


def used_memory() -> int:
    info = meminfo()
    return info["MemTotal"] - info["MemAvailable"]


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def cpu_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    total = sum(fields[:8])  # without guest time, which user time includes
    return total - idle, total


def machine() -> dict:
    model = ""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    return {
        "cpu": model,
        "cpus": os.cpu_count(),
        "memory_total": meminfo()["MemTotal"],
        "kernel": platform.release(),
        "python": platform.python_version(),
        "hostname": socket.gethostname(),
    }


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def git_commit() -> str:
    done = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
        check=False,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


# -- Processes ----------------------------------------------------------------------

TICKS = os.sysconf("SC_CLK_TCK")


def stat_of(pid: int) -> tuple[int, float, float] | None:
    """(parent pid, CPU seconds, start in seconds since boot) of a process,
    or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS, int(fields[19]) / TICKS


def uptime() -> float:
    return float(Path("/proc/uptime").read_text().split()[0])


def pss_of(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def all_pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def descendants(roots: list[int]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid in all_pids():
        found = stat_of(pid)
        if found:
            children.setdefault(found[0], []).append(pid)
    seen: set[int] = set()
    todo = [r for r in roots if r]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(children.get(pid, []))
    return seen


def is_kernel(command: str) -> bool:
    return "ipykernel_launcher" in command or "ipykernel " in command


def builds_running() -> list[str]:
    """The builds running now (by process name, as `pgrep -x` matches)."""
    found = []
    for pid in all_pids():
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if name in BUILDS:
            found.append(f"{pid} {name}")
    return found


def wait_until_idle() -> float:
    """Waits until no build runs and the machine's cores were busy less than
    OTHER_LIMIT (in cores) over 5 s: other engineers' tests that do not take
    the lock. Returns the seconds waited."""
    started = now()
    while True:
        busy, total = cpu_jiffies()
        time.sleep(5)
        busy2, total2 = cpu_jiffies()
        cores = (busy2 - busy) / max(1, total2 - total) * (os.cpu_count() or 1)
        if cores < OTHER_LIMIT and not builds_running():
            return round(now() - started, 1)
        time.sleep(10)


@contextlib.contextmanager
def quiet_machine(record: dict):
    """No build running, and the lock other engineers' tests take: held for
    the block, released after it."""
    started = now()
    while builds_running():
        time.sleep(10)
    record["waited_for_builds_seconds"] = round(now() - started, 1)
    handle = os.open(QUIET_LOCK, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        started = now()
        fcntl.flock(handle, fcntl.LOCK_EX)
        record["waited_for_lock_seconds"] = round(now() - started, 1)
        # A build started meanwhile by someone who does not take the lock.
        started = now()
        while builds_running():
            time.sleep(10)
        record["waited_for_builds_after_lock_seconds"] = round(now() - started, 1)
        yield
    finally:
        fcntl.flock(handle, fcntl.LOCK_UN)
        os.close(handle)


# -- A throwaway class, as tests/classroom/run.sh makes one -------------------------


class ThrowawayClass:
    """`scripts/classroom up` with `count` accounts named for this run, in a
    temporary folder; `close()` removes everything whatever happened."""

    def __init__(self, count: int, args: argparse.Namespace) -> None:
        self.args = args
        suffix = secrets.token_hex(3)
        self.students = [f"s{i:02d}_{suffix}" for i in range(1, count + 1)]
        self.teacher = f"teacher_{suffix}"
        self.work = Path(tempfile.mkdtemp(prefix="sternhalma-classroom-load.", dir="/tmp"))
        os.chmod(self.work, 0o755)  # students' servers read the class's settings in it
        self.dir = self.work / "class"
        self.game_user_existed = account(GAME_USER) is not None
        self.port = 0
        self.settings: dict = {}
        # What the cleanup needs, and a guardian that runs it if this
        # process ends without (killed, or its cleanup cut short).
        (self.work / "cleanup.json").write_text(
            json.dumps(
                {
                    "accounts": [*self.students, self.teacher],
                    "game_user_existed": self.game_user_existed,
                }
            )
        )
        subprocess.Popen(
            ["/usr/bin/python3", "-c", GUARDIAN, str(os.getpid()), str(self.work), __file__],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def up(self) -> float:
        roster = self.work / "roster.csv"
        roster.write_text(
            "username,name\n"
            + "".join(f"{name},Student {i}\n" for i, name in enumerate(self.students, 1))
        )
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        command = [
            str(CLASSROOM),
            "up",
            "--students",
            str(roster),
            "--dir",
            str(self.dir),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--teacher",
            self.teacher,
            "--exchange",
            str(self.work / "exchange"),
            "--tools",
            str(self.args.tools),
            "--memory",
            self.args.memory,
            "--cpus",
            str(self.args.cpus),
            "--limits",
            self.args.limits,
        ]
        if self.args.wheel:
            command += ["--wheel", str(self.args.wheel)]
        if self.args.server:
            command += ["--server", str(self.args.server)]
        started = now()
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        took = now() - started
        (self.work / "up.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-25:])
            raise RuntimeError(f"scripts/classroom up failed ({done.returncode}):\n{tail}")
        self.settings = json.loads((self.dir / "hub" / "class.json").read_text())
        return took

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cgroup(self, controller: str, student: str) -> Path | None:
        if self.settings.get("limit_mode") != "cgroup":
            return None
        parent = self.settings["cgroups"].get(controller)
        if not parent:
            return None
        return Path(parent) / f"sternhalma-{self.settings['class_id']}" / student

    def infrastructure_pids(self, student_uids: set[int]) -> set[int]:
        """The hub, its proxy, the idle culler, the game server: the hub's
        and the proxy's processes not run as a student."""
        hub = self.dir / "hub"
        roots = []
        for name in ("jupyterhub.pid", "proxy.pid"):
            try:
                roots.append(int((hub / name).read_text().strip()))
            except (OSError, ValueError):
                pass
        found = set()
        for pid in descendants(roots):
            try:
                if os.stat(f"/proc/{pid}").st_uid not in student_uids:
                    found.add(pid)
            except OSError:
                pass
        return found

    def close(self) -> None:
        cleanup(self.work)


def cleanup(work: Path) -> None:
    """As run.sh's trap: `down`, the accounts' processes killed, the
    accounts and their homes removed, the class's cgroups removed (`down`
    leaves a group whose processes were still ending), the folder removed.
    Safe to run twice."""
    try:
        saved = json.loads((work / "cleanup.json").read_text())
    except (OSError, ValueError):
        return
    settings_file = work / "class" / "hub" / "class.json"
    settings = {}
    if settings_file.exists():
        settings = json.loads(settings_file.read_text())
        subprocess.run(
            [str(CLASSROOM), "down", "--dir", str(work / "class")],
            check=False,
            capture_output=True,
        )
    for name in saved["accounts"]:
        if account(name) is None:
            continue
        found = subprocess.run(["pgrep", "-u", name], check=False, capture_output=True)
        for pid in found.stdout.split():
            with contextlib.suppress(ProcessLookupError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        subprocess.run(["userdel", "-r", name], check=False, capture_output=True)
    if not saved["game_user_existed"] and account(GAME_USER) is not None:
        subprocess.run(["userdel", GAME_USER], check=False, capture_output=True)
    if settings.get("limit_mode") == "cgroup":
        for parent in settings["cgroups"].values():
            group = Path(parent) / f"sternhalma-{settings['class_id']}"
            for folder in [*group.glob("*/"), group]:
                with contextlib.suppress(OSError):
                    folder.rmdir()
    shutil.rmtree(work, ignore_errors=True)


# Run by a process of its own, in a session of its own: waits for this
# script's process to end, then cleans up its class if it did not.
GUARDIAN = """
import os, subprocess, sys, time
pid, work, script = int(sys.argv[1]), sys.argv[2], sys.argv[3]
while os.path.isdir(work):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        subprocess.run([sys.executable, script, "--cleanup", work], check=False)
        break
    time.sleep(1)
"""


def account(name: str) -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


# -- Memory of the class --------------------------------------------------------------


class Meter:
    """Each student's memory (their uid's processes, as `status` counts
    them), the class's own servers', and the machine's."""

    def __init__(self, classroom, klass: ThrowawayClass) -> None:
        self.classroom = classroom
        self.klass = klass
        self.uids = {pwd.getpwnam(n).pw_uid: n for n in klass.students}
        self._infra: set[int] = set()
        self._infra_at = 0.0

    def students(self) -> dict[str, dict]:
        found = {
            name: {"rss": 0, "pss": 0, "kernel_rss": 0, "kernel_pss": 0, "processes": 0}
            for name in self.uids.values()
        }
        for pid, uid, command in self.classroom.processes_of(set(self.uids)):
            mine = found[self.uids[uid]]
            rss, pss = self.classroom.rss_of(pid), pss_of(pid)
            mine["rss"] += rss
            mine["pss"] += pss
            mine["processes"] += 1
            found_stat = stat_of(pid)
            mine["cpu"] = round(mine.get("cpu", 0.0) + (found_stat[1] if found_stat else 0.0), 2)
            if is_kernel(command):
                mine["kernel_rss"] += rss
                mine["kernel_pss"] += pss
        return found

    def infrastructure(self) -> dict:
        if now() - self._infra_at > 0.9:
            self._infra = self.klass.infrastructure_pids(set(self.uids))
            self._infra_at = now()
        rss = sum(self.classroom.rss_of(p) for p in self._infra)
        pss = sum(pss_of(p) for p in self._infra)
        cpu = sum(found[1] for found in map(stat_of, self._infra) if found)
        return {"rss": rss, "pss": pss, "processes": len(self._infra), "cpu": round(cpu, 2)}

    def class_pids(self) -> set[int]:
        """Every process of the class: the students' and the infrastructure's."""
        return {pid for pid, _, _ in self.classroom.processes_of(set(self.uids))} | self._infra

    def kernel_cpu(self, name: str) -> float:
        uid = pwd.getpwnam(name).pw_uid
        total = 0.0
        for pid, _, command in self.classroom.processes_of({uid}):
            if is_kernel(command):
                found = stat_of(pid)
                total += found[1] if found else 0.0
        return total

    def cgroup_file(self, controller: str, student: str, name: str) -> str | None:
        folder = self.klass.cgroup(controller, student)
        if folder is None:
            return None
        try:
            return (folder / name).read_text()
        except OSError:
            return None

    def reset_cgroup_peaks(self) -> None:
        for student in self.klass.students:
            folder = self.klass.cgroup("memory", student)
            if folder is not None:
                with contextlib.suppress(OSError):
                    (folder / "memory.max_usage_in_bytes").write_text("0")

    def cgroup_state(self, student: str) -> dict:
        state: dict = {}
        for key, name in (
            ("usage", "memory.usage_in_bytes"),
            ("max_usage", "memory.max_usage_in_bytes"),
            ("failcnt", "memory.failcnt"),
        ):
            text = self.cgroup_file("memory", student, name)
            if text is not None:
                state[key] = int(text)
        text = self.cgroup_file("cpu", student, "cpu.stat")
        if text is not None:
            for line in text.splitlines():
                key, value = line.split()
                state[f"cpu_{key}"] = int(value)
        return state


class Sampler(threading.Thread):
    """Every second: every student's memory, the class's servers', the
    machine's used memory, load average and CPU use."""

    def __init__(self, meter: Meter, started: float) -> None:
        super().__init__(daemon=True)
        self.meter = meter
        self.started = started
        self.phase = "login"
        self.samples: list[dict] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        busy, total = cpu_jiffies()
        seen: dict[int, float] = {}  # CPU seconds of each of the class's processes
        since, at, driver = uptime(), now(), driver_cpu_seconds()
        while not self.stopped.wait(1.0):
            try:
                students = self.meter.students()
                infra = self.meter.infrastructure()
            except OSError:
                continue
            busy2, total2 = cpu_jiffies()
            # The CPU the class (students and servers) and this script used
            # since the last sample; the rest of the machine's busy time is
            # someone else's. A process counts from its start, or from when
            # it joined the class (a server becomes the student's).
            used, current = 0.0, {}
            for pid in self.meter.class_pids():
                found = stat_of(pid)
                if found is None:
                    continue
                current[pid] = found[1]
                if pid in seen:
                    used += max(0.0, found[1] - seen[pid])
                elif found[2] >= since:
                    used += found[1]
            driver2 = driver_cpu_seconds()
            used += driver2 - driver
            at2, since2 = now(), uptime()
            machine_busy = (busy2 - busy) / TICKS
            others = round(max(0.0, machine_busy - used) / (at2 - at), 2) if seen else None
            self.samples.append(
                {
                    "t": round(at2 - self.started, 2),
                    "phase": self.phase,
                    "load1": loadavg(),
                    "cpu_busy": round((busy2 - busy) / max(1, total2 - total), 3),
                    "other_cores": others,
                    "builds": builds_running(),
                    "used_memory": used_memory(),
                    "infrastructure": infra,
                    "students": students,
                }
            )
            busy, total, seen, since, at, driver = busy2, total2, current, since2, at2, driver2

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


# -- One student's browser -------------------------------------------------------------


class StudentFailed(Exception):
    pass


class Student:
    """What one student's browser does, over HTTP, with its cookies."""

    def __init__(self, name: str, base: str, meter: Meter) -> None:
        self.name = name
        self.base = base
        self.meter = meter
        self.password = f"pw-{name}-1"
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        self.result: dict = {"name": name, "times": {}}
        self.ws = None
        self.session = uuid.uuid4().hex

    # HTTP

    def request(
        self,
        path: str,
        data: bytes | None = None,
        headers: dict | None = None,
        method: str | None = None,
        timeout: float = 180,
    ) -> tuple[int, str, str]:
        """(status, final URL, body) after the redirects, as a browser sees them."""
        request = urllib.request.Request(
            self.base + path if path.startswith("/") else path,
            data=data,
            headers={
                "Sec-Fetch-Mode": "navigate",
                "Sec-Fetch-Site": "same-origin",
                **(headers or {}),
            },
            method=method,
        )
        try:
            with self.opener.open(request, timeout=timeout) as answer:
                return answer.status, answer.geturl(), answer.read().decode(errors="replace")
        except urllib.error.HTTPError as error:
            return error.code, error.url, error.read().decode(errors="replace")

    def cookie(self, name: str, path: str) -> str | None:
        for cookie in self.jar:
            if cookie.name == name and cookie.path.rstrip("/") == path.rstrip("/"):
                return cookie.value
        return None

    def cookie_header(self, path: str) -> str:
        request = urllib.request.Request(self.base + path)
        self.jar.add_cookie_header(request)
        return request.get_header("Cookie") or ""

    def server(self, method: str, path: str, body: object = None) -> tuple[int, object]:
        """A request of JupyterLab's to the student's server (`path` under
        /user/NAME), with the server's _xsrf cookie as its header."""
        xsrf = self.cookie("_xsrf", f"/user/{self.name}/")
        headers = {"Sec-Fetch-Mode": "cors", "Content-Type": "application/json"}
        if xsrf:
            headers["X-XSRFToken"] = xsrf
        status, _, text = self.request(
            f"/user/{self.name}{path}",
            data=None if body is None else json.dumps(body).encode(),
            headers=headers,
            method=method,
        )
        try:
            return status, json.loads(text) if text else None
        except ValueError:
            return status, text[:300]

    # The login, the spawn, JupyterLab, a kernel

    def log_in_to_kernel(self) -> None:
        times = self.result["times"]
        self.request("/hub/login")
        xsrf = self.cookie("_xsrf", "/hub/")
        if not xsrf:
            raise StudentFailed("the login page set no _xsrf cookie")
        form = urllib.parse.urlencode(
            {"username": self.name, "password": self.password, "_xsrf": xsrf}
        ).encode()
        start = now()
        self.result["login_started"] = time.time()

        def mark(key: str) -> None:
            times[key] = round(now() - start, 3)

        # The hub sends a first login to its spawn, which answers within
        # its slow_spawn_timeout (10 s) with the server or the spawn-pending page.
        status, where, page = self.request("/hub/login", data=form)
        mark("login_answered")
        path = urllib.parse.urlparse(where).path
        self.result["login_landed"] = f"{status} {path}"
        if path.startswith("/hub/login") or status >= 400:
            raise StudentFailed(f"the login was refused ({status} {path})")
        if path.startswith(f"/hub/spawn-pending/{self.name}"):
            found = re.search(r'new EventSource\("([^"]+)"\)', page)
            if found:
                self.follow_progress(html.unescape(found.group(1)))
            mark("server_ready")
        # JupyterLab's page: the hub's OAuth into the server (its cookie),
        # the server's _xsrf cookie. Until the proxy routes to the server,
        # the hub answers with its pending page.
        deadline = now() + 300
        while True:
            status, where, _ = self.request(f"/user/{self.name}/lab")
            path = urllib.parse.urlparse(where).path
            if status == 200 and path.startswith(f"/user/{self.name}/lab"):
                break
            if now() > deadline:
                raise StudentFailed(f"JupyterLab did not open ({status} {path})")
            time.sleep(0.5)
        mark("lab_open")
        times.setdefault("server_ready", times["lab_open"])
        # What JupyterLab asks its server for as it starts, before a notebook
        # is opened (its scripts and styles, static files, are not fetched).
        for path in LAB_STARTUP:
            status, _ = self.server("GET", path)
            if status != 200:
                raise StudentFailed(f"GET {path}: {status}")
        mark("lab_started")
        self.result["memory_at_lab_open"] = self.meter.students()[self.name]
        status, kernel = self.server("POST", "/api/kernels", {"name": "python3"})
        if status != 201 or not isinstance(kernel, dict):
            raise StudentFailed(f"POST /api/kernels: {status} {kernel}")
        mark("kernel_created")
        self.kernel_id = kernel["id"]
        # JupyterLab opens the kernel's websocket again when it closes; so
        # does this, twice at most, each time counted.
        for attempt in range(1, 4):
            try:
                self.connect()
                mark("websocket_open")
                reply = self.execute("import sternhalma\nsternhalma.__version__", timeout=300)
                break
            except (StudentFailed, OSError) as error:
                self.close()
                self.result.setdefault("websocket_retries", []).append(
                    f"{round(now() - start, 1)} s: {type(error).__name__}: {error}"
                )
                if attempt == 3:
                    raise
        mark("kernel_answered")
        if reply["status"] != "ok":
            raise StudentFailed(f"import sternhalma: {reply.get('ename')}: {reply.get('evalue')}")
        self.result["login_to_kernel_seconds"] = times["kernel_answered"]

    def follow_progress(self, url: str) -> None:
        """The spawn's progress stream (server-sent events) until ready."""
        request = urllib.request.Request(
            self.base + url if url.startswith("/") else url,
            headers={"Accept": "text/event-stream", "Sec-Fetch-Mode": "cors"},
        )
        try:
            with self.opener.open(request, timeout=300) as stream:
                for raw in stream:
                    line = raw.decode(errors="replace").strip()
                    if not line.startswith("data:"):
                        continue
                    event = json.loads(line[5:])
                    if event.get("failed"):
                        raise StudentFailed(f"the spawn failed: {event.get('message')}")
                    if event.get("ready"):
                        return
        except (urllib.error.URLError, OSError, ValueError) as error:
            # The page below is polled instead.
            self.result["progress_stream_error"] = str(error)

    def connect(self) -> None:
        """The kernel's websocket, read by a thread of its own as a browser
        reads it: the server pings every 30 s and closes a websocket whose
        pongs stop for 90 s, and websocket-client answers pings as it reads."""
        path = f"/user/{self.name}/api/kernels/{self.kernel_id}/channels"
        try:
            self.ws = websocket.create_connection(
                f"ws://127.0.0.1:{urllib.parse.urlparse(self.base).port}{path}"
                f"?session_id={self.session}",
                header=[f"Cookie: {self.cookie_header(path)}", "Sec-Fetch-Mode: websocket"],
                timeout=120,
                enable_multithread=True,
            )
        except websocket.WebSocketException as error:
            raise StudentFailed(f"the websocket did not open: {error}") from None
        self.ws.settimeout(None)
        self.inbox: queue.Queue = queue.Queue()
        threading.Thread(target=self.read, args=(self.ws, self.inbox), daemon=True).start()

    @staticmethod
    def read(ws, inbox: queue.Queue) -> None:
        try:
            while True:
                raw = ws.recv()
                if raw == "":  # a close frame
                    break
                inbox.put(raw)
        except Exception as error:  # noqa: BLE001 (the closing is the reader's answer)
            inbox.put(error)
            return
        inbox.put(ConnectionError("the server closed the websocket"))

    def execute(self, code: str, timeout: float) -> dict:
        """Runs a cell; returns its execute_reply's content (errors counted)."""
        msg_id = uuid.uuid4().hex
        try:
            self.send(msg_id, code)
        except (OSError, websocket.WebSocketException) as error:
            raise StudentFailed(f"the websocket closed: {type(error).__name__}: {error}") from None
        deadline = now() + timeout
        while now() < deadline:
            try:
                raw = self.inbox.get(timeout=max(0.1, deadline - now()))
            except queue.Empty:
                break
            if isinstance(raw, Exception):
                raise StudentFailed(f"the websocket closed: {type(raw).__name__}: {raw}")
            if isinstance(raw, bytes):
                continue  # a message with binary buffers: none of ours
            message = json.loads(raw)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if (
                message.get("channel") == "shell"
                and message["header"]["msg_type"] == "execute_reply"
            ):
                return message["content"]
        raise StudentFailed(f"no answer to a cell within {timeout:.0f} s")

    def send(self, msg_id: str, code: str) -> None:
        self.ws.send(
            json.dumps(
                {
                    "header": {
                        "msg_id": msg_id,
                        "msg_type": "execute_request",
                        "username": self.name,
                        "session": self.session,
                        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                        "version": "5.3",
                    },
                    "parent_header": {},
                    "metadata": {},
                    "content": {
                        "code": code,
                        "silent": False,
                        "store_history": True,
                        "user_expressions": {},
                        "allow_stdin": False,
                        "stop_on_error": True,
                    },
                    "channel": "shell",
                    "buffers": [],
                }
            )
        )

    def run_notebook(self, cells: list[tuple[int, str]], barrier: threading.Barrier) -> None:
        """The warm-up (matplotlib's first import), then every code cell of
        notebook 4 in order, from the moment every student is ready."""
        try:
            started = now()
            self.execute("import matplotlib.pyplot", timeout=300)
            self.result["matplotlib_first_import_seconds"] = round(now() - started, 3)
        finally:
            barrier.wait(timeout=900)  # the others start anyway
        cpu_before = self.meter.kernel_cpu(self.name)
        started = now()
        self.result["notebook_started"] = time.time()
        timings, errors = [], []
        for index, code in cells:
            cell_started = now()
            reply = self.execute(code, timeout=1200)
            timings.append([index, round(now() - cell_started, 3), reply["status"]])
            if reply["status"] != "ok":
                errors.append(f"cell {index}: {reply.get('ename')}: {reply.get('evalue')}")
        self.result["notebook_seconds"] = round(now() - started, 3)
        self.result["notebook_kernel_cpu_seconds"] = round(
            self.meter.kernel_cpu(self.name) - cpu_before, 2
        )
        self.result["cells"] = timings
        self.result["cell_errors"] = errors

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()


def notebook_cells(path: Path) -> list[tuple[int, str]]:
    notebook = json.loads(path.read_text())
    return [
        (index, "".join(cell["source"]))
        for index, cell in enumerate(notebook["cells"])
        if cell["cell_type"] == "code" and "".join(cell["source"]).strip()
    ]


def in_threads(students: list[Student], work, label: str) -> None:
    """Runs `work(student)` for every student at once; a failure is the
    student's, recorded, and the others go on."""

    def one(student: Student) -> None:
        try:
            work(student)
        except Exception as error:  # noqa: BLE001 (recorded; the class goes on)
            student.result.setdefault("errors", []).append(
                f"{label}: {type(error).__name__}: {error}"
            )

    threads = [threading.Thread(target=one, args=(s,), daemon=True) for s in students]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# -- One run -------------------------------------------------------------------------


def one_run(count: int, run: int, args: argparse.Namespace, classroom, cells) -> dict:
    record: dict = {
        "students": count,
        "run": run,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "load_before": loadavg(),
        "used_memory_before": used_memory(),
    }
    klass = ThrowawayClass(count, args)
    students: list[Student] = []
    driver_cpu = driver_cpu_seconds()
    sampler = None
    try:
        say(f"\n== {count} students, run {run}: scripts/classroom up ({klass.work})")
        record["up_seconds"] = round(klass.up(), 1)
        record["limit_mode"] = klass.settings["limit_mode"]
        record["limit_description"] = klass.settings["limit_description"]
        record["limits"] = klass.settings["limits"]
        record["used_memory_class_up"] = used_memory()
        say(f"   up in {record['up_seconds']} s; limits: {record['limit_description']}")
        meter = Meter(classroom, klass)
        time.sleep(args.settle)
        record["infrastructure_idle"] = meter.infrastructure()
        record["used_memory_idle_hub"] = used_memory()
        started = now()
        sampler = Sampler(meter, started)
        sampler.start()
        students = [Student(name, klass.url, meter) for name in klass.students]

        say(f"   {count} logins at once: login, spawn, JupyterLab, kernel, import sternhalma")
        ready = threading.Barrier(count)

        def log_in(student: Student) -> None:
            ready.wait(timeout=60)
            student.log_in_to_kernel()

        in_threads(students, log_in, "login")
        record["login_phase_seconds"] = round(now() - started, 2)
        working = [s for s in students if "errors" not in s.result]
        say(
            f"   {len(working)} of {count} students have a kernel ({record['login_phase_seconds']} s)"
        )

        sampler.phase = "settled"
        time.sleep(args.settle)
        settled = meter.students()
        record["used_memory_settled"] = used_memory()
        record["infrastructure_settled"] = meter.infrastructure()
        for student in students:
            student.result["memory_settled"] = settled[student.name]

        if working:
            say(f"   notebook 4's {len(cells)} code cells in {len(working)} kernels at once")
            sampler.phase = "warm-up"
            start_state: dict = {}

            def start_mcts() -> None:
                # Run by the barrier once every kernel has warmed up, before any
                # student sends notebook 4's first cell.
                meter.reset_cgroup_peaks()
                start_state["cgroups"] = {s.name: meter.cgroup_state(s.name) for s in working}
                start_state["jiffies"] = cpu_jiffies()
                start_state["at"] = now()
                sampler.phase = "mcts"

            barrier = threading.Barrier(len(working), action=start_mcts)
            in_threads(working, lambda s: s.run_notebook(cells, barrier), "notebook")
            busy1, total1 = cpu_jiffies()
            if "at" in start_state:
                busy0, total0 = start_state["jiffies"]
                record["mcts_phase_seconds"] = round(now() - start_state["at"], 2)
                record["mcts_cpu_busy"] = round((busy1 - busy0) / max(1, total1 - total0), 3)
                record["mcts_machine_cpu_seconds"] = round((busy1 - busy0) / TICKS, 1)
            cgroups_before = start_state.get("cgroups", {})
            sampler.phase = "after"
            for student in working:
                after = meter.cgroup_state(student.name)
                before = cgroups_before.get(student.name, {})
                student.result["cgroup_mcts"] = {
                    "max_usage": after.get("max_usage"),
                    "failcnt": after.get("failcnt", 0) - before.get("failcnt", 0),
                    "nr_throttled": after.get("cpu_nr_throttled", 0)
                    - before.get("cpu_nr_throttled", 0),
                    "throttled_seconds": round(
                        (after.get("cpu_throttled_time", 0) - before.get("cpu_throttled_time", 0))
                        / 1e9,
                        2,
                    ),
                }
        time.sleep(2)
    except Exception as error:  # noqa: BLE001 (recorded; the cleanup follows)
        record["error"] = f"{type(error).__name__}: {error}"
        say(f"   failed: {record['error']}")
    finally:
        if sampler is not None:
            sampler.stop()
            record["samples"] = sampler.samples
        for student in students:
            student.close()
        record["student_results"] = [s.result for s in students]
        record["driver_cpu_seconds"] = round(driver_cpu_seconds() - driver_cpu, 1)
        started = now()
        say(f"   cleaning up: {klass.work}")
        # A second signal must not cut the cleanup short.
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
        try:
            klass.close()
        finally:
            signal.pthread_sigmask(
                signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
            )
        record["cleanup_seconds"] = round(now() - started, 1)
        say(f"   cleaned up in {record['cleanup_seconds']} s")
    summarize_run(record)
    return record


def driver_cpu_seconds() -> float:
    """This script's own CPU time (it shares the cores with the class)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def summarize_run(record: dict) -> None:
    """Peaks from the samples: per student during the MCTS, and in all."""
    samples = record.get("samples") or []
    mcts = [s for s in samples if s["phase"] == "mcts"]
    record["mcts_samples"] = len(mcts)
    for result in record.get("student_results", []):
        name = result["name"]
        mine = [s["students"].get(name, {}) for s in mcts]
        if mine:
            result["mcts_peak"] = {
                key: max(m.get(key, 0) for m in mine)
                for key in ("rss", "pss", "kernel_rss", "kernel_pss")
            }
    if mcts:
        record["mcts_peak_all"] = {
            "students_rss": max(sum(v["rss"] for v in s["students"].values()) for s in mcts),
            "students_pss": max(sum(v["pss"] for v in s["students"].values()) for s in mcts),
            "infrastructure_rss": max(s["infrastructure"]["rss"] for s in mcts),
            "infrastructure_pss": max(s["infrastructure"]["pss"] for s in mcts),
            "used_memory": max(s["used_memory"] for s in mcts),
            "load1": max(s["load1"] for s in mcts),
            "cpu_busy_mean": round(statistics.mean(s["cpu_busy"] for s in mcts), 3),
            # Cores busy with processes outside the class and this script.
            "other_cores_mean": round(statistics.mean(s["other_cores"] or 0.0 for s in mcts), 2),
        }


def disturbance(record: dict) -> str | None:
    """Why a run does not measure the class alone, if it does not: a build
    seen, or other processes busy for more than OTHER_LIMIT cores on average
    while the students logged in or ran notebook 4."""
    samples = [s for s in record.get("samples") or [] if s["phase"] in ("login", "mcts")]
    builds = sorted({b.split()[1] for s in samples for b in s.get("builds", [])})
    if builds:
        return f"a build ran ({', '.join(builds)})"
    others = [s["other_cores"] for s in samples if s.get("other_cores") is not None]
    if others and statistics.mean(others) > OTHER_LIMIT:
        return (
            f"other processes used {statistics.mean(others):.2f} cores on average"
            f" (more than {OTHER_LIMIT})"
        )
    return None


# -- The report ----------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def fmt_mib(value: float) -> str:
    return f"{value / MIB:,.0f}"


def report(results: dict) -> None:
    disturbed = [r for r in results["runs"] if "error" not in r and disturbance(r)]
    runs = [r for r in results["runs"] if "error" not in r and not disturbance(r)]
    failed = [r for r in results["runs"] if "error" in r]
    counts = sorted({r["students"] for r in runs})
    say("")
    say(
        f"machine: {results['machine']['cpus']} CPUs ({results['machine']['cpu']}), "
        f"{results['machine']['memory_total'] / GIB:.1f} GiB; commit {results.get('commit', '?')}; "
        f"limits: {runs[0]['limit_description'] if runs else '?'}"
    )
    for run in failed:
        say(f"run failed: {run['students']} students, run {run['run']}: {run['error']}")
    for run in disturbed:
        say(
            f"set aside: {run['students']} students, run {run['run']} ({run['date']}):"
            f" {disturbance(run)}"
        )
    say("")
    header = (
        f"{'N':>3} {'runs':>4} {'ok':>5} | {'login->kernel s':>16} | "
        f"{'server MiB':>12} | {'+kernel MiB':>12} | {'MCTS peak MiB':>13} | "
        f"{'notebook 4 s':>15} {'x N=1':>6} {'CPU s':>6} {'thr s':>6} | "
        f"{'all peak MiB':>13} {'hub+ MiB':>9} {'load':>5} {'busy':>5} {'other':>5}"
    )
    say(header)
    say(
        f"{'':>3} {'':>4} {'':>5} | {'median   max':>16} | {'RSS   PSS':>12} | {'RSS   PSS':>12} | "
        f"{'RSS   PSS':>13} | {'median    max':>15} {'':>6} {'':>6} {'':>6} | "
        f"{'RSS    PSS':>13} {'RSS':>9} {'max':>5} {'mean':>5} {'cores':>5}"
    )
    rows = {}
    for count in counts:
        mine = [r for r in runs if r["students"] == count]
        students = [s for r in mine for s in r["student_results"]]
        ok = [s for s in students if "errors" not in s]
        login = [s["login_to_kernel_seconds"] for s in ok if "login_to_kernel_seconds" in s]
        settled = [s["memory_settled"] for s in ok if "memory_settled" in s]
        server_rss = [m["rss"] - m["kernel_rss"] for m in settled]
        server_pss = [m["pss"] - m["kernel_pss"] for m in settled]
        all_rss = [m["rss"] for m in settled]
        all_pss = [m["pss"] for m in settled]
        peaks = [s["mcts_peak"] for s in ok if "mcts_peak" in s]
        wall = [s["notebook_seconds"] for s in ok if "notebook_seconds" in s]
        cpu = [s["notebook_kernel_cpu_seconds"] for s in ok if "notebook_kernel_cpu_seconds" in s]
        throttled = [
            s["cgroup_mcts"]["throttled_seconds"] for s in ok if s.get("cgroup_mcts") is not None
        ]
        everyone = [r["mcts_peak_all"] for r in mine if "mcts_peak_all" in r]
        rows[count] = {
            "runs": len(mine),
            "students": len(students),
            "ok": len(ok),
            "login_median": median(login),
            "login_max": max(login) if login else float("nan"),
            "server_rss": median(server_rss),
            "server_pss": median(server_pss),
            "kernel_rss": median(all_rss),
            "kernel_pss": median(all_pss),
            "peak_rss": max((p["rss"] for p in peaks), default=0),
            "peak_pss": max((p["pss"] for p in peaks), default=0),
            "wall_median": median(wall),
            "wall_max": max(wall) if wall else float("nan"),
            "cpu_median": median(cpu),
            "throttled_median": median(throttled),
            "all_rss": max((e["students_rss"] for e in everyone), default=0),
            "all_pss": max((e["students_pss"] for e in everyone), default=0),
            "infra_rss": max((e["infrastructure_rss"] for e in everyone), default=0),
            "infra_pss": max((e["infrastructure_pss"] for e in everyone), default=0),
            "load": max((e["load1"] for e in everyone), default=0),
            "busy": median([e["cpu_busy_mean"] for e in everyone]),
            "other": max((e.get("other_cores_mean", 0.0) for e in everyone), default=0.0),
            "used_peak_over_before": max(
                (
                    r["mcts_peak_all"]["used_memory"] - r["used_memory_before"]
                    for r in mine
                    if "mcts_peak_all" in r
                ),
                default=0,
            ),
            "used_per_student": median(
                [
                    (r["mcts_peak_all"]["used_memory"] - r["used_memory_idle_hub"]) / count
                    for r in mine
                    if "mcts_peak_all" in r and "used_memory_idle_hub" in r
                ]
            ),
            "cell_errors": sorted({e for s in ok for e in s.get("cell_errors", [])}),
            "errors": [f"{s['name']}: {e}" for s in students for e in s.get("errors", [])],
        }
    alone = rows[counts[0]]["wall_median"] if counts and counts[0] == 1 else float("nan")
    for count, row in rows.items():
        say(
            f"{count:>3} {row['runs']:>4} {row['ok']:>2}/{row['students']:<2} | "
            f"{row['login_median']:>7.1f} {row['login_max']:>8.1f} | "
            f"{fmt_mib(row['server_rss']):>5} {fmt_mib(row['server_pss']):>5}  | "
            f"{fmt_mib(row['kernel_rss']):>5} {fmt_mib(row['kernel_pss']):>5}  | "
            f"{fmt_mib(row['peak_rss']):>6} {fmt_mib(row['peak_pss']):>5}  | "
            f"{row['wall_median']:>6.1f} {row['wall_max']:>8.1f} {row['wall_median'] / alone:>6.2f} "
            f"{row['cpu_median']:>6.1f} {row['throttled_median']:>6.1f} | "
            f"{fmt_mib(row['all_rss']):>6} {fmt_mib(row['all_pss']):>6} {fmt_mib(row['infra_rss']):>9} "
            f"{row['load']:>5.1f} {row['busy']:>5.2f} {row['other']:>5.2f}"
        )
    say("")
    say(
        "N: students; ok: students whose every step worked (of all runs); login->kernel: from the"
        " login's POST to the answer of `import sternhalma` in their first kernel;\nserver: the"
        " student's processes other than the kernel, with the kernel idle after the import;"
        " +kernel: all of them; MCTS peak: the largest any student reached during notebook 4"
        " (samples every second);\nnotebook 4: wall time of its code cells per student; x N=1:"
        " the median against the median of N = 1; CPU s: the kernel's CPU seconds for it;"
        " thr s: the time its cgroup was throttled by the CPU quota;\nall peak: the sum over the"
        " students at the worst second; hub+: the hub, proxy, culler and game server at the"
        " worst second; load: 1-minute load average; busy: the machine's CPU use during MCTS;"
        " other: the cores busy meanwhile outside the class and this script (the worst run's mean)."
    )
    for count, row in rows.items():
        for error in row["errors"]:
            say(f"  N={count}: {error}")
        for error in row["cell_errors"]:
            say(f"  N={count}: a notebook cell failed: {error}")
    say("\nThe way to a kernel, median seconds from the login's POST (over every student):")
    steps = ("login_answered", "server_ready", "lab_started", "kernel_created", "kernel_answered")
    say(f"{'N':>3}  " + " ".join(f"{step:>16}" for step in steps) + f" {'ws retries':>11}")
    for count in counts:
        mine = [
            s
            for r in runs
            if r["students"] == count
            for s in r["student_results"]
            if "errors" not in s
        ]
        cells = [median([s["times"][step] for s in mine if step in s["times"]]) for step in steps]
        retries = sum(len(s.get("websocket_retries", [])) for s in mine)
        say(f"{count:>3}  " + " ".join(f"{cell:>16.1f}" for cell in cells) + f" {retries:>11}")
    results["summary"] = {str(k): v for k, v in rows.items()}
    derive(results, rows)


def derive(results: dict, rows: dict) -> None:
    """What the numbers say: memory per student, the time to a kernel,
    notebook 4's time against N, the students that fit."""
    if not rows:
        return
    say("\nDerived (medians over every student of every run, except where said):")
    every = [
        s
        for r in results["runs"]
        if "error" not in r
        for s in r["student_results"]
        if "errors" not in s
    ]
    settled = [s["memory_settled"] for s in every if "memory_settled" in s]
    server_rss = median([m["rss"] - m["kernel_rss"] for m in settled])
    server_pss = median([m["pss"] - m["kernel_pss"] for m in settled])
    lab_rss = median([s["memory_at_lab_open"]["rss"] for s in every if "memory_at_lab_open" in s])
    full_rss = median([m["rss"] for m in settled])
    full_pss = median([m["pss"] for m in settled])
    peak_rss = max((s["mcts_peak"]["rss"] for s in every if "mcts_peak" in s), default=0)
    peak_pss = max((s["mcts_peak"]["pss"] for s in every if "mcts_peak" in s), default=0)
    peaks_rss = median([s["mcts_peak"]["rss"] for s in every if "mcts_peak" in s])
    peaks_pss = median([s["mcts_peak"]["pss"] for s in every if "mcts_peak" in s])
    cgroup_peaks = [
        s["cgroup_mcts"]["max_usage"]
        for s in every
        if s.get("cgroup_mcts") and s["cgroup_mcts"].get("max_usage")
    ]
    say(
        f"- memory per student: server {fmt_mib(server_rss)} MiB RSS ({fmt_mib(server_pss)} PSS; "
        f"{fmt_mib(lab_rss)} MiB RSS at JupyterLab's opening); server + kernel with the module "
        f"{fmt_mib(full_rss)} MiB RSS ({fmt_mib(full_pss)} PSS); during notebook 4's MCTS, "
        f"median of the students' peaks {fmt_mib(peaks_rss)} MiB RSS ({fmt_mib(peaks_pss)} PSS), "
        f"largest {fmt_mib(peak_rss)} MiB RSS ({fmt_mib(peak_pss)} PSS)"
        + (
            f"; cgroup peak (page cache included) median {fmt_mib(median(cgroup_peaks))},"
            f" largest {fmt_mib(max(cgroup_peaks))} MiB"
            if cgroup_peaks
            else ""
        )
    )
    for count, row in rows.items():
        say(
            f"- login to a running kernel, N = {count}: median {row['login_median']:.1f} s,"
            f" max {row['login_max']:.1f} s"
        )
    infra_rss = max(r["infra_rss"] for r in rows.values())
    infra_pss = max(r["infra_pss"] for r in rows.values())
    total = results["machine"]["memory_total"]
    before = median([r["used_memory_before"] for r in results["runs"]])
    room = total - before - infra_rss
    say(
        f"- the hub, proxy, culler and game server: at most {fmt_mib(infra_rss)} MiB RSS "
        f"({fmt_mib(infra_pss)} PSS); the machine used {fmt_mib(before)} MiB before each class "
        f"(median; the system and whatever else ran)"
    )
    say(
        f"- by memory: ({fmt_mib(total)} MiB total - {fmt_mib(before)} MiB used before - "
        f"{fmt_mib(infra_rss)} MiB hub and co.) = {fmt_mib(room)} MiB for students;"
        f" / {fmt_mib(peak_rss)} MiB (largest RSS peak) = {room / peak_rss:.0f} students;"
        f" / {fmt_mib(peaks_pss)} MiB (median PSS peak) = {room / peaks_pss:.0f} students"
        if peak_rss and peaks_pss
        else "- by memory: no MCTS peak measured"
    )
    for count, row in rows.items():
        say(
            f"- the machine's used memory (MemTotal - MemAvailable) at the worst second of the"
            f" MCTS, less with the hub alone, / N = {count}: {fmt_mib(row['used_per_student'])}"
            f" MiB a student (median of the runs)"
        )
    limit = results["config"].get("memory")
    if limit:
        size = parse_size(limit)
        say(
            f"  (with every student allowed their whole --memory {limit}: {fmt_mib(room)} / "
            f"{fmt_mib(size)} = {room / size:.1f} students: the limit is a cap, not a reservation)"
        )
    if 1 in rows:
        alone = rows[1]["wall_median"]
        cpu = rows[1]["cpu_median"]
        cores = results["machine"]["cpus"]
        say(
            f"- notebook 4 alone (N = 1): {alone:.1f} s wall (median), {cpu:.1f} s of its kernel's"
            f" CPU; with {cores} cores and one core per student at most, N students at once take"
            f" about max(1, N / {cores}) x {alone:.1f} s:"
        )
        for count, row in rows.items():
            say(
                f"    N = {count:>2}: measured {row['wall_median']:.1f} s median,"
                f" {row['wall_max']:.1f} s max = {row['wall_median'] / alone:.2f} x alone;"
                f" the model {max(1, count / cores) * alone:.1f} s"
            )
        over = [c for c, r in rows.items() if r["wall_median"] > SLOWDOWN_LIMIT * alone]
        within = [c for c, r in rows.items() if r["wall_median"] <= SLOWDOWN_LIMIT * alone]
        say(
            f"- by CPU ({SLOWDOWN_LIMIT:g} x alone = {SLOWDOWN_LIMIT * alone:.1f} s): "
            f"within it up to N = {max(within) if within else '-'}, over it from N = "
            f"{min(over) if over else '- (not reached)'}; the model puts the limit at "
            f"N = {SLOWDOWN_LIMIT:g} x {cores} = {SLOWDOWN_LIMIT * cores:.0f}"
        )


def parse_size(text: str) -> int:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?", text.strip(), re.IGNORECASE)
    if not match:
        raise SystemExit(f"--memory: {text!r} is not a size")
    return int(float(match.group(1)) * 1024 ** " KMGT".index((match.group(2) or " ").upper()))


# -- The command line ------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--students",
        default="8",
        help="the numbers of students, comma-separated: a fresh class for each (default 8)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs of each number (default 1)")
    parser.add_argument(
        "--retries",
        type=int,
        default=3,
        help="runs of each number set aside (disturbed by other processes) and run again,"
        " at most (default 3)",
    )
    parser.add_argument("--memory", default="2G", help="scripts/classroom up --memory (default 2G)")
    parser.add_argument(
        "--cpus", type=float, default=1.0, help="scripts/classroom up --cpus (default 1)"
    )
    parser.add_argument(
        "--limits",
        choices=("auto", "cgroup", "prlimit"),
        default="auto",
        help="scripts/classroom up --limits (default auto)",
    )
    parser.add_argument(
        "--tools",
        type=Path,
        default=DEFAULT_TOOLS,
        help=f"the hub's software (default {DEFAULT_TOOLS})",
    )
    parser.add_argument("--wheel", type=Path, help="the module's wheel (default up's: dist/)")
    parser.add_argument("--server", type=Path, help="the game server (default up's)")
    parser.add_argument(
        "--notebook", type=Path, default=NOTEBOOK, help="the notebook run (default notebook 4's)"
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds to wait before reading idle memory (default 5)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(f"/tmp/classroom-load-{time.strftime('%Y%m%d-%H%M%S')}.json"),
        help="the JSON of every figure (default /tmp/classroom-load-DATE.json)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the runs already in --out and run only the missing ones",
    )
    parser.add_argument(
        "--report",
        type=Path,
        nargs="+",
        help="print the table from these JSON files (their runs together) and run nothing",
    )
    parser.add_argument("--cleanup", type=Path, help=argparse.SUPPRESS)  # the guardian's
    args = parser.parse_args()

    if args.cleanup:
        cleanup(args.cleanup)
        return 0
    if args.report:
        merged: dict = {}
        for path in args.report:
            loaded = json.loads(path.read_text())
            if not merged:
                merged = loaded
            else:
                merged["runs"] += loaded["runs"]
        report(merged)
        return 0

    if os.geteuid() != 0:
        raise SystemExit("run it as root: the class makes Linux accounts")
    if websocket is None:
        raise SystemExit(
            f"websocket-client is missing: run it with {DEFAULT_TOOLS}/venv/bin/python"
        )
    counts = [int(n) for n in args.students.split(",") if n.strip()]
    classroom = load_classroom()
    cells = notebook_cells(args.notebook)

    def stop(signum, _frame):  # the classes' cleanup runs on the way out
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    results = {
        "command": " ".join(sys.argv),
        "commit": git_commit(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": machine(),
        "config": {
            "students": counts,
            "runs": args.runs,
            "memory": args.memory,
            "cpus": args.cpus,
            "limits": args.limits,
            "notebook": str(args.notebook),
            "code_cells": len(cells),
            "settle": args.settle,
            "retries": args.retries,
        },
        "quiet": [],
        "runs": [],
    }
    wheel = args.wheel or max(
        (REPO / "dist").glob("sternhalma-*.whl"), key=lambda p: p.stat().st_mtime, default=None
    )
    if wheel is not None:
        results["config"]["wheel"] = {"path": str(wheel), "sha256": sha256(wheel)}
    if args.resume and args.out.exists():
        # Runs of an earlier invocation with the same --out: kept, and only
        # what is missing is run.
        earlier = json.loads(args.out.read_text())
        results["runs"] = earlier["runs"]
        results["quiet"] = earlier.get("quiet", [])
        results["resumed"] = [*earlier.get("resumed", []), earlier.get("started")]
    say(f"{len(cells)} code cells of {args.notebook}; the JSON goes to {args.out}")
    for count in counts:
        earlier_runs = [r for r in results["runs"] if r["students"] == count]
        done = sum(1 for r in earlier_runs if "error" not in r and not disturbance(r))
        attempt = len(earlier_runs)
        if done >= args.runs or attempt >= args.runs + args.retries:
            continue
        quiet: dict = {"students": count}
        say(
            f"\nwaiting for a quiet machine (no {', '.join(BUILDS)}; flock {QUIET_LOCK})"
            f" for N = {count}"
        )
        with quiet_machine(quiet):
            say(f"  quiet: {quiet}")
            while done < args.runs and attempt < args.runs + args.retries:
                attempt += 1
                waited = wait_until_idle()
                record = one_run(count, attempt, args, classroom, cells)
                record["waited_for_idle_seconds"] = waited
                results["runs"].append(record)
                args.out.write_text(json.dumps(results, indent=1))
                reason = record.get("error") or disturbance(record)
                if reason:
                    say(f"   set aside, to run again: {reason.splitlines()[0]}")
                else:
                    done += 1
        results["quiet"].append(quiet)
    results["finished"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    report(results)
    args.out.write_text(json.dumps(results, indent=1))
    say(f"\nevery figure: {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
