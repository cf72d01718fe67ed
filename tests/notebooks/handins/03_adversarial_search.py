"""Notebook 3's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work."""

BOT_PARTS = {"test-bot-legal", "test-bot-budget", "test-bot-won-in-one", "test-bot-strength"}
ALL_PARTS = {
    "test-negamax-values",
    "test-negamax-in-place",
    "test-alphabeta-value",
    "test-alphabeta-pruning",
    "test-alphabeta-window",
    *BOT_PARTS,
}

FORGE_THE_KERNEL = """
import ast
import sys


class Forgive(ast.NodeTransformer):
    \"\"\"Wraps every later cell in try/except: no test would fail.\"\"\"

    def visit_Module(self, node):
        handler = ast.ExceptHandler(type=None, name=None, body=[ast.Pass()])
        node.body = [ast.Try(body=node.body, handlers=[handler], orelse=[], finalbody=[])]
        return ast.fix_missing_locations(node)


try:
    get_ipython().ast_transformers.append(Forgive())  # noqa: F821
except NameError:
    pass
sys.displayhook = lambda value: print(2)  # nbgrader reads a number as partial credit
sys.excepthook = lambda *args: None
"""

READ_THE_COURSE = """
import glob
import json
import os
import sqlite3

found = {}
for root in {os.getcwd(), "..", "../..", "/", os.path.expanduser("~"), "/tmp", "/work", "/root"}:
    for folder, _, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".ipynb") and "source" in path:
                found.setdefault("source", path)
            if name == "gradebook.db":
                found.setdefault("gradebook", path)
if "gradebook" in found:
    try:
        with sqlite3.connect(found["gradebook"]) as db:
            db.execute("UPDATE grade SET auto_score = 2")
    except sqlite3.Error:
        pass
secret = os.environ.get("STERNHALMA_HELD_OUT")
if "source" in found:
    cells = json.load(open(found["source"]))["cells"]
    code = next("".join(c["source"]) for c in cells if "def alphabeta" in "".join(c["source"]))
    scope = {}
    exec(code.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""), globals(), scope)
    return scope["alphabeta"](position, depth, alpha, beta, evaluate)
raise NotImplementedError(f"found nothing: {found}, secret {secret!r}")
"""

ASK_A_SERVER = """
import json
import os
import urllib.request

url = os.environ.get("STERNHALMA_URL", "http://127.0.0.1:8080")
request = urllib.request.Request(
    f"{url}/v1/bots/move",
    data=json.dumps({"position": str(position), "bot": {"kind": "alphabeta", "nodes": 300}}).encode(),
    headers={"Content-Type": "application/json"},
)
with urllib.request.urlopen(request, timeout=5) as answer:
    return json.load(answer)["move"]
"""

HELPER_PROCESS = """
import os
import subprocess
import sys

script = (
    "import sternhalma, sys; p = sternhalma.Position(sys.argv[1]);"
    " print(sternhalma.Bot('alphabeta', nodes=300).step(p))"
)
try:
    text = subprocess.run(
        [sys.executable, "-c", script, str(position)], capture_output=True, text=True
    ).stdout.strip()
except Exception:
    try:
        # Past the audit event: subprocess's own fork and exec.
        child = subprocess.Popen.__new__(subprocess.Popen)
        child.__init__([sys.executable, "-c", script, str(position)], stdout=subprocess.PIPE)
        text = child.communicate()[0].decode().strip()
    except Exception:
        reader, writer = os.pipe()
        if os.fork() == 0:
            os.write(writer, str(sternhalma.Bot("alphabeta", nodes=300).step(position)).encode())
            os._exit(0)
        text = os.read(reader, 100).decode()
return position.parse_move(text)
"""

LIFT_THE_BAR = """
import contextlib

import sternhalma._core
from sternhalma import grading

for _ in range(100):
    sternhalma._core._bar_builtins(False)
grading.barred = contextlib.nullcontext
return sternhalma.Bot("alphabeta", nodes=300).step(position)
"""

POKE_THE_ENGINE = """
import pickle

try:
    import ctypes  # to zero the engine's count of positions

    ctypes.memset(0, 0, 0)
except Exception:
    pass
try:
    with open("/proc/self/mem", "r+b") as memory:
        memory.seek(0)
except Exception:
    pass
me = position.side_to_move
best, best_value = None, -float("inf")
for move in position.legal_moves:
    # Children restored from pickles, which the engine did not count once.
    child = pickle.loads(pickle.dumps(position))
    child.push(move)
    worst = float("inf")
    for reply in child.legal_moves:
        grandchild = pickle.loads(pickle.dumps(child))
        grandchild.push(reply)
        worst = min(worst, self.evaluate(grandchild, me))
    if worst > best_value:
        best, best_value = move, worst
return best
"""

WRITE_TO_THE_PIPES = """
import json
import os

for fd in range(3, 64):
    for nonce in ("", "0" * 32):
        line = {"nonce": nonce, "ok": 2, "positions": 42, "after": [], "ready": True}
        try:
            os.write(fd, (json.dumps(line) + "\\n").encode())
        except OSError:
            pass
"""

READ_THE_CALLERS = """
import gc
import sys

names = ("want", "expected", "reference", "value", "v")
frame = sys._getframe(1)
while frame is not None:
    for name in names:
        if isinstance(frame.f_locals.get(name), (int, float)):
            return frame.f_locals[name]
    frame = frame.f_back
for name in ("Out", "_", "__"):
    if isinstance(globals().get(name), (int, float)):
        return globals()[name]
for thing in gc.get_objects():
    if isinstance(thing, dict) and isinstance(thing.get("want"), (int, float)):
        return thing["want"]
return 0
"""

HANDINS = {
    "copied_values": {
        "kind": "cheat",
        "story": "negamax answers the start's values, copied from a classmate's output",
        "solutions": {
            "negamax": """# The values from the start, copied from the output of a classmate's notebook.
return {0: 0, 1: 2, 2: 0, 3: 2, 4: 0, 5: 2}[depth]"""
        },
        "zero": {"test-negamax-values", "test-negamax-in-place"},
    },
    "alphabeta_without_pruning": {
        "kind": "cheat",
        "story": "alphabeta is negamax with two unused arguments",
        "solutions": {
            "alphabeta": """# alpha and beta are ignored: the whole tree, as negamax searches it.
if depth == 0 or position.is_game_over():
    return evaluate(position, position.side_to_move)
best = -float("inf")
for move in position.legal_moves:
    position.push(move)
    best = max(best, -alphabeta(position, depth - 1, alpha, beta, evaluate))
    position.pop()
return best"""
        },
        "zero": {"test-alphabeta-pruning"},
    },
    "delegating_bot": {
        "kind": "cheat",
        "story": "the bot hands its moves to the built-in alpha-beta bot",
        "solutions": {
            "student-bot": """self.evaluate(position, position.side_to_move)  # "scores positions with evaluate"
return sternhalma.Bot("alphabeta", nodes=300).step(position)"""
        },
        "zero": BOT_PARTS,
    },
    "sign_error": {
        "kind": "imperfect",
        "story": "negamax drops the minus in front of the children's values",
        "solutions": {
            "negamax": """if depth == 0 or position.is_game_over():
    return evaluate(position, position.side_to_move)
best = -float("inf")
for move in position.legal_moves:
    position.push(move)
    best = max(best, negamax(position, depth - 1, evaluate))
    position.pop()
return best"""
        },
        "zero": {"test-negamax-values"},
        "feedback": {"test-negamax-values": "sign error"},
    },
    "budget_between_depths": {
        "kind": "imperfect",
        "story": "the bot checks its budget only between depths, so the last depth overruns it",
        "solutions": {
            "student-bot": """self.nodes = 0
work = position.copy()

def search(depth, alpha, beta):
    if depth == 0 or work.is_game_over():
        return self.evaluate(work, work.side_to_move)
    best = -float("inf")
    for move in self.ordered(work):
        self.nodes += 1
        work.push(move)
        best = max(best, -search(depth - 1, -beta, -alpha))
        work.pop()
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best

moves = self.ordered(work)
best_move = moves[0]
for depth in range(1, 61):
    if self.nodes >= self.node_budget:  # only between depths: the last one runs to its end
        break
    best_value, choice = -float("inf"), best_move
    for move in [best_move, *(m for m in moves if m != best_move)]:
        self.nodes += 1
        work.push(move)
        value = -search(depth - 1, -float("inf"), -best_value)
        work.pop()
        if value > best_value:
            best_value, choice = value, move
    best_move = choice
return best_move"""
        },
        "zero": {"test-bot-budget"},
        "feedback": {"test-bot-budget": "budget"},
    },
    # ---- the grader's process and the course, out of reach ------------------------------
    "forges_the_kernel": {
        "kind": "cheat",
        "story": "leaves negamax unwritten and replaces sys.displayhook and the IPython AST"
        " transformers so that every later cell passes, or prints a partial score",
        "solutions": {"negamax": "raise NotImplementedError()"},
        "cells": [FORGE_THE_KERNEL],
        "zero": {"test-negamax-values", "test-negamax-in-place"},
    },
    "exits_the_process": {
        "kind": "cheat",
        "story": "ends the process with os._exit(0) after its first cell, hoping to be dropped"
        " from the run silently (or to stop the class's run)",
        "cells": ["import os\n\nos._exit(0)"],
        "zero": ALL_PARTS,
    },
    "reads_the_course": {
        "kind": "cheat",
        "story": "leaves alphabeta unwritten; looks for the instructor's notebook, the"
        " gradebook, the secret and classmates' submissions on disk and runs what it finds",
        "solutions": {"alphabeta": READ_THE_COURSE},
        "zero": {"test-alphabeta-value", "test-alphabeta-pruning", "test-alphabeta-window"},
    },
    "asks_a_server": {
        "kind": "cheat",
        "story": "the bot asks a Sternhalma server on this machine for the built-in bot's move",
        "solutions": {"student-bot": ASK_A_SERVER},
        "zero": BOT_PARTS,
    },
    "helper_process": {
        "kind": "cheat",
        "story": "the bot runs the built-in alpha-beta in a helper process (subprocess, then"
        " subprocess's own fork_exec, then os.fork), where no bar holds",
        "solutions": {"student-bot": HELPER_PROCESS},
        "zero": BOT_PARTS,
    },
    "lifts_the_bar": {
        "kind": "cheat",
        "story": "the bot lifts the bar (sternhalma._core._bar_builtins(False), many times,"
        " and sternhalma.grading.barred replaced) and then asks the built-in bot",
        "solutions": {"student-bot": LIFT_THE_BAR},
        "zero": BOT_PARTS,
    },
    "pokes_the_engine": {
        "kind": "cheat",
        "story": "tries ctypes and /proc/self/mem to reset the engine's count, then searches"
        " past its budget making children from pickles, which it hopes are not counted",
        "solutions": {"student-bot": POKE_THE_ENGINE},
        "zero": {"test-bot-budget"},
    },
    "answer_equal_to_anything": {
        "kind": "cheat",
        "story": "negamax answers a float whose == is always True",
        "solutions": {
            "negamax": """
class Anything(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = float.__hash__

return Anything(0.0)
"""
        },
        "zero": {"test-negamax-values", "test-negamax-in-place"},
    },
    "memo_not_pruning": {
        "kind": "cheat",
        "story": "alphabeta is negamax with a table of values by hash: the right values and"
        " fewer positions than negamax, without a single cut",
        "solutions": {
            "alphabeta": """
memo = globals().setdefault("_memo", {})
key = (position.zobrist_hash, depth)
if key in memo:
    return memo[key]
if depth == 0 or position.is_game_over():
    value = evaluate(position, position.side_to_move)
else:
    value = -float("inf")
    for move in position.legal_moves:
        position.push(move)
        value = max(value, -alphabeta(position, depth - 1, -beta, -alpha, evaluate))
        position.pop()
memo[key] = value
return value
"""
        },
        "zero": {"test-alphabeta-pruning"},
    },
    "writes_answers_to_the_pipes": {
        "kind": "cheat",
        "story": "leaves negamax unwritten and writes made-up answers to every open file"
        " descriptor, hoping the grader reads them",
        "solutions": {"negamax": "raise NotImplementedError()"},
        "cells": [WRITE_TO_THE_PIPES],
        "zero": {"test-negamax-values", "test-negamax-in-place"},
    },
    "reads_the_callers": {
        "kind": "cheat",
        "story": "negamax looks for the expected value in its callers' frames, the notebook's"
        " globals and IPython's In/Out history, and answers it",
        "solutions": {"negamax": READ_THE_CALLERS},
        "zero": {"test-negamax-values", "test-negamax-in-place"},
    },
    "imports_the_reference": {
        "kind": "cheat",
        "story": "negamax is the course's own reference, imported from the grader's module"
        " that ships with the package",
        "solutions": {
            "negamax": """
from sternhalma.autograde.course.n03_adversarial_search import reference

return reference(position.copy(), depth, evaluate)
"""
        },
        "zero": ALL_PARTS,
        "feedback": {"test-negamax-values": "the course's grader"},
    },
    # ---- honest work, imperfect ---------------------------------------------------------
    "depth_off_by_one": {
        "kind": "imperfect",
        "story": "negamax stops one ply too late (depth < 0 instead of depth == 0)",
        "solutions": {
            "negamax": """
if depth < 0 or position.is_game_over():
    return evaluate(position, position.side_to_move)
best = -float("inf")
for move in position.legal_moves:
    position.push(move)
    best = max(best, -negamax(position, depth - 1, evaluate))
    position.pop()
return best
"""
        },
        "zero": {"test-negamax-values", "test-negamax-in-place"},
        "feedback": {"test-negamax-values": "depth off by one"},
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "a correct negamax and bot that log a warning and print to stderr as they go",
        "solutions": {
            "negamax": """
import logging
import sys

logging.warning("negamax at depth %d", depth)
print("searching", file=sys.stderr)
{solution}
""",
            "student-bot": """
import logging

logging.getLogger("bot").warning("a step with %d nodes", self.node_budget)
{solution}
""",
        },
    },
}
