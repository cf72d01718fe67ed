"""JupyterHub's configuration for a class started by `scripts/classroom up`
(docs/classroom.md).

`up` copies this file into the class's hub folder (DIR/hub, readable by
root only) beside `class.json`, which holds the class's settings (users,
ports, paths, limits); the secrets are files in DIR/secrets, also root's
alone. Edit the settings by running `up` again, not here.
"""

import json
import sys
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner

c = get_config()  # noqa: F821 (JupyterHub defines it)

HUB = Path(__file__).resolve().parent
CLASS = json.loads((HUB / "class.json").read_text())
SECRETS = Path(CLASS["secrets"])
VENV = Path(CLASS["venv"])
PYTHON = str(VENV / "bin" / "python")

sys.path.insert(0, CLASS["lib"])
from limits import Limits, StudentLimits


def secret(name: str) -> str:
    return (SECRETS / name).read_text().strip()


# -- Where the hub listens, and its own files -------------------------------
# HTTPS when up was given a certificate (--ssl-cert, --ssl-key): the proxy
# answers with it, and the hub's cookies are then sent over HTTPS only.
SCHEME = "https" if CLASS.get("ssl_cert") else "http"
c.JupyterHub.bind_url = f"{SCHEME}://{CLASS['bind']}:{CLASS['port']}"
if CLASS.get("ssl_cert"):
    c.JupyterHub.ssl_cert = CLASS["ssl_cert"]
    c.JupyterHub.ssl_key = CLASS["ssl_key"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = CLASS["hub_port"]
c.JupyterHub.db_url = f"sqlite:///{HUB / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(SECRETS / "cookie-secret")
c.JupyterHub.pid_file = str(HUB / "jupyterhub.pid")
c.JupyterHub.log_datefmt = "%Y-%m-%d %H:%M:%S"
c.JupyterHub.template_vars = {"announcement_login": CLASS["login_note"]}

# configurable-http-proxy from npm, in a folder of its own; a pid file of
# this class's own, so two classes on one machine never stop each other's.
c.ConfigurableHTTPProxy.command = [CLASS["proxy_bin"]]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{CLASS['proxy_api_port']}"
c.ConfigurableHTTPProxy.auth_token = secret("proxy-token")
c.ConfigurableHTTPProxy.pid_file = str(HUB / "proxy.pid")

# -- Accounts ---------------------------------------------------------------
# FirstUseAuthenticator: the first password a roster name logs in with
# becomes its password (stored as a bcrypt hash in the hub's folder). Only
# the roster and the teacher may log in (create_users False: names the hub
# does not know are refused before any password is stored).
c.JupyterHub.authenticator_class = "firstuseauthenticator.FirstUseAuthenticator"
c.FirstUseAuthenticator.dbm_path = str(HUB / "passwords.dbm")
c.FirstUseAuthenticator.create_users = False
c.FirstUseAuthenticator.min_password_length = CLASS["min_password_length"]
c.Authenticator.allowed_users = {s["username"] for s in CLASS["students"]}
c.Authenticator.admin_users = {CLASS["teacher"]}

# -- Each user's server: a local process as that user, with limits ----------
CGROUPS = CLASS["limit_mode"] == "cgroup"
LIMITS = StudentLimits(
    CLASS["class_id"],
    Limits(**CLASS["limits"]),
    groups=CLASS["cgroups"] if CGROUPS else {},
    prefer="cgroup" if CGROUPS else "prlimit",
)
# As `up` found it (with the reason when it is prlimit).
print(f"[classroom] per-student limits: {CLASS['limit_description']}", file=sys.stderr, flush=True)


class ClassSpawner(LocalProcessSpawner):
    """LocalProcessSpawner with the class's limits: the server's process
    joins the student's cgroups (or gets its rlimits) before it becomes the
    student, so every process it starts (kernels, terminals) is held too."""

    async def start(self):
        self._procs_files = LIMITS.prepare(self.user.name)
        self.log.info("[classroom] limits for %s: %s", self.user.name, CLASS["limit_description"])
        return await super().start()

    def make_preexec_fn(self, name):
        become = super().make_preexec_fn(name)
        procs_files = list(getattr(self, "_procs_files", []))

        def preexec():
            LIMITS.join(procs_files)
            become()

        return preexec

    def get_env(self):
        env = super().get_env()
        if self.user.name == CLASS["teacher"]:
            env["JUPYTER_CONFIG_PATH"] = CLASS["jupyter_config"]
            # The held-out cases' secret, for the formgrader's autograde;
            # never in a student's environment.
            env["STERNHALMA_HELD_OUT"] = secret("held-out")
        return env


c.JupyterHub.spawner_class = ClassSpawner
c.Spawner.cmd = [str(VENV / "bin" / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 90
c.Spawner.environment = {
    # The game server, straight (not through the hub's proxy): notebooks 5
    # and 7 read it (sternhalma.server.find_server).
    "STERNHALMA_URL": f"http://127.0.0.1:{CLASS['game_port']}",
    # The class's Jupyter settings come first (before ~/.jupyter): the
    # course and the exchange for nbgrader; for students, the formgrader
    # and Create Assignment off (get_env: the teacher keeps them).
    "JUPYTER_CONFIG_PATH": f"{CLASS['jupyter_config_students']}:{CLASS['jupyter_config']}",
    "PATH": f"{VENV / 'bin'}:/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
}

# -- Services: the game server under /services/game/, the culler -------------
# The hub's proxy sends /services/game/... to the game server with the
# prefix kept; `--base-path` makes the server answer there (and still at
# its root, for the kernels) and name its pages, assets and redirects
# under it, so the web board works through the hub's one port.
GAME_COMMAND = (
    f"exec {CLASS['game_bin']} serve --bind 127.0.0.1 --port {CLASS['game_port']}"
    f" --base-path {CLASS['game_prefix']}"
    f" --database {CLASS['game_dir']}/sternhalma.sqlite3 --no-limits --log-level info"
    f" >> {CLASS['game_dir']}/game.log 2>&1"
)
c.JupyterHub.services = [
    {
        # The game server, on its own port of 127.0.0.1 (kernels reach it
        # there), as an unprivileged user of its own, and through the hub's
        # port. `--no-limits`: every student's kernel comes from this one
        # machine's address.
        "name": "game",
        "url": f"http://127.0.0.1:{CLASS['game_port']}",
        "command": ["/bin/sh", "-c", GAME_COMMAND],
        "user": CLASS["game_user"],
        "cwd": CLASS["game_dir"],
        "environment": {"PATH": "/usr/bin:/bin"},
        "display": False,
    },
    {
        # Stops servers idle for this long (a student's files stay).
        "name": "idle-culler",
        "command": [
            PYTHON,
            "-m",
            "jupyterhub_idle_culler",
            f"--timeout={CLASS['idle_minutes'] * 60}",
            "--cull-every=300",
        ],
    },
    {
        # `scripts/classroom status` and `down` read the hub with this token.
        "name": "classroom",
        "api_token": secret("api-token"),
    },
]
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    },
    {
        "name": "classroom",
        "scopes": [
            "list:users",
            "read:users",
            "read:servers",
            "admin:server_state",
            "delete:servers",
        ],
        "services": ["classroom"],
    },
]
