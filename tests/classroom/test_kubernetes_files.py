"""The files of a class on Kubernetes (docs/classroom-kubernetes.md,
docs/classroom/kubernetes/), checked where a machine without a cluster can
check them:

- every YAML file there, and every YAML block of the doc, parses;
- game-server.yaml's objects fit together (selectors, ports, the database
  from a Secret), every `sternhalma serve` flag and variable it names is in
  `sternhalma serve --help`, its probe and metrics paths are routes of
  `sternhalma openapi`, and the server starts with its arguments and
  answers on those paths (on SQLite: the arguments are what is checked);
- values.yaml agrees with game-server.yaml and Dockerfile.singleuser (the
  game server's address, its port and labels, the base path, the Jupyter
  settings' folders, the exchange), its teacher hook does what it says,
  and neither file holds a secret;
- with STERNHALMA_Z2JH_CHART naming the chart folder of a
  zero-to-jupyterhub-k8s checkout (its `jupyterhub/`), values.yaml merged
  over the chart's defaults validates against the chart's
  values.schema.yaml. The schema is not kept here: the doc records the
  chart version and commit it was validated against when written.

The binary is target/release/sternhalma (STERNHALMA_BIN names another);
without it the checks that need it are skipped, saying so. PyYAML and
jsonschema come into .venv with tests/requirements.txt (schemathesis, and
nbgrader from the module's [notebooks] extra).
"""

from __future__ import annotations

import copy
import json
import os
import re
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "classroom-kubernetes.md"
FOLDER = ROOT / "docs" / "classroom" / "kubernetes"
VALUES = FOLDER / "values.yaml"
GAME_SERVER = FOLDER / "game-server.yaml"
SINGLEUSER = FOLDER / "Dockerfile.singleuser"
BINARY = Path(os.environ.get("STERNHALMA_BIN", ROOT / "target" / "release" / "sternhalma"))
# Keys whose value would be a secret: in the files only as placeholders.
SECRET_KEYS = {
    "api_token",
    "apiToken",
    "auth_token",
    "client_secret",
    "cookieSecret",
    "cookie_secret",
    "password",
    "secretToken",
    "keys",
}
START_GUARD = 30.0


def load_all(path: Path) -> list[Any]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document is not None]


def objects() -> dict[str, dict]:
    return {document["kind"]: document for document in load_all(GAME_SERVER)}


def container() -> dict:
    (only,) = objects()["Deployment"]["spec"]["template"]["spec"]["containers"]
    return only


def serve_args() -> list[str]:
    args = container()["args"]
    assert args[0] == "serve", args
    return [str(arg) for arg in args]


def flags() -> list[str]:
    return [arg for arg in serve_args() if arg.startswith("--")]


def flag_value(name: str) -> str:
    args = serve_args()
    return args[args.index(name) + 1]


def probes() -> dict[str, dict]:
    found = {
        name: container()[name]
        for name in ("startupProbe", "readinessProbe", "livenessProbe")
        if name in container()
    }
    assert found, "game-server.yaml has no probe"
    return found


def values() -> dict:
    return yaml.safe_load(VALUES.read_text())


def heredocs() -> dict[str, str]:
    """The files Dockerfile.singleuser writes with `COPY <<'EOF' PATH`."""
    found = re.findall(
        r"^COPY [^\n]*<<'EOF' (\S+)\n(.*?)^EOF$", SINGLEUSER.read_text(), re.MULTILINE | re.DOTALL
    )
    assert found, "Dockerfile.singleuser writes no settings file"
    return dict(found)


def walk(node: Any, path: tuple = ()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,), value
            yield from walk(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, path + (index,))


def doc_yaml_blocks() -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```$", DOC.read_text(), re.MULTILINE | re.DOTALL)


@pytest.fixture(scope="module")
def binary() -> Path:
    if not BINARY.is_file():
        pytest.skip(
            f"no server binary at {BINARY}: `cargo build --release -p sternhalma-api` "
            "(or STERNHALMA_BIN) to check the flags, the routes and a start"
        )
    return BINARY


@pytest.fixture(scope="module")
def serve_help(binary: Path) -> str:
    return subprocess.run(
        [str(binary), "serve", "--help"], check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture(scope="module")
def routes(binary: Path) -> dict:
    document = subprocess.run(
        [str(binary), "openapi"], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(document)["paths"]


def known_flags(help_text: str) -> set[str]:
    return set(re.findall(r"^\s+(?:-\w, )?(--[a-z0-9-]+)", help_text, re.MULTILINE))


# -- Every file parses ---------------------------------------------------------


@pytest.mark.parametrize("path", sorted(FOLDER.glob("*.yaml")), ids=lambda p: p.name)
def test_every_yaml_file_parses(path: Path) -> None:
    assert load_all(path), f"{path.name} is empty"


def test_the_doc_yaml_blocks_parse() -> None:
    blocks = doc_yaml_blocks()
    assert blocks, "the doc has no YAML block"
    for block in blocks:
        yaml.safe_load_all(block)
        assert [d for d in yaml.safe_load_all(block) if d is not None], block


def test_the_singleuser_settings_files_parse() -> None:
    for path, text in heredocs().items():
        if path.endswith(".json"):
            json.loads(text)
        elif path.endswith(".py"):
            compile(text, path, "exec")
        else:
            raise AssertionError(f"{path}: neither JSON nor Python")


# -- game-server.yaml ----------------------------------------------------------


def test_game_server_objects_fit_together() -> None:
    found = objects()
    assert set(found) == {"Deployment", "Service", "PodDisruptionBudget", "NetworkPolicy"}
    deployment = found["Deployment"]
    assert deployment["spec"]["replicas"] == 2
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    selectors = {
        "Deployment": deployment["spec"]["selector"]["matchLabels"],
        "Service": found["Service"]["spec"]["selector"],
        "PodDisruptionBudget": found["PodDisruptionBudget"]["spec"]["selector"]["matchLabels"],
        "NetworkPolicy": found["NetworkPolicy"]["spec"]["podSelector"]["matchLabels"],
    }
    for kind, selector in selectors.items():
        assert selector and selector.items() <= pod_labels.items(), (kind, selector, pod_labels)
    assert found["PodDisruptionBudget"]["spec"]["minAvailable"] < deployment["spec"]["replicas"]
    # One port, named where it is used.
    (port,) = container()["ports"]
    assert str(port["containerPort"]) == flag_value("--port")
    (service_port,) = found["Service"]["spec"]["ports"]
    assert service_port["targetPort"] in (port["name"], port["containerPort"])
    for name, probe in probes().items():
        assert probe["httpGet"]["port"] in (port["name"], port["containerPort"]), name
    policy_ports = [
        p["port"] for rule in found["NetworkPolicy"]["spec"]["ingress"] for p in rule["ports"]
    ]
    assert policy_ports == [port["containerPort"]]
    assert flag_value("--bind") == "0.0.0.0", "a pod's server must listen beyond its loopback"


def test_the_database_comes_from_a_secret() -> None:
    assert "--database" not in flags(), "the URL carries a password: not an argument"
    env = {item["name"]: item for item in container()["env"]}
    database = env["STERNHALMA_DATABASE"]
    assert "value" not in database
    assert database["valueFrom"]["secretKeyRef"]["name"]
    assert "postgres://" not in GAME_SERVER.read_text().split("\napiVersion", 1)[1]


@pytest.mark.parametrize("flag", flags())
def test_every_serve_flag_exists(flag: str, serve_help: str) -> None:
    assert flag in known_flags(serve_help), f"`sternhalma serve` has no {flag}"


def test_every_serve_variable_exists(serve_help: str) -> None:
    names = [item["name"] for item in container()["env"]]
    assert names
    for name in names:
        assert f"[env: {name}" in serve_help, f"`sternhalma serve` reads no {name}"


def test_probe_and_metrics_paths_are_routes(routes: dict) -> None:
    paths = {name: probe["httpGet"]["path"] for name, probe in probes().items()}
    annotations = objects()["Deployment"]["spec"]["template"]["metadata"].get("annotations", {})
    if "prometheus.io/path" in annotations:
        paths["metrics"] = annotations["prometheus.io/path"]
        assert annotations["prometheus.io/port"] == flag_value("--port")
    for name, path in paths.items():
        assert path in routes and "get" in routes[path], (
            f"{name}: no GET {path} in the OpenAPI document"
        )


def fetch(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_server_starts_with_these_arguments(binary: Path, tmp_path: Path) -> None:
    """The Deployment's arguments, but on a free port of the loopback and
    with a SQLite file for the Secret's URL."""
    args = serve_args()
    run: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--port":
            run += [arg, "0"]
            index += 2
        elif arg == "--bind":
            run += [arg, "127.0.0.1"]
            index += 2
        else:
            run.append(arg)
            index += 1
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "STERNHALMA_DATABASE": str(tmp_path / "game.sqlite3"),
    }
    server = subprocess.Popen(
        [str(binary), *run],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=(tmp_path / "server.log").open("w"),
        text=True,
    )
    try:
        line = server.stdout.readline()
        match = re.search(r"listening on (http://\S+)", line)
        assert match, f"no address printed: {line!r}; log: {(tmp_path / 'server.log').read_text()}"
        base = match.group(1)
        paths = sorted({probe["httpGet"]["path"] for probe in probes().values()} | {"/metrics"})
        for path in paths:
            assert fetch(base + path) == 200, path
        if "--base-path" in run:
            prefix = flag_value("--base-path").rstrip("/")
            for path in paths:
                assert fetch(base + prefix + path) == 200, prefix + path
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=START_GUARD)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert code == 0, (tmp_path / "server.log").read_text()[-2000:]


# -- values.yaml -----------------------------------------------------------------


def test_values_name_the_game_server_as_game_server_yaml_makes_it() -> None:
    found = objects()
    service = found["Service"]
    (service_port,) = service["spec"]["ports"]
    expected = f"http://{service['metadata']['name']}:{service_port['port']}"
    config = values()
    assert config["singleuser"]["extraEnv"]["STERNHALMA_URL"] == expected
    (name,) = config["hub"]["services"]
    assert config["hub"]["services"][name]["url"] == expected
    # The hub's proxy sends /services/<name>/ with the prefix kept.
    assert flag_value("--base-path").rstrip("/") == f"/services/{name}"
    pod_labels = found["Deployment"]["spec"]["template"]["metadata"]["labels"]
    (port,) = container()["ports"]
    for where in (config["singleuser"], config["proxy"]["chp"]):
        rules = where["networkPolicy"]["egress"]
        assert any(
            any(
                peer.get("podSelector", {}).get("matchLabels", {}).items() <= pod_labels.items()
                for peer in rule["to"]
            )
            and [p["port"] for p in rule["ports"]] == [port["containerPort"]]
            for rule in rules
        ), rules


def teacher_hook():
    (snippet,) = values()["hub"]["extraConfig"].values()
    c = SimpleNamespace(KubeSpawner=SimpleNamespace())
    exec(compile(snippet, "hub.extraConfig", "exec"), {"c": c})  # noqa: S102 (the values' own hook)
    return c.KubeSpawner.pre_spawn_hook


def spawner(admin: bool, mounts_as_list: bool = False) -> SimpleNamespace:
    config = values()
    mounts = copy.deepcopy(config["singleuser"]["storage"]["extraVolumeMounts"])
    return SimpleNamespace(
        user=SimpleNamespace(name="teacher" if admin else "ada_lovelace", admin=admin),
        environment=dict(config["singleuser"]["extraEnv"]),
        volume_mounts=mounts if mounts_as_list else {f"{i}-x": m for i, m in enumerate(mounts)},
    )


def test_the_teacher_hook_changes_the_teacher_alone() -> None:
    hook = teacher_hook()
    config = values()
    volumes = {v["name"] for v in config["singleuser"]["storage"]["extraVolumes"]}

    student = spawner(admin=False)
    before = copy.deepcopy(vars(student))
    hook(student)
    assert vars(student) == before
    assert "STERNHALMA_HELD_OUT" not in student.environment

    for as_list in (False, True):
        teacher = spawner(admin=True, mounts_as_list=as_list)
        shared_env = teacher.environment
        hook(teacher)
        assert "STERNHALMA_HELD_OUT" not in shared_env, "the hook changed the shared settings"
        held_out = teacher.environment["STERNHALMA_HELD_OUT"]
        assert set(held_out) == {"valueFrom"} and held_out["valueFrom"]["secretKeyRef"]["name"]
        assert "jupyter-students" not in teacher.environment["JUPYTER_CONFIG_PATH"]
        mounts = teacher.volume_mounts.values() if not as_list else teacher.volume_mounts
        course = [m for m in mounts if m["mountPath"] == "/home/jovyan/course"]
        assert len(course) == 1 and course[0]["name"] in volumes


def test_the_image_has_every_settings_folder_the_values_name() -> None:
    written = {str(Path(path).parent) for path in heredocs()}
    written |= {str(Path(path).parent.parent) for path in heredocs() if "/labconfig/" in path}
    students = values()["singleuser"]["extraEnv"]["JUPYTER_CONFIG_PATH"].split(":")
    teacher_server = spawner(admin=True)
    teacher_hook()(teacher_server)
    teacher = teacher_server.environment["JUPYTER_CONFIG_PATH"].split(":")
    assert teacher != students
    for folder in students + teacher:
        assert folder in written, f"{folder} is named in values.yaml but the image does not make it"
    # nbgrader's exchange is where the class share is mounted.
    settings = heredocs()["/etc/sternhalma/jupyter/nbgrader_config.py"]
    (root,) = re.findall(r'c\.Exchange\.root = "([^"]+)"', settings)
    mounts = values()["singleuser"]["storage"]["extraVolumeMounts"]
    assert root in [m["mountPath"] for m in mounts]


def test_no_secret_in_the_files() -> None:
    for path in (VALUES, GAME_SERVER):
        for document in load_all(path):
            for keys, value in walk(document):
                if keys[-1] in SECRET_KEYS and value is not None:
                    assert isinstance(value, str) and re.fullmatch(r"<[^>]+>", value), (
                        f"{path.name}: {'.'.join(map(str, keys))} holds a value, not a placeholder"
                    )
    text = VALUES.read_text() + GAME_SERVER.read_text()
    assert not re.search(r"postgres(ql)?://[^\s<]+:[^\s<@]+@", text), "a password in a URL"


def merge(base: Any, over: Any) -> Any:
    """Helm's merge of a values file over the chart's defaults: maps merged
    key by key, the file's value otherwise, null removing the key."""
    if not (isinstance(base, dict) and isinstance(over, dict)):
        return copy.deepcopy(over)
    merged = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge(merged.get(key), value)
    return merged


def test_values_validate_against_the_chart_schema() -> None:
    chart = os.environ.get("STERNHALMA_Z2JH_CHART", "").strip()
    if not chart:
        pytest.skip(
            "STERNHALMA_Z2JH_CHART is not set (the jupyterhub/ folder of a "
            "zero-to-jupyterhub-k8s checkout); docs/classroom-kubernetes.md records the "
            "chart version and commit values.yaml was validated against"
        )
    import jsonschema

    folder = Path(chart)
    defaults = yaml.safe_load((folder / "values.yaml").read_text())
    schema = yaml.safe_load((folder / "values.schema.yaml").read_text())
    # The doc's values files (roster.yaml, the Ingress variant), each over
    # values.yaml as the doc passes them to helm.
    overlays = [{}]
    for block in doc_yaml_blocks():
        overlays += [d for d in yaml.safe_load_all(block) if d and "apiVersion" not in d]
    assert len(overlays) > 1, "the doc has no values file"
    validator = jsonschema.Draft7Validator(schema)
    for overlay in overlays:
        merged = merge(merge(defaults, values()), overlay)
        errors = [
            f"{'.'.join(map(str, error.path)) or '(top)'}: {error.message}"
            for error in validator.iter_errors(merged)
        ]
        assert not errors, (overlay, errors)


def test_the_doc_installs_the_chart_version_the_values_were_checked_with() -> None:
    header = VALUES.read_text().split("\nhub:")[0]
    checked = re.search(r"chart (\d+\.\d+\.\d+)", header).group(1)
    assert f"--version {checked}" in header
    text = DOC.read_text()
    assert f"--version {checked}" in text
    assert "helm repo add jupyterhub https://hub.jupyter.org/helm-chart/" in text
