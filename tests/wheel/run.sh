#!/usr/bin/env bash
# The wheel as a class installs it: the teacher's server offers it at
# /downloads/; a student machine with Python and no Rust (a fresh venv of the
# system's python3, PATH=/usr/bin:/bin, a home of its own) runs the pip
# command the listing gives, numpy coming from the package index, then
# tests/wheel/smoke.py. Also checks that the listing's digest is the file's,
# and the README's way for a LAN without internet: numpy's wheel put beside
# ours, both installed with `pip install --no-index --find-links
# http://<server>/downloads/ sternhalma` (pip reads the HTML listing).
#
# Then the class setup of notebooks/README.md in the same venv: the
# wheel's [notebooks] extra, nbgrader, `jupyter lab` started and answering,
# notebooks 1 and 5 executed (5 with STERNHALMA_URL naming the server).
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

scratch=$(mktemp -d)
server=
lab=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
  if [ -n "$lab" ]; then kill "$lab" 2>/dev/null || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# A copy of the folder: numpy's wheel is added to it below.
mkdir -p "$scratch/downloads"
cp "$wheel" "$scratch/downloads/"
"$binary" serve --port 0 --database "$scratch/server.sqlite3" --log-level warn \
  --downloads-dir "$scratch/downloads" > "$scratch/serve.log" 2>&1 &
server=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://[0-9.:]*' "$scratch/serve.log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { cat "$scratch/serve.log"; echo "the server did not start"; exit 1; }

# Everything the student runs: no variable of this machine (CARGO_HOME,
# RUSTUP_HOME, PIP_*), no ~/.cargo/bin on PATH.
student() {
  env -i PATH=/usr/bin:/bin HOME="$scratch/home" LANG=C.UTF-8 "$@"
}
mkdir -p "$scratch/home"
for tool in cargo rustc rustup; do
  if student sh -c "command -v $tool"; then
    echo "$tool is on the student's PATH: the test would prove nothing"
    exit 1
  fi
done

# The listing, read as a student's script would: the entry, its digest and
# the command to run.
pip_command=$(student "$python" - "$url/downloads/" "$name" "$(sha256sum "$wheel" | cut -d' ' -f1)" <<'EOF'
import json
import sys
import urllib.request

listing, name, digest = sys.argv[1:]
with urllib.request.urlopen(listing) as response:
    files = json.load(response)["files"]
(entry,) = [f for f in files if f["name"] == name]
assert entry["sha256"] == digest, (entry, digest)
assert entry["pip"] == f"pip install {entry['url']}", entry
print(entry["pip"])
EOF
)
echo "listing: $pip_command"

student "$python" -m venv "$scratch/venv"
started=$SECONDS
# The command as listed, with the venv's pip; quiet, and no advice to upgrade.
read -r -a words <<< "$pip_command"
student "$scratch/venv/bin/${words[0]}" "${words[@]:1}" --quiet --disable-pip-version-check
echo "pip installed it in $((SECONDS - started)) s (numpy from the index)"
(cd "$scratch" && student "$scratch/venv/bin/python" "$root/tests/wheel/smoke.py")

# The class setup of notebooks/README.md: the same wheel with the
# [notebooks] extra (JupyterLab, nbgrader, ...), then JupyterLab as a
# student starts it, and notebook 1 executed by that venv's Jupyter.
started=$SECONDS
student "$scratch/venv/bin/pip" install --quiet --disable-pip-version-check \
  "sternhalma[notebooks] @ $url/downloads/$name"
echo "pip installed the [notebooks] extra in $((SECONDS - started)) s"
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

# A LAN without internet: the teacher adds numpy's wheel (for the students'
# Python) to the folder; students install both from the server alone.
student "$scratch/venv/bin/pip" download --quiet --disable-pip-version-check \
  --only-binary=:all: --dest "$scratch/downloads" numpy
student "$python" -m venv "$scratch/lan"
student "$scratch/lan/bin/pip" install --quiet --disable-pip-version-check \
  --no-index --find-links "$url/downloads/" sternhalma
(cd "$scratch" && student "$scratch/lan/bin/python" "$root/tests/wheel/smoke.py")
echo "pip install --no-index --find-links $url/downloads/ sternhalma: installed from the server alone"
