"""Example clients of a Sternhalma server, installed with the module.

Run them with ``python -m``:

    python -m sternhalma.examples.random_bot URL MATCH_ID SEAT TOKEN [--seed N]
    python -m sternhalma.examples.tournament_entrant URL TOURNAMENT_ID TOKEN [--bot KIND] [--seed N]

``random_bot`` plays a seat of a stored match with random legal moves;
``tournament_entrant`` plays a tournament entrant's games. Their source is
short, and meant to be read and copied: ``python -m
sternhalma.examples.random_bot --help``, or open the file that
``sternhalma.examples.random_bot.__file__`` names. The same clients in
JavaScript (Node 18 or later, no packages) are served by the server:
``http://<server>/downloads/examples/random_bot.js`` and
``tournament_entrant.js``.
"""
