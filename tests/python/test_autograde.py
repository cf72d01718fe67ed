"""The autograder's trust (sternhalma.autograde, docs/grading.md): the
engine counts every position handed to Python and traces it, a graded
run's lock cannot be lifted, the engine's loop answers plain data with
what it saw, and the sandbox hides the course, the secret and the network.

The lock is for a whole process, so the tests that lock run a Python
process of their own.
"""

from __future__ import annotations

import copy
import json
import os
import pickle
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sternhalma
from sternhalma._core import _graded_trace, _positions_made
from sternhalma.autograde import Failed, RemoteStudent
from sternhalma.autograde.course import course
from sternhalma.autograde.sandbox import Sandbox

REPO = Path(__file__).resolve().parents[2]
NB3 = REPO / "notebooks" / "source" / "03_adversarial_search" / "03_adversarial_search.ipynb"


def made(action) -> int:
    before = _positions_made()
    action()
    return _positions_made() - before


def test_every_path_that_hands_a_position_to_python_is_counted() -> None:
    start = sternhalma.Position.start(board="rhombus5p3", rules="research")
    move = start.legal_moves[0]
    after = start.play(move)
    assert made(lambda: sternhalma.Position(str(start))) == 1
    assert made(lambda: sternhalma.Position.start(board="rhombus5p3", rules="research")) == 1
    assert made(lambda: start.play(move)) == 1
    assert made(lambda: start.child(start.legal_actions()[0])) == 1
    probe = start.copy()
    assert made(lambda: probe.push(move)) == 1
    assert made(lambda: probe.apply_action(probe.legal_actions()[0])) == 1
    # A pickle restores one position, however many moves it replays: a
    # child made by restoring a pickle is counted as a push would be.
    assert made(lambda: pickle.loads(pickle.dumps(after))) == 1
    # A copy is the same position: not counted.
    assert made(start.copy) == 0
    assert made(lambda: copy.copy(start)) == 0
    assert made(lambda: copy.deepcopy(start)) == 0
    assert made(lambda: start.legal_moves) == 0


def test_the_sandbox_binds_the_tables_where_load_reads_them(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("STERNHALMA_TABLES", str(tmp_path))
    assert Path(sternhalma.Tablebase.cache_folder()) == tmp_path
    if shutil.which("bwrap"):
        assert Sandbox.find().tables == tmp_path
    monkeypatch.setenv("STERNHALMA_TABLES", str(tmp_path / "missing"))
    if shutil.which("bwrap"):
        assert Sandbox.find().tables is None


def test_a_trace_names_each_position_made_and_what_it_was_made_from() -> None:
    start = sternhalma.Position.start(board="rhombus5p3", rules="research")
    move = start.legal_moves[0]
    _graded_trace(True)
    child = start.play(move)
    parsed = sternhalma.Position(str(child))
    restored = pickle.loads(pickle.dumps(child))
    entries, cut = _graded_trace(False)
    assert not cut
    assert entries == [
        (start.zobrist_hash, child.zobrist_hash),
        (0, parsed.zobrist_hash),
        (0, restored.zobrist_hash),
    ]
    start.play(move)
    assert _graded_trace(False) == ([], False), "nothing traced once tracing stops"


def run_locked(script: str) -> dict:
    """Runs `script` in a fresh Python after the graded run's lock (the
    grader may allow 127.0.0.1:PORT from the script's first line); the
    script prints one JSON line."""
    code = textwrap.dedent(script)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_lock_holds_for_the_whole_process() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        found = run_locked(
            f"""
            import json, os, socket, subprocess, sys
            import sternhalma
            from sternhalma import _core
            _core._graded_run_lock(["127.0.0.1:{port}"], [{str(REPO / "notebooks")!r}])
            result = {{}}

            def attempt(name, action):
                try:
                    action()
                    result[name] = "done"
                except BaseException as e:
                    result[name] = type(e).__name__

            for _ in range(5):
                _core._bar_builtins(False)
            start = sternhalma.Position.start(board="rhombus5p3", rules="research")
            attempt("bot", lambda: sternhalma.Bot("greedy").step(start))
            attempt("playout", lambda: start.playout())
            attempt("vector_env", lambda: sternhalma.VectorEnv(2))
            attempt("subprocess", lambda: subprocess.run(["true"]))
            attempt("system", lambda: os.system("true"))
            attempt("fork", os.fork)
            attempt("ctypes", lambda: __import__("ctypes"))
            attempt("proc", lambda: open("/proc/self/mem", "rb"))
            attempt("proc_listing", lambda: os.listdir("/proc/self"))
            attempt("hidden", lambda: open({str(REPO / "notebooks" / "README.md")!r}))
            attempt("hidden_by_chdir", lambda: os.chdir({str(REPO / "notebooks")!r}))
            attempt("elsewhere", lambda: open({str(REPO / "README.md")!r}).close())
            attempt("other_host", lambda: socket.create_connection(("127.0.0.1", 9), 1))
            attempt("allowed_host", lambda: socket.create_connection(("127.0.0.1", {port}), 5).close())
            attempt("a_push", lambda: start.copy().push(start.legal_moves[0]))
            print(json.dumps(result))
            """
        )
    finally:
        listener.close()
    barred = ("bot", "playout", "vector_env")
    assert all(found[name] == "BuiltinBarredError" for name in barred), found
    refused = ("subprocess", "system", "fork", "ctypes", "proc", "proc_listing", "other_host")
    refused += ("hidden", "hidden_by_chdir")
    assert all(found[name] == "PermissionError" for name in refused), found
    assert found["allowed_host"] == "done" and found["elsewhere"] == "done", found
    assert found["a_push"] == "done", found


def serve(adapters: str) -> subprocess.Popen[bytes]:
    """A locked process answering calls on its stdin/stdout through the
    engine's loop, with `adapters` (Python source defining ADAPTERS)."""
    code = (
        textwrap.dedent(
            """
        import sys
        import numpy as np
        import sternhalma
        from sternhalma import _core
        """
        )
        + textwrap.dedent(adapters)
        + textwrap.dedent(
            """
        _core._graded_run_lock()
        _core._graded_run_serve(ADAPTERS, 0, 1)
        """
        )
    )
    return subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )


def ask(process: subprocess.Popen[bytes], line: str) -> dict:
    assert process.stdin and process.stdout
    process.stdin.write(line.encode() + b"\n")
    process.stdin.flush()
    return json.loads(process.stdout.readline())


def test_the_loop_answers_plain_data_with_what_the_engine_saw() -> None:
    process = serve(
        """
        class Anything(float):
            def __eq__(self, other):
                return True

        def walk(position, plies):
            for _ in range(plies):
                position.push(position.legal_moves[0])
            return len(position.move_stack)

        ADAPTERS = {
            "anything": lambda: Anything(3.5),
            "array": lambda: np.arange(3) * 0.5,
            "move": lambda position: position.legal_moves[0],
            "child": lambda position: position.play(position.legal_moves[0]),
            "inf": lambda x: -x,
            "object": lambda: object(),
            "raises": lambda: 1 / 0,
            "walk": walk,
        }
        """
    )
    try:
        start = sternhalma.Position.start(board="rhombus5p3", rules="research")
        text = str(start)
        answer = ask(process, json.dumps({"nonce": "a", "call": "anything", "args": []}))
        assert answer["nonce"] == "a" and answer["ok"] == 3.5
        assert ask(process, '{"nonce": "b", "call": "array", "args": []}')["ok"] == [0, 0.5, 1.0]
        answer = ask(
            process, json.dumps({"nonce": "c", "call": "move", "args": [{"$position": text}]})
        )
        assert answer["ok"] == {"$move": str(start.legal_moves[0])}
        answer = ask(
            process,
            json.dumps(
                {"nonce": "d", "call": "child", "args": [{"$position": text}], "trace": True}
            ),
        )
        child = start.play(start.legal_moves[0])
        assert answer["ok"] == {"$position": str(child)} and answer["positions"] == 1
        assert answer["trace"] == [[str(start.zobrist_hash), str(child.zobrist_hash)]]
        answer = ask(process, '{"nonce": "e", "call": "inf", "args": [{"$float": "inf"}]}')
        assert answer["ok"] == {"$float": "-inf"}
        answer = ask(process, '{"nonce": "f", "call": "object", "args": []}')
        assert (
            answer["error"]["type"] == "NotPlainData"
            and "builtins.object" in answer["error"]["message"]
        )
        answer = ask(process, '{"nonce": "g", "call": "raises", "args": []}')
        assert answer["error"]["type"] == "ZeroDivisionError"
        # A line that is not a call is skipped; the next call is answered.
        answer = ask(
            process,
            "not json\n"
            + json.dumps({"nonce": "h", "call": "walk", "args": [{"$position": text}, 2]}),
        )
        assert answer["nonce"] == "h" and answer["ok"] == 2 and answer["positions"] == 2
        # Each position argument after the call: its state, as the engine holds it.
        walked = start.copy()
        for _ in range(2):
            walked.push(walked.legal_moves[0])
        assert answer["after"] == [{"position": str(walked), "stack": 2}]
        answer = ask(process, '{"nonce": "i", "call": "nothing", "args": []}')
        assert answer["error"]["type"] == "GraderError"
        assert process.stdin
        process.stdin.write(b'{"call": "$exit"}\n')
        process.stdin.flush()
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()


needs_sandbox = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap is not installed"
)


def notebook_with(tmp_path: Path, negamax: str, cells: tuple[str, ...] = ()) -> Path:
    """Notebook 3 with `negamax`'s body replaced and `cells` added after its imports."""
    sys.path.insert(0, str(REPO / "tests" / "notebooks"))
    try:
        import handins
    finally:
        sys.path.pop(0)
    plan = handins.Handin(
        "03_adversarial_search", "probe", "cheat", "a probe", {"negamax": negamax}, list(cells)
    )
    path = tmp_path / "03_adversarial_search.ipynb"
    path.write_text(json.dumps(handins.notebook(plan)))
    return path


@needs_sandbox
def test_the_sandbox_hides_the_course_the_secret_and_the_network(tmp_path: Path) -> None:
    secret_file = tmp_path / "course" / "gradebook.db"
    secret_file.parent.mkdir()
    secret_file.write_text("the teacher's gradebook")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    negamax = f"""
import os, socket
seen = {{"uid": os.getuid(), "cwd": os.getcwd(), "files": sorted(os.listdir("."))}}
seen["course"] = os.path.exists({str(secret_file)!r})
seen["home"] = os.path.exists({str(Path.home())!r} + "/.bash_history")
seen["secret"] = [k for k in os.environ if "HELD_OUT" in k or "SECRET" in k]
try:
    socket.create_connection(("127.0.0.1", {port}), 2).close()
    seen["network"] = "connected"
except OSError as e:
    seen["network"] = type(e).__name__
try:
    open("/tmp/../" + {str(tmp_path)!r}.lstrip("/") + "/written", "w").write("x")
    seen["wrote_outside"] = True
except OSError:
    seen["wrote_outside"] = False
return seen
"""
    os.environ["STERNHALMA_HELD_OUT"] = "the secret"
    student = RemoteStudent(
        notebook_with(tmp_path, negamax), "03_adversarial_search", sandbox=Sandbox.find()
    )
    try:
        seen = student.call("negamax", sternhalma.Position(), 1, "evaluate").value
    finally:
        student.close()
        os.environ.pop("STERNHALMA_HELD_OUT")
        listener.close()
    assert seen["cwd"] == "/grading" and "submission.ipynb" in seen["files"], seen
    assert not {"gradebook.db", "source", "nbgrader_config.py"} & set(seen["files"]), seen
    assert seen["course"] is False and seen["home"] is False, seen
    assert seen["secret"] == [], seen
    assert seen["network"] in ("PermissionError", "ConnectionRefusedError", "OSError"), seen
    assert seen["wrote_outside"] is False and not (tmp_path / "written").exists()
    if os.geteuid() == 0:
        assert seen["uid"] != 0, "the submission runs as root"


@needs_sandbox
def test_a_submission_that_loops_or_dies_is_charged_and_the_grading_goes_on(tmp_path: Path) -> None:
    # Notebook 3's cells call negamax on the 5x5 rhombus; this one loops
    # only on the grader's call, on the star.
    looping = notebook_with(
        tmp_path, "if str(position.board) == 'star4':\n    while True:\n        pass\n{solution}"
    )
    student = RemoteStudent(
        looping,
        "03_adversarial_search",
        sandbox=Sandbox.find(),
        call_timeout=3,
        setup_timeout=120,
        restarts=3,
    )
    try:
        answer = student.call("negamax", sternhalma.Position(), 1, "evaluate")
        assert (
            answer.error and answer.error[0] == "Died" and "no answer after 3 s" in answer.error[1]
        )
        with pytest.raises(Failed, match="an endless loop"):
            _ = answer.value
        # A fresh process for the next call: alphabeta is the instructor's.
        start = sternhalma.Position.start(board="rhombus5p3", rules="research")
        got = student.call("alphabeta", start, 1, -float("inf"), float("inf")).value
        assert isinstance(got, (int, float))
    finally:
        student.close()
    dying = notebook_with(tmp_path, "{solution}", cells=("import os\nos._exit(3)",))
    student = RemoteStudent(dying, "03_adversarial_search", sandbox=Sandbox.find(), restarts=3)
    try:
        for _ in range(3):
            answer = student.call("negamax", sternhalma.Position(), 1, "evaluate")
            assert answer.error and answer.error[0] == "Died", answer
            assert "exit code 3" in answer.error[1], answer
        assert student.starts == 1, "cells that end the process are run once"
    finally:
        student.close()


def test_the_visible_checks_run_in_the_kernel_with_the_same_parts() -> None:
    """A notebook's test cell (`check`) runs the course's part on the
    kernel's functions, without held-out cases, and fails with the
    part's feedback."""
    nb3 = course("03_adversarial_search")

    def negamax(position, depth, evaluate):
        return 0

    namespace = {"negamax": negamax}
    with pytest.raises(AssertionError, match=r"negamax, depth 1, the start, evaluate: 0, expected"):
        nb3.check("test-negamax-values", namespace)


def test_no_sandbox_is_said_clearly(monkeypatch) -> None:
    from sternhalma.autograde import sandbox

    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    with pytest.raises(sandbox.SandboxUnavailable, match="apt-get install bubblewrap"):
        Sandbox.find()
