#!/usr/bin/env bash
# A class from start to end (docs/classroom.md): `scripts/classroom up` with a
# roster of five students on a free port in a temporary folder; each
# student, in headless Chromium, logs in for the first time (the password
# they choose becomes theirs), gets a server, fetches notebooks 1 and 3 from the
# Assignment List, imports sternhalma in a kernel that reaches the game
# server, and submits them (one with the solutions, two untouched); the
# teacher collects and autogrades (in the sandbox) with `scripts/classroom
# grade`: full marks for the first, zero for the others, in the gradebook;
# each student fetches the feedback and reads the score; the teacher has
# the formgrader, students do not; `scripts/classroom tournament` enters a
# student in a tournament, whose bot plays it from their kernel while the
# web board shows it through the hub's port; `status` lists everyone's servers;
# `down` leaves nothing running and every file in place. Prints how long
# each part took.
#
# Needs root (it makes accounts; CI runs as root), the game server's
# binary and the module's wheel; installs the rest when missing: Debian's
# chromium and bubblewrap (apt-get), playwright-core (npm ci), the hub's
# venv and configurable-http-proxy (scripts/classroom up) into
# $STERNHALMA_CLASSROOM_TOOLS (default /var/cache/sternhalma-classroom,
# kept between runs so that a second run installs nothing).
#
# STERNHALMA_CLASSROOM_LIMITS=prlimit tries the limits of machines without
# cgroup v1 (default: auto).
#
# Usage: tests/classroom/run.sh [SERVER_BINARY] [WHEEL]
#   (defaults: target/release/sternhalma, the newest dist/sternhalma-*.whl)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server=${1:-$root/target/release/sternhalma}
wheel=${2:-$(ls -t "$root"/dist/sternhalma-*.whl 2> /dev/null | head -n 1)}
tools=${STERNHALMA_CLASSROOM_TOOLS:-/var/cache/sternhalma-classroom}
# Notebooks 1 and 3, as the issue's proof names them (any assignments of
# the course, space-separated; each is graded by the course's checks in the
# sandbox, docs/grading.md).
read -r -a assignments <<< "${STERNHALMA_CLASSROOM_ASSIGNMENTS:-01_meet_the_board 03_adversarial_search}"

say() { printf '\n-- %s  [%ds]\n' "$*" "$SECONDS"; }
fail() { echo "tests/classroom: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "run as root: the test makes Linux accounts for the class"
[ -x "$server" ] || fail "no game server at $server (cargo build --release -p sternhalma-api)"
[ -f "$wheel" ] || fail "no wheel (scripts/wheel)"

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "$@" > /dev/null \
    || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" > /dev/null; }
}
[ -x /usr/bin/chromium ] || { echo "installing Debian's chromium (apt-get)"; apt_install chromium; }
command -v bwrap > /dev/null || { echo "installing bubblewrap (apt-get)"; apt_install bubblewrap; }
(cd "$here" && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; })

# The class: its folder, exchange and accounts are this run's alone (a
# random suffix on every name), removed at the end whatever happens.
work=$(mktemp -d /tmp/sternhalma-classroom.XXXXXX)
chmod 755 "$work" # students' servers read the class's settings in it
suffix=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
students=("ada_$suffix" "alan_$suffix" "grace_$suffix" "edsger_$suffix" "barbara_$suffix")
teacher="teacher_$suffix"
class=$work/class
game_user_existed=$(id -u sternhalma-game > /dev/null 2>&1 && echo yes || echo no)
cleanup() {
  status=$?
  if [ -f "$class/hub/class.json" ]; then
    "$root/scripts/classroom" down --dir "$class" > /dev/null 2>&1 || true
  fi
  for name in "${students[@]}" "$teacher"; do
    if id -u "$name" > /dev/null 2>&1; then
      for pid in $(pgrep -u "$name" || true); do kill -KILL "$pid" 2> /dev/null || true; done
      userdel -r "$name" > /dev/null 2>&1 || true
    fi
  done
  if [ "$game_user_existed" = no ] && id -u sternhalma-game > /dev/null 2>&1; then
    userdel sternhalma-game > /dev/null 2>&1 || true
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT

{
  echo "username,name"
  echo "${students[0]},Ada Lovelace"
  echo "${students[1]},Alan Turing"
  echo "${students[2]},Grace Hopper"
  echo "${students[3]},Edsger Dijkstra"
  echo "${students[4]},Barbara Liskov"
} > "$work/roster.csv"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

say "scripts/classroom up: ${#students[@]} students, teacher $teacher, port $port"
t0=$SECONDS
# A memory limit small enough for a kernel to reach it in the test.
up_args=(--students "$work/roster.csv" --dir "$class" --port "$port" --bind 127.0.0.1
  --teacher "$teacher" --exchange "$work/exchange" --tools "$tools" --wheel "$wheel"
  --server "$server" --memory 1G --limits "${STERNHALMA_CLASSROOM_LIMITS:-auto}")
"$root/scripts/classroom" up "${up_args[@]}" | tee "$work/up.log"
t_up=$((SECONDS - t0))
grep -q "The class is at http://127.0.0.1:$port/" "$work/up.log" || fail "up did not print the address"
url=http://127.0.0.1:$port
python=$tools/venv/bin/python

say "up again while the class runs: nothing changes"
"$root/scripts/classroom" up "${up_args[@]}" > "$work/up-again.log"
grep -q "is running" "$work/up-again.log" || { cat "$work/up-again.log"; fail "a second up did not see the running class"; }

say "the game server's API through the hub's port: a program plays a stored match at /services/game/"
"$python" - "$url/services/game" << 'EOF2'
import json, random, sys, urllib.request
import sternhalma
base = sys.argv[1]
# The proxy gives a redirect's Location the prefix back.
request = urllib.request.Request(
    base + "/v1/matches", method="POST", headers={"Content-Type": "application/json"},
    data=json.dumps({"seats": [{"name": "ada"}, {"name": "randy", "bot": {"kind": "random", "seed": 7}}],
                     "board": "rhombus5p3", "rules": "masters"}).encode(),
)
with urllib.request.urlopen(request, timeout=30) as answer:
    assert answer.status == 201, answer.status
    location = answer.headers["Location"]
assert location.startswith("/services/game/v1/matches/"), location
# A whole match with the module's client, its long-polls through the proxy.
created = sternhalma.Client(base).create_match(
    ["ada", sternhalma.Bot("greedy", seed=7)], board="rhombus5p3", rules="masters"
)
chooser = random.Random(1)
final = created.seats[0].play(lambda position: chooser.choice(position.legal_moves))
print(f"match {created.match.id} through the hub: {final.result.summary}")
EOF2

# What the browser part needs: the passwords the students choose, a copy
# of notebook 1 with the instructor's solutions in the student version (a
# student who solved everything), the paths a student must not read.
"$python" - "$class" "$teacher" "${assignments[*]}" "$work" "$url" "$here/screenshots" "${students[@]}" << 'EOF'
import json, pwd, sys
from pathlib import Path
class_dir, teacher, assignments, work, url, screenshots, *students = sys.argv[1:]
assignments = assignments.split()
settings = json.loads(Path(class_dir, "hub", "class.json").read_text())
course = Path(settings["course_dir"])
solved = {}
for assignment in assignments:
    release = json.loads((course / "release" / assignment / f"{assignment}.ipynb").read_text())
    source = json.loads((course / "source" / assignment / f"{assignment}.ipynb").read_text())
    for mine, theirs in zip(source["cells"], release["cells"], strict=True):
        if mine["metadata"].get("nbgrader", {}).get("solution"):
            theirs["source"] = mine["source"]
    solved[assignment] = str(Path(work, f"solved-{assignment}.ipynb"))
    Path(solved[assignment]).write_text(json.dumps(release))
import sternhalma
Path(work, "settings.json").write_text(json.dumps({
    "url": url,
    "assignments": assignments,
    "version": sternhalma.__version__,
    "game_url": f"http://127.0.0.1:{settings['game_port']}",
    "limit_mode": settings["limit_mode"],
    "memory_limit": settings["limits"]["memory"],
    "solved_notebooks": solved,
    "private_paths": [
        f"{settings['secrets']}/api-token",
        f"{settings['hub_dir']}/class.json",
        str(course / "source" / assignments[0] / f"{assignments[0]}.ipynb"),
    ],
    "students": [
        {"username": name, "password": f"pw-{name}-1", "solved": index == 0,
         "home": pwd.getpwnam(name).pw_dir}
        for index, name in enumerate(students)
    ],
    "teacher": {"username": teacher, "password": Path(settings["secrets"], "teacher-password").read_text().strip()},
    "screenshots": screenshots,
    "results": str(Path(work, "results.json")),
}, indent=1))
EOF

say "students in Chromium: first login, Assignment List fetch, kernel, submit"
t0=$SECONDS
node "$here/class.mjs" work "$work/settings.json"
t_work=$((SECONDS - t0))
cp "$work/results.json" "$work/results-work.json"

course=$(getent passwd "$teacher" | cut -d: -f6)/course
t0=$SECONDS
for assignment in "${assignments[@]}"; do
  say "scripts/classroom grade $assignment (collect, autograde in the sandbox, feedback)"
  "$root/scripts/classroom" grade "$assignment" --dir "$class" | tee "$work/grade.log"
  grep -q "${#students[@]} submissions graded in the sandbox" "$work/grade.log" || fail "not every submission was graded in the sandbox"
  "$python" - "$course/gradebook.db" "$assignment" "${students[@]}" << 'EOF'
import sys
from nbgrader.api import Gradebook
database, assignment, solver, *others = sys.argv[1:]
with Gradebook(f"sqlite:///{database}") as gradebook:
    solved = gradebook.find_submission(assignment, solver)
    assert solved.max_score > 0 and solved.score == solved.max_score, (solved.score, solved.max_score)
    for name in others:
        untouched = gradebook.find_submission(assignment, name)
        assert untouched.score == 0, (name, untouched.score)
    print(f"gradebook, {assignment}: {solver} {solved.score:g}/{solved.max_score:g}, "
          + ", ".join(f"{n} {gradebook.find_submission(assignment, n).score:g}" for n in others))
EOF
done
t_grade=$((SECONDS - t0))

say "students fetch their feedback; the teacher's formgrader"
t0=$SECONDS
node "$here/class.mjs" feedback "$work/settings.json"
t_feedback=$((SECONDS - t0))
cp "$work/results.json" "$work/results-feedback.json"
"$python" - "$work/results.json" "${students[@]}" << 'EOF'
import json, sys
results = json.load(open(sys.argv[1]))["students"]
solver, *others = sys.argv[2:]
for assignment, mine in results[solver]["feedback"].items():
    assert mine["score"] == mine["max"] > 0, (assignment, mine)
for name in others:
    for assignment, theirs in results[name]["feedback"].items():
        assert theirs["score"] == 0, (name, assignment, theirs)
print("feedback scores as graded")
EOF

say "the class tournament: ${students[0]}'s bot plays from their kernel; the web board shows it through the hub"
t0=$SECONDS
"$root/scripts/classroom" tournament new --dir "$class" --students "${students[0]}" --bots random,greedy \
  --games-per-pairing 1 --move-ms 30000 | tee "$work/tournament.log"
tournament=$(sed -n 's/^classroom: tournament \([0-9]*\) .*/\1/p' "$work/tournament.log")
[ -n "$tournament" ] || fail "tournament new printed no tournament"
# The teacher starts it once the student's bot is connected (the kernel
# starts after the student logs in, so this waits).
"$root/scripts/classroom" tournament start "$tournament" --wait 120 --dir "$class" > "$work/tournament-start.log" 2>&1 &
starter=$!
TOURNAMENT_ID=$tournament node "$here/class.mjs" tournament "$work/settings.json"
wait "$starter" || { cat "$work/tournament-start.log"; fail "tournament start failed"; }
cat "$work/tournament-start.log"
grep -q "1 of 1 students' bots connected" "$work/tournament-start.log" || fail "the student's bot was not connected at the start"
"$python" - "$url/services/game" "$tournament" "${students[0]}" << 'EOF'
import json, sys, urllib.request
base, tournament, student = sys.argv[1:]
def get(path):
    with urllib.request.urlopen(f"{base}{path}", timeout=30) as answer:
        return json.load(answer)
view = get(f"/v1/tournaments/{tournament}")
assert view["status"] == "finished", view["status"]
games = get(f"/v1/tournaments/{tournament}/games")["games"]
mine = [g for g in games if any(s.get("name") == student for s in g["seats"])]
assert len(mine) == 2, mine
for game in mine:
    seat = next(s for s in game["seats"] if s.get("name") == student)
    assert seat.get("timeouts", 0) == 0, f"the student's bot timed out: {game}"
rows = get(f"/v1/tournaments/{tournament}/standings")["rows"]
print("standings:", ", ".join(f"{r['rank']}. {r['name']} {r['points']:g}" for r in rows))
EOF
t_tournament=$((SECONDS - t0))

say "scripts/classroom status"
"$root/scripts/classroom" status --dir "$class" | tee "$work/status.log"
for name in "${students[@]}" "$teacher"; do
  grep -Eq "^$name +(student|teacher) +running" "$work/status.log" || fail "status does not show $name's server running"
done

say "scripts/classroom down"
t0=$SECONDS
hub_pid=$(cat "$class/hub/jupyterhub.pid")
proxy_pid=$(cat "$class/hub/proxy.pid")
game_port=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["game_port"])' "$class/hub/class.json")
"$root/scripts/classroom" down --dir "$class"
t_down=$((SECONDS - t0))
# A process that has ended but is not yet reaped by its parent (a zombie,
# state Z) runs nothing.
running() { [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]; }
for pid in "$hub_pid" "$proxy_pid"; do
  if running "$pid"; then fail "pid $pid still runs after down"; fi
done
for name in "${students[@]}" "$teacher" sternhalma-game; do
  for pid in $(pgrep -u "$name" || true); do
    if running "$pid"; then
      ps -o pid,user,stat,args -p "$pid"
      fail "$name still has processes after down"
    fi
  done
done
for p in "$port" "$game_port"; do
  if python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2)' "$p" 2> /dev/null; then
    fail "port $p still answers after down"
  fi
done
home=$(getent passwd "${students[0]}" | cut -d: -f6)
[ -f "$home/${assignments[0]}/${assignments[0]}.ipynb" ] || fail "down lost ${students[0]}'s notebook"
[ -f "$course/gradebook.db" ] || fail "down lost the gradebook"
echo "nothing of the class runs; the students' files and the gradebook are kept"

say "up again after down, now over HTTPS: the same class, the passwords the students chose, a reset"
# A certificate of the test's own for the class's address (a school brings its own).
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$work/tls-key.pem" -out "$work/tls-cert.pem" 2> /dev/null
t0=$SECONDS
"$root/scripts/classroom" up "${up_args[@]}" --ssl-cert "$work/tls-cert.pem" --ssl-key "$work/tls-key.pem" > "$work/up-restart.log"
t_restart=$((SECONDS - t0))
grep -q "${assignments[0]}: released before" "$work/up-restart.log" || fail "the restart released the assignments again"
grep -q "The class is at https://127.0.0.1:$port/" "$work/up-restart.log" || { cat "$work/up-restart.log"; fail "the restart is not on HTTPS"; }
url=https://127.0.0.1:$port
export SSL_CERT_FILE=$work/tls-cert.pem # login.py checks the class's certificate
cat > "$work/login.py" << 'EOF2'
"""login.py URL NAME PASSWORD accepted|refused: a login on the hub's page, as a browser posts it
(over HTTPS, checked against SSL_CERT_FILE)."""
import http.cookiejar, sys, urllib.error, urllib.parse, urllib.request
url, name, password, expected = sys.argv[1:]
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
opener.open(f"{url}/hub/login", timeout=30).read()
xsrf = next(c.value for c in jar if c.name == "_xsrf")
form = urllib.parse.urlencode({"username": name, "password": password, "_xsrf": xsrf}).encode()
try:
    page = opener.open(f"{url}/hub/login?next=%2Fhub%2Fhome", data=form, timeout=60)
    status, where, text = page.status, page.geturl(), page.read().decode(errors="replace")
except urllib.error.HTTPError as refused:  # the login page again, with 403
    status, where, text = refused.code, refused.url, refused.read().decode(errors="replace")
accepted = status == 200 and "/hub/home" in where
refused = status == 403 and "Invalid username or password" in text
assert (accepted, refused) == ((True, False) if expected == "accepted" else (False, True)), (status, where)
print(f"{name}: {expected}")
EOF2
login() { "$python" "$work/login.py" "$url" "$@"; }
login "${students[0]}" "pw-${students[0]}-1" accepted # the password chosen before the restart
login "${students[0]}" "pw-${students[0]}-1x" refused
"$root/scripts/classroom" reset "${students[1]}" --dir "$class"
login "${students[1]}" "pw-${students[1]}-2" accepted # a reset: the next login sets a new one
login "${students[1]}" "pw-${students[1]}-1" refused  # and the old one is gone
new_hub=$(cat "$class/hub/jupyterhub.pid")
"$root/scripts/classroom" down --dir "$class" > /dev/null
if running "$new_hub"; then fail "the restarted hub still runs after down"; fi

echo
echo "tests/classroom: passed in ${SECONDS}s (up ${t_up}s, students ${t_work}s, grade ${t_grade}s, feedback ${t_feedback}s, tournament ${t_tournament}s, down ${t_down}s, up again ${t_restart}s)"
python3 - "$work/results-work.json" "$work/results-feedback.json" << 'EOF'
import json, sys
work, feedback = (json.load(open(p)) for p in sys.argv[1:])
for name, facts in work["students"].items():
    print(f"  {name}: login to JupyterLab {facts['login_to_lab_seconds']:.1f} s (first login, server start), "
          f"a kernel's check {facts['kernel_seconds']:.1f} s; {facts['cgroup']}")
    for assignment, run in facts["runs"].items():
        stopped = f", stopped by {run['error']['ename']}" if run["error"] else ""
        print(f"    {assignment}: {run['ran']} of {run['cells']} code cells in {run['seconds']:.1f} s{stopped}")
    if "over_the_limit" in facts:
        print(f"    a kernel asking for more than the memory limit: {facts['over_the_limit']}")
print(f"  teacher: login to JupyterLab {feedback['teacher']['login_to_lab_seconds']:.1f} s")
EOF
echo "screenshots: $here/screenshots"
