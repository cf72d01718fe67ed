#!/usr/bin/env node
// A random bot for a stored match, in JavaScript (Node 18 or later, no
// packages: the built-in fetch).
//
//     node random_bot.js URL MATCH_ID SEAT TOKEN
//
// It reads the match, and while the match is in progress: on its turn plays
// a random legal move (naming the ply it expects), otherwise waits for the
// other seats with the long-poll (?wait_ply=). A 429 (too many requests from
// this address) or 503 (server busy) is waited out as its Retry-After says,
// and the request sent again (see `call`). It prints the result and exits 0
// when the match is over.

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
// second is refused with 409 stale_ply: "read the match again").
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

// The match's state (GET), or an error.
async function read(url) {
  const [status, state] = await call(url);
  if (status !== 200) throw new Error(`cannot read the match: ${status} ${JSON.stringify(state)}`);
  return state;
}

async function main() {
  const [url, matchId, seatText, token] = process.argv.slice(2);
  if (!token) {
    console.error("usage: node random_bot.js URL MATCH_ID SEAT TOKEN");
    process.exit(2);
  }
  const seat = Number(seatText);
  const matchUrl = `${url.replace(/\/$/, "")}/v1/matches/${matchId}`;
  let state = await read(matchUrl);
  while (state.status === "in_progress") {
    if (state.to_move !== seat) {
      // Not our turn: wait until someone moves (or 25 s pass).
      state = await read(`${matchUrl}?wait_ply=${state.ply}&timeout_ms=25000`);
      continue;
    }
    const moves = state.legal_moves;
    const move = moves[Math.floor(Math.random() * moves.length)].text;
    const [moveStatus, answer] = await call(`${matchUrl}/moves`, "POST", { ply: state.ply, move }, token);
    if (moveStatus === 200) {
      state = answer.match;
    } else if (moveStatus === 409) {
      state = await read(matchUrl); // the match moved on: read it again
    } else {
      throw new Error(`move ${move} refused: ${moveStatus} ${JSON.stringify(answer)}`);
    }
  }
  console.log(`javascript bot, seat ${seat}: ${state.status}, ${state.result.summary}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
