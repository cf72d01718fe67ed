#!/usr/bin/env bash
# The wheel as a class installs it, on a LAN without internet: the teacher
# fills the served folder with scripts/wheelhouse (the wheel and every
# dependency of its [notebooks] extra, for the students' Python) and the
# server offers it at /downloads/; a student machine with Python and no
# Rust (a fresh venv of the system's python3, PATH=/usr/bin:/bin, a home of
# its own) runs the commands the listing gives, `pip install --no-index
# --find-links http://<server>/downloads/ --trusted-host <server> ...`, with
# no pip configuration and every other address behind a dead proxy, so
# that the server is the only source pip can reach.
#
# The server listens on this machine's LAN address when it has one (as a
# teacher's does; pip trusts a --find-links page over plain HTTP on
# another host only with --trusted-host, which is checked too), else on
# 127.0.0.1.
#
# Then, in a venv with the module alone (the listing's plain command):
# tests/wheel/smoke.py. In a venv with the [notebooks] extra (the class
# setup of notebooks/README.md): the smoke test, nbgrader, `jupyter lab`
# started and answering, notebooks 1 and 5 executed (5 with STERNHALMA_URL
# naming the server), and `python -m sternhalma.examples.random_bot`
# playing a match on the server; the JavaScript examples downloaded from
# it are the repository's.
#
# Usage: tests/wheel/run.sh SERVER_BINARY WHEEL
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
binary=$1
wheel=$2
name=$(basename "$wheel")
# The student's interpreter: the system's, not the one the wheel was built
# with (override with STUDENT_PYTHON).
python=${STUDENT_PYTHON:-/usr/bin/python3}
version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

scratch=$(mktemp -d)
server=
lab=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  if [ -n "$lab" ]; then kill "$lab" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# The teacher's folder: the wheel and its wheelhouse, for the one Python
# the students here have (a class's would name theirs, or take the
# default 3.11 to 3.14). This is the only step that reaches the package
# index.
mkdir -p "$scratch/downloads"
cp "$wheel" "$scratch/downloads/"
started=$SECONDS
"$root/scripts/wheelhouse" --python "$version" "$scratch/downloads/$name" > "$scratch/wheelhouse.log" 2>&1 \
  || { tail -n 40 "$scratch/wheelhouse.log"; echo "scripts/wheelhouse failed"; exit 1; }
tail -n 2 "$scratch/wheelhouse.log"
echo "the wheelhouse for Python $version in $((SECONDS - started)) s"
ls -A "$scratch/downloads" | grep -v '\.whl$' && { echo "scripts/wheelhouse left other files"; exit 1; }

# The teacher's machine as the class sees it: its LAN address if it has one.
host=${STERNHALMA_TEST_HOST:-$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9.]+$' | grep -v '^127\.' | head -n 1 || true)}
host=${host:-127.0.0.1}
"$binary" serve --bind "$host" --port 0 --database "$scratch/server.sqlite3" --log-level warn \
  --downloads-dir "$scratch/downloads" > "$scratch/serve.log" 2>&1 &
server=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://[0-9.:]*' "$scratch/serve.log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$scratch/serve.log"; echo "the server did not start"; exit 1; }
echo "the teacher's server: $url"

# Everything the student runs: no variable of this machine (CARGO_HOME,
# RUSTUP_HOME, PIP_*), no ~/.cargo/bin on PATH.
student() {
  env -i PATH=/usr/bin:/bin HOME="$scratch/home" LANG=C.UTF-8 "$@"
}
# A pip of the student's that can reach the teacher's server and nothing
# else: no configuration file (PIP_CONFIG_FILE=/dev/null: not even
# /etc/pip.conf), no index, and a proxy that answers nothing for every
# other address.
offline_pip() {
  student PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 no_proxy="$host" "$@"
}
mkdir -p "$scratch/home"
for tool in cargo rustc rustup; do
  if student sh -c "command -v $tool"; then
    echo "$tool is on the student's PATH: the test would prove nothing"
    exit 1
  fi
done

# The listing, read as a student's script would: the wheel, its digest and
# its command; the commands that install from the server alone, with this
# server's address; the JavaScript examples, which are the repository's.
student "$python" - "$url" "$name" "$(sha256sum "$wheel" | cut -d' ' -f1)" "$root/examples/clients" \
  "$scratch/downloads" > "$scratch/commands" <<'EOF'
import hashlib
import html
import json
import pathlib
import sys
import urllib.parse
import urllib.request

url, name, digest, examples, folder = sys.argv[1:]
listing_url = f"{url}/downloads/"
with urllib.request.urlopen(listing_url) as response:
    listing = json.load(response)
files = listing["files"]
(entry,) = [f for f in files if f["name"] == name]
assert entry["sha256"] == digest, (entry, digest)
assert entry["pip"] == f"pip install {entry['url']}", entry
# Every wheel of the wheelhouse is offered, none left out for its name.
on_disk = sorted(p.name for p in pathlib.Path(folder).glob("*.whl"))
assert [f["name"] for f in files] == on_disk, set(on_disk) ^ {f["name"] for f in files}
host = urllib.parse.urlsplit(url).netloc
prefix = f"pip install --no-index --find-links {listing_url} --trusted-host {host}"
assert listing["find_links"] == listing_url, listing["find_links"]
assert listing["offline"] == {
    "plain": f"{prefix} sternhalma",
    "notebooks": f'{prefix} "sternhalma[notebooks]"',
}, listing["offline"]
# The page pip reads lists the same, and shows the commands.
request = urllib.request.Request(listing_url, headers={"Accept": "text/html"})
with urllib.request.urlopen(request) as response:
    page = response.read().decode()
for f in files:
    assert f'href="{f["name"]}#sha256={f["sha256"]}"' in page, f["name"]
# The commands as the browser shows them (the page escapes their quotes:
# no raw `"` of a command is left in it).
assert f'{prefix} "sternhalma[notebooks]"' in html.unescape(page)
assert '"sternhalma[notebooks]"' not in page
assert prefix + " sternhalma<" in page
assert "python -m sternhalma.examples.random_bot " + url in page
# The JavaScript examples, byte for byte, and their digests.
names = sorted(p.name for p in pathlib.Path(examples).glob("*.js"))
assert [e["name"] for e in listing["examples"]] == names, listing["examples"]
for example in listing["examples"]:
    with urllib.request.urlopen(example["url"]) as response:
        text = response.read()
    assert text == (pathlib.Path(examples) / example["name"]).read_bytes(), example["name"]
    assert hashlib.sha256(text).hexdigest() == example["sha256"]
    assert f'href="examples/{example["name"]}"' in page
print(f"{len(files)} wheels and {len(names)} examples listed", file=sys.stderr)
print(listing["offline"]["plain"])
print(listing["offline"]["notebooks"])
EOF
plain=$(sed -n 1p "$scratch/commands")
notebooks=$(sed -n 2p "$scratch/commands")
echo "listing: $notebooks"

# The words of a listed command, run with a venv's pip.
run_listed() {
  local venv=$1 command=$2
  local words
  # The quotes around sternhalma[notebooks] are the shell's, as a student's
  # shell would read them.
  eval "words=($command)"
  [ "${words[0]}" = pip ] || { echo "not a pip command: $command"; exit 1; }
  offline_pip "$venv/bin/pip" "${words[@]:1}" --quiet
}

# Over plain HTTP to another machine, pip ignores the page without
# --trusted-host: the listing's commands need it.
if [ "$host" != 127.0.0.1 ]; then
  student "$python" -m venv "$scratch/untrusted"
  if offline_pip "$scratch/untrusted/bin/pip" download --no-index --find-links "$url/downloads/" \
    --dest "$scratch/untrusted/d" numpy > "$scratch/untrusted.log" 2>&1; then
    echo "pip read $url/downloads/ without --trusted-host: the test does not see a LAN"
    exit 1
  fi
  grep -q "not a trusted or secure host" "$scratch/untrusted.log" \
    || { cat "$scratch/untrusted.log"; exit 1; }
  echo "without --trusted-host pip ignores the listing, as expected"
fi

# The module alone (with numpy), from the server alone.
student "$python" -m venv "$scratch/lan"
started=$SECONDS
run_listed "$scratch/lan" "$plain"
echo "$plain: installed in $((SECONDS - started)) s"
(cd "$scratch" && student "$scratch/lan/bin/python" "$root/tests/wheel/smoke.py")

# The class setup of notebooks/README.md, from the server alone: the
# [notebooks] extra (JupyterLab, nbgrader, ...), then JupyterLab as a
# student starts it, and notebooks 1 and 5 executed by that venv's Jupyter.
student "$python" -m venv "$scratch/venv"
started=$SECONDS
run_listed "$scratch/venv" "$notebooks"
echo "$notebooks: installed in $((SECONDS - started)) s"
(cd "$scratch" && student "$scratch/venv/bin/python" "$root/tests/wheel/smoke.py")
student "$scratch/venv/bin/nbgrader" --version
# JupyterLab as the student starts it (no browser here): up, and serving
# the lab page.
port=$(student "$scratch/venv/bin/python" -c \
  'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# (CI runs as root, which JupyterLab refuses without --allow-root.)
as_root=()
if [ "$(id -u)" = 0 ]; then as_root=(--allow-root); fi
(cd "$scratch/home" && exec env -i PATH=/usr/bin:/bin HOME="$scratch/home" LANG=C.UTF-8 \
  "$scratch/venv/bin/jupyter" lab --no-browser --ip 127.0.0.1 --port "$port" "${as_root[@]}" \
  --IdentityProvider.token=class > "$scratch/lab.log" 2>&1) &
lab=$!
student "$scratch/venv/bin/python" - "http://127.0.0.1:$port" <<'EOF' || { tail -n 30 "$scratch/lab.log"; exit 1; }
import sys
import time
import urllib.request

base = sys.argv[1]
for _ in range(1200):  # a liveness guard only: JupyterLab answers in seconds
    try:
        with urllib.request.urlopen(f"{base}/api/status?token=class", timeout=5) as answer:
            if answer.status == 200:
                break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("jupyter lab did not answer")
with urllib.request.urlopen(f"{base}/lab?token=class", timeout=30) as answer:
    page = answer.read().decode()
assert answer.status == 200 and "JupyterLab" in page, page[:500]
print("jupyter lab answers at", base)
EOF
kill "$lab"
wait "$lab" || true
lab=
# Notebooks 1 and 5 executed by that venv's Jupyter, outside the checkout;
# notebook 5 finds the server through STERNHALMA_URL, as a class's would.
cp "$root/notebooks/source/01_meet_the_board/01_meet_the_board.ipynb" \
  "$root/notebooks/source/05_bots_over_http/05_bots_over_http.ipynb" "$scratch/home/"
(cd "$scratch/home" && student "$scratch/venv/bin/jupyter" execute --inplace 01_meet_the_board.ipynb)
(cd "$scratch/home" && student env STERNHALMA_URL="$url" \
  "$scratch/venv/bin/jupyter" execute --inplace 05_bots_over_http.ipynb)
grep -q "LocalServer $url (found running)" "$scratch/home/05_bots_over_http.ipynb"
echo "notebooks 1 and 5 ran in the student's JupyterLab venv"

# The README's example client, installed with the module: a seat of a
# match on the server against a built-in bot, played to the end.
match=$(student "$scratch/venv/bin/python" - "$url" <<'EOF'
import json
import sys
import urllib.request

body = {
    "board": "rhombus5p3",
    "rules": {"preset": "masters", "max_plies": 60},
    "seats": [{"name": "student"}, {"name": "greedy", "bot": {"kind": "greedy", "seed": 1}}],
}
request = urllib.request.Request(
    f"{sys.argv[1]}/v1/matches",
    data=json.dumps(body).encode(),
    headers={"Content-Type": "application/json"},
)
with urllib.request.urlopen(request) as response:
    created = json.load(response)
print(created["match"]["id"], created["seat_tokens"][0]["token"])
EOF
)
read -r match_id token <<< "$match"
(cd "$scratch/home" && student "$scratch/venv/bin/python" -m sternhalma.examples.random_bot \
  "$url" "$match_id" 0 "$token" --seed 3) | tee "$scratch/bot.log"
grep -q "python bot, seat 0: finished" "$scratch/bot.log"
echo "python -m sternhalma.examples.random_bot played match $match_id on the server"
