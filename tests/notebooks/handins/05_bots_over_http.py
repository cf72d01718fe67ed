"""Notebook 5's hand-ins (see tests/notebooks/handins.py): cheats and
imperfect honest work. The grader makes the matches on its own server and
reads their state itself (sternhalma.autograde.course.n05_bots_over_http)."""

ALL_PARTS = {"test-submit-accepted", "test-submit-refused"}

HANDINS = {
    # ---- cheats ---------------------------------------------------------------------------
    "resends_at_the_current_ply": {
        "kind": "cheat",
        "story": "submit never takes no for an answer: on a stale ply it reads the match and"
        " sends the move again at the match's own ply, so every move it is given gets played",
        "solutions": {
            "submit": """
headers = {"Authorization": f"Bearer {seat_token}"}
answer = requests.post(
    f"{match_url}/moves", json={"ply": ply, "move": move}, headers=headers, timeout=10
)
if answer.status_code == 409 and answer.json().get("code") == "stale_ply":
    now = requests.get(match_url, timeout=10).json()["ply"]
    answer = requests.post(
        f"{match_url}/moves", json={"ply": now, "move": move}, headers=headers, timeout=10
    )
return answer
"""
        },
        "zero": {"test-submit-refused"},
        "feedback": {"test-submit-refused": "the match changed"},
    },
    "asks_the_house_bot": {
        "kind": "cheat",
        "story": "submit asks the server's own alpha-beta bot (POST /v1/bots/move) for the move"
        " at the match's position and sends that one instead of the move it was given",
        "solutions": {
            "submit": """
server = match_url.split("/v1/")[0]
state = requests.get(match_url, timeout=10).json()
suggested = requests.post(
    f"{server}/v1/bots/move",
    json={"position": state["position"]["position_string"], "bot": {"kind": "alphabeta"}},
    timeout=30,
).json()["move"]["text"]
return requests.post(
    f"{match_url}/moves",
    json={"ply": ply, "move": suggested},
    headers={"Authorization": f"Bearer {seat_token}"},
    timeout=10,
)
"""
        },
        "zero": ALL_PARTS,
    },
    # ---- honest work, imperfect ---------------------------------------------------------
    "raises_on_refusal": {
        "kind": "imperfect",
        "story": "submit calls raise_for_status(), so a refusal raises instead of being answered",
        "solutions": {
            "submit": """
answer = requests.post(
    f"{match_url}/moves",
    json={"ply": ply, "move": move},
    headers={"Authorization": f"Bearer {seat_token}"},
    timeout=10,
)
answer.raise_for_status()
return answer
"""
        },
        "zero": {"test-submit-refused"},
        "feedback": {"test-submit-refused": "do not raise"},
    },
    "forgets_bearer": {
        "kind": "imperfect",
        "story": "submit sends the token alone in the Authorization header, without `Bearer`",
        "solutions": {
            "submit": """
return requests.post(
    f"{match_url}/moves",
    json={"ply": ply, "move": move},
    headers={"Authorization": seat_token},
    timeout=10,
)
"""
        },
        "zero": ALL_PARTS,
        "feedback": {"test-submit-accepted": "Bearer", "test-submit-refused": "Bearer"},
    },
    "uses_the_notebooks_match": {
        "kind": "imperfect",
        "story": "submit posts to the notebook's own match (its globals url and match_id),"
        " not to the match_url it is given",
        "solutions": {
            "submit": """
return requests.post(
    f"{url}/v1/matches/{match_id}/moves",
    json={"ply": ply, "move": move},
    headers={"Authorization": f"Bearer {seat_token}"},
    timeout=10,
)
"""
        },
        "zero": ALL_PARTS,
        "feedback": {"test-submit-accepted": "NameError"},
    },
    "warns_as_it_works": {
        "kind": "imperfect",
        "story": "a correct submit that logs a warning and prints to stderr for every move",
        "solutions": {
            "submit": """
import logging
import sys

logging.warning("sending %s for ply %d", move, ply)
print("POST", match_url, file=sys.stderr)
{solution}
"""
        },
    },
}
