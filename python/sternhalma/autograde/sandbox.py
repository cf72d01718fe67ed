"""The sandbox a submission runs in: bubblewrap (Debian's ``bubblewrap``)
with a user of no rights, no network, and a view of the filesystem that
holds the system's programs, this Python and its packages, the solved
tables, and one fresh folder with the submitted notebook: not the course
folder, not the gradebook, not the other submissions, not the teacher's
home or environment (the held-out secret stays with the grader).

As root (a grading machine, CI) the run drops to a user id of its own
(``setpriv``: no groups, no capabilities, no new privileges), so the
kernel's per-user process limit holds; as another user, bubblewrap maps
that user into a user namespace of its own. ``Sandbox.find()`` says
clearly what is missing when no sandbox can be made.
"""

from __future__ import annotations

import os
import shutil
import site
import socket
import sys
import sysconfig
from pathlib import Path
from urllib.parse import urlsplit


def server_addresses(url: str) -> list[str]:
    """The ``ip:port`` addresses of the game server at ``url``, as the
    submission's connections name them (the lock compares addresses, not
    host names: the grader resolves the name here, outside the sandbox)."""
    split = urlsplit(url)
    if not split.hostname:
        return []
    port = split.port or (443 if split.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(split.hostname, port, type=socket.SOCK_STREAM)
    except OSError:
        return []
    addresses = []
    for _, _, _, _, address in found:
        text = f"{address[0]}:{port}"
        if text not in addresses:
            addresses.append(text)
    return addresses


class SandboxUnavailable(RuntimeError):
    """No sandbox can be made on this machine; the message says what to install."""


# The user ids a graded run takes as root: one of its own for each run of
# the grader (the kernel counts processes per user).
FIRST_UID = 61000
UIDS = 4000


class Sandbox:
    """A bubblewrap sandbox; ``command`` wraps a runner's argument list."""

    def __init__(self, bwrap: str, setpriv: str | None, tables: Path | None):
        self.bwrap = bwrap
        self.setpriv = setpriv
        self.tables = tables
        self.uid = FIRST_UID + os.getpid() % UIDS if setpriv else None

    @classmethod
    def find(cls) -> Sandbox:
        """The sandbox this machine can make, or ``SandboxUnavailable``."""
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxUnavailable(
                "grading in a sandbox needs bubblewrap: `apt-get install bubblewrap` (Debian,"
                " Ubuntu), `dnf install bubblewrap` (Fedora); or grade with --no-sandbox,"
                " trusting every submission with your account"
            )
        setpriv = shutil.which("setpriv") if os.geteuid() == 0 else None
        if os.geteuid() == 0 and setpriv is None:
            raise SandboxUnavailable(
                "grading as root needs setpriv (util-linux) to drop to a user without rights"
            )
        from sternhalma._core import Tablebase

        tables = Path(Tablebase.cache_folder())
        return cls(bwrap, setpriv, tables if tables.is_dir() else None)

    def describe(self) -> str:
        who = f"user {self.uid}" if self.uid is not None else "a user namespace"
        return f"bubblewrap, {who}"

    def _python_paths(self) -> list[Path]:
        """The folders this Python and its packages live in."""
        paths = {
            Path(sys.prefix),
            Path(sys.base_prefix),
            Path(sys.exec_prefix),
            Path(sys.base_exec_prefix),
            Path(sysconfig.get_paths()["stdlib"]),
            Path(sysconfig.get_paths()["purelib"]),
            Path(sysconfig.get_paths()["platlib"]),
            Path(os.path.realpath(sys.executable)).parent.parent,
        }
        paths.update(Path(p) for p in site.getsitepackages())
        import sternhalma

        paths.add(Path(sternhalma.__file__).resolve().parent.parent)
        system = (Path("/usr"), Path("/etc"))
        kept = sorted(
            {
                p.resolve()
                for p in paths
                if p.exists() and not any(p.resolve().is_relative_to(s) for s in system)
            }
        )
        # Only the outermost of nested folders.
        return [p for p in kept if not any(p != q and p.is_relative_to(q) for q in kept)]

    def command(
        self, folder: Path, argv: list[str], *, network: bool
    ) -> tuple[list[str], str, dict[str, str]]:
        """The command that runs ``python argv...`` in the sandbox with
        ``folder`` (holding only the notebook) as its working folder."""
        inside = "/grading"
        if self.uid is not None:
            os.chown(folder, self.uid, self.uid)
            for child in folder.iterdir():
                os.chown(child, self.uid, self.uid)
        folder.chmod(0o700)
        bw = [
            self.bwrap,
            "--die-with-parent",
            "--new-session",
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ]
        if self.uid is None:
            bw.append("--unshare-user")
        if not network:
            bw.append("--unshare-net")
        bw += ["--ro-bind", "/usr", "/usr"]
        for name in ("lib", "lib64", "lib32", "bin", "sbin"):
            path = Path("/") / name
            if path.is_symlink():
                bw += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                bw += ["--ro-bind", str(path), str(path)]
        for name in (
            "ld.so.cache",
            "ld.so.conf",
            "ld.so.conf.d",
            "localtime",
            "hosts",
            "resolv.conf",
            "nsswitch.conf",
            "ssl",
            "alternatives",
            "fonts",
            "matplotlibrc",
        ):
            path = Path("/etc") / name
            if path.exists():
                bw += ["--ro-bind", str(path), str(path)]
        binds = self._python_paths()
        if self.tables is not None:
            binds.append(self.tables.resolve())
        # The folders above each bind, made readable by all (bubblewrap
        # would copy the modes of the real ones: /root is 0700).
        made: set[Path] = {Path("/")}
        for path in binds:
            for parent in reversed(path.parents):
                if parent not in made and parent not in (Path("/usr"), Path("/etc"), Path("/tmp")):
                    made.add(parent)
                    bw += ["--perms", "0755", "--dir", str(parent)]
        for path in binds:
            bw += ["--ro-bind", str(path), str(path)]
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": inside,
            "LANG": "C.UTF-8",
            "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": "/tmp/matplotlib",
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            "RAYON_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONNOUSERSITE": "1",
        }
        if self.tables is not None:
            env["STERNHALMA_TABLES"] = str(self.tables.resolve())
        bw += [
            "--tmpfs",
            "/tmp",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--bind",
            str(folder),
            inside,
            "--chdir",
            inside,
            "--clearenv",
        ]
        for key, value in env.items():
            bw += ["--setenv", key, value]
        bw.append("--")
        if self.uid is not None:
            assert self.setpriv is not None
            bw += [
                self.setpriv,
                f"--reuid={self.uid}",
                f"--regid={self.uid}",
                "--clear-groups",
                "--no-new-privs",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--",
            ]
        bw += [sys.executable, *argv]
        return bw, "/", {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
