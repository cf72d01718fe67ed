#!/usr/bin/env node
// A tournament entrant that plays random legal moves, in JavaScript (Node 18
// or later, no packages: the built-in fetch).
//
//     node tournament_entrant.js URL TOURNAMENT_ID TOKEN [--seed N]
//
// TOKEN is the entrant's token from the tournament's creation. It waits for
// its turns with the long-poll (GET /v1/tournaments/{id}/turns), plays a
// random legal move in each (POST /v1/matches/{match_id}/moves, naming the
// turn's ply), and stops when the server says it has no game left (`done`).
// A 409 means the game moved on (e.g. the server played a timed-out move for
// it): it polls again. A 429 (too many requests from this address: a class
// behind one address shares the limits) or 503 (server busy) is waited out
// as its Retry-After says, and the request sent again (see `call`). At the
// end it prints its row of the standings and exits 0. It may start before
// the tournament does: it waits.

const POLL_MS = 25000;
const TRIES = 8; // attempts of one request before giving up
const LONGEST_WAIT_S = 30; // the longest Retry-After obeyed

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

// The seconds a 429 or 503 asks to wait: Retry-After in whole seconds (1 if
// absent or malformed), at most LONGEST_WAIT_S.
function retryAfter(response) {
  const text = (response.headers.get("Retry-After") ?? "").trim();
  return Math.min(/^\d+$/.test(text) ? Number(text) : 1, LONGEST_WAIT_S);
}

// One API call: answers [status, JSON body]. A 429 or 503 is waited out and
// the same request sent again, up to TRIES times in all. So is a request that
// got no answer (connection refused or reset) if sending it twice is safe: a
// GET, or a move, which names its ply (if the first one was stored, the
// second is refused with 409 stale_ply: "the game moved on").
async function call(url, method = "GET", body = undefined, token = undefined) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
  const safeToResend = method === "GET" || body?.ply !== undefined;
  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const why = error.cause?.code ?? error.cause?.message ?? error.message;
      if (!safeToResend || attempt === TRIES) {
        throw new Error(`${method} ${url}: no answer (${why}) after ${attempt} tries, giving up`);
      }
      console.error(`${method} ${url}: no answer (${why}); trying again in 1 s`);
      await sleep(1);
      continue;
    }
    if (response.status !== 429 && response.status !== 503) {
      return [response.status, await response.json()];
    }
    const problem = await response.text();
    if (attempt === TRIES) {
      throw new Error(`${method} ${url}: ${response.status} ${problem} after ${TRIES} tries, giving up`);
    }
    const wait = retryAfter(response);
    console.error(`${method} ${url}: ${response.status}; trying again in ${wait} s (Retry-After)`);
    await sleep(wait);
  }
}

// A small seeded generator (mulberry32), so that --seed repeats a run's
// choices; without a seed, Math.random.
function generator(seed) {
  if (seed === undefined) return Math.random;
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function parse(argv) {
  const positional = [];
  let seed;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--seed") {
      seed = Number(argv[++i]);
      if (!Number.isInteger(seed)) return null;
    } else {
      positional.push(argv[i]);
    }
  }
  if (positional.length !== 3) return null;
  const [url, tournamentId, token] = positional;
  return { url: url.replace(/\/$/, ""), tournamentId, token, seed };
}

async function main() {
  const args = parse(process.argv.slice(2));
  if (args === null) {
    console.error("usage: node tournament_entrant.js URL TOURNAMENT_ID TOKEN [--seed N]");
    process.exit(2);
  }
  const random = generator(args.seed);
  const base = `${args.url}/v1/tournaments/${args.tournamentId}`;
  let moves = 0;
  let name;
  for (;;) {
    const [status, answer] = await call(`${base}/turns?timeout_ms=${POLL_MS}`, "GET", undefined, args.token);
    if (status !== 200) throw new Error(`cannot read the turns: ${status} ${JSON.stringify(answer)}`);
    name = answer.name;
    for (const turn of answer.turns) {
      const choices = turn.legal_moves;
      const move = choices[Math.floor(random() * choices.length)].text;
      const [moveStatus, reply] = await call(
        `${args.url}/v1/matches/${turn.match_id}/moves`,
        "POST",
        { ply: turn.ply, move },
        args.token,
      );
      if (moveStatus === 200) {
        moves += 1;
      } else if (moveStatus !== 409) {
        // 409: the game moved on (stale_ply, not_your_turn, match_closed).
        throw new Error(`move ${move} refused: ${moveStatus} ${JSON.stringify(reply)}`);
      }
    }
    if (answer.done) break;
  }
  const [status, standings] = await call(`${base}/standings`);
  if (status !== 200) throw new Error(`cannot read the standings: ${status} ${JSON.stringify(standings)}`);
  const row = standings.rows.find((r) => r.name === name);
  console.log(
    `javascript entrant ${name}: done after ${moves} moves; rank ${row.rank}, ` +
      `${row.points} points from ${row.games} games ` +
      `(${row.wins} won, ${row.draws} drawn, ${row.losses} lost, ${row.timeouts} timeouts)`,
  );
  console.log(JSON.stringify(row));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
