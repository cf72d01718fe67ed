"""Per-student limits on memory, CPU and processes, for the class's hub.

Two ways, chosen once when the hub starts and said in its log:

- **cgroup v1** (the controllers mounted under /sys/fs/cgroup/memory, cpu
  and pids, writable by root): one group per student, under the hub's own
  group of each controller, holding every process of that student's server
  (JupyterLab, kernels, terminals). The memory limit is for all of them
  together; the CPU limit is a CFS quota (1.0 = one core); pids caps
  processes and threads.
- **prlimit** otherwise (cgroup v2 without a delegated subtree, or
  read-only cgroups): the limits of `setrlimit` on each process the
  server starts: address space per process (not for all of a student's
  processes together), processes per student (RLIMIT_NPROC counts the
  user's processes), and a lower CPU priority (nice 10) instead of a cap.

Standard library only: the hub's config imports it (from the class's
folder) and so does `scripts/classroom` (to say which way the class will
get, and to remove the groups at `down`).
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "cpu", "pids")
CFS_PERIOD_US = 100_000
NICE_WITHOUT_CGROUPS = 10


@dataclass(frozen=True)
class Limits:
    """What one student may use: bytes of memory, cores of CPU, processes."""

    memory: int
    cpus: float
    processes: int

    def describe(self) -> str:
        return f"memory {self.memory / 2**30:.1f} GiB, CPU {self.cpus:g} core(s), {self.processes} processes"


def own_v1_groups() -> dict[str, Path]:
    """controller -> the folder of this process's group, for the cgroup v1
    controllers we use that are mounted here (empty on cgroup v2)."""
    if (CGROUP_ROOT / "cgroup.controllers").exists():
        return {}  # the unified hierarchy (v2): not used (see the module's docstring)
    mounts: dict[str, Path] = {}
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fields = right.split()
            if len(fields) < 3 or fields[0] != "cgroup":
                continue
            options = set(fields[2].split(","))
            for controller in CONTROLLERS:
                if controller in options and controller not in mounts:
                    mounts[controller] = Path(left.split()[4])
        groups: dict[str, Path] = {}
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            for controller in names.split(","):
                if controller in mounts:
                    groups[controller] = mounts[controller] / path.lstrip("/")
    except OSError:
        return {}
    return groups


class StudentLimits:
    """The class's limits, applied to each student's server as it starts."""

    def __init__(
        self,
        class_id: str,
        limits: Limits,
        groups: dict[str, str] | None = None,
        prefer: str = "auto",
    ) -> None:
        """`groups`: the parent groups to use (controller -> folder), as
        recorded when the class started; by default this process's own.
        `prefer`: "auto" (cgroups where they work), "cgroup" (the same,
        said plainly when they do not) or "prlimit"."""
        self.limits = limits
        self.class_group = f"sternhalma-{class_id}"
        self.groups = (
            {c: Path(p) for c, p in groups.items()} if groups is not None else own_v1_groups()
        )
        self.mode = "prlimit"
        self.reason = "cgroup v2 or no cgroup v1 controllers mounted"
        if prefer == "prlimit":
            self.groups = {}
            self.reason = "asked for"
        elif all(c in self.groups for c in CONTROLLERS):
            try:
                for controller in CONTROLLERS:
                    (self.groups[controller] / self.class_group).mkdir(exist_ok=True)
                self.mode = "cgroup"
            except OSError as error:
                self.reason = f"cgroups not writable ({error.strerror})"
        elif self.groups:
            missing = ", ".join(c for c in CONTROLLERS if c not in self.groups)
            self.reason = f"cgroup v1 controller(s) missing: {missing}"

    def describe(self) -> str:
        if self.mode == "cgroup":
            return (
                f"cgroup v1 per student ({self.limits.describe()}; the memory is for all of "
                f"a student's processes together), under {self.groups['memory'] / self.class_group}"
            )
        return (
            f"prlimit per process (address space {self.limits.memory / 2**30:.1f} GiB per process, "
            f"{self.limits.processes} processes per student, CPU at nice {NICE_WITHOUT_CGROUPS}, "
            f"no CPU cap): {self.reason}"
        )

    def student_folders(self, username: str) -> list[Path]:
        return [self.groups[c] / self.class_group / username for c in CONTROLLERS]

    def prepare(self, username: str) -> list[Path]:
        """Creates (or updates) the student's groups; returns the files a
        process writes its pid to so as to join them (none with prlimit)."""
        if self.mode != "cgroup":
            return []
        memory, cpu, pids = self.student_folders(username)
        for folder in (memory, cpu, pids):
            folder.mkdir(exist_ok=True)
        (memory / "memory.limit_in_bytes").write_text(str(self.limits.memory))
        swap = memory / "memory.memsw.limit_in_bytes"
        if swap.exists():
            try:  # memory and swap together: no more than the memory limit
                swap.write_text(str(self.limits.memory))
            except OSError:
                pass
        (cpu / "cpu.cfs_period_us").write_text(str(CFS_PERIOD_US))
        (cpu / "cpu.cfs_quota_us").write_text(str(max(1000, int(self.limits.cpus * CFS_PERIOD_US))))
        (pids / "pids.max").write_text(str(self.limits.processes))
        return [folder / "cgroup.procs" for folder in (memory, cpu, pids)]

    def join(self, procs_files: list[Path]) -> None:
        """In the new process, before it drops to the student's user (a
        Popen preexec_fn): join the groups, or set the rlimits."""
        if procs_files:
            pid = str(os.getpid())
            for path in procs_files:
                with open(path, "w") as handle:
                    handle.write(pid)
            return
        memory = self.limits.memory
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        processes = self.limits.processes
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
        os.setpriority(os.PRIO_PROCESS, 0, NICE_WITHOUT_CGROUPS)

    def usage(self, username: str) -> int | None:
        """Bytes the student's group uses now (cgroup mode), else None."""
        if self.mode != "cgroup":
            return None
        try:
            return int((self.student_folders(username)[0] / "memory.usage_in_bytes").read_text())
        except (OSError, ValueError):
            return None

    def remove(self) -> list[str]:
        """Removes the class's (empty) groups; returns those still in use."""
        busy = []
        for controller, folder in self.groups.items():
            base = folder / self.class_group
            if not base.is_dir():
                continue
            for student in sorted(p for p in base.iterdir() if p.is_dir()):
                try:
                    student.rmdir()
                except OSError:
                    busy.append(f"{controller}:{student.name}")
            try:
                base.rmdir()
            except OSError:
                pass
        return busy
