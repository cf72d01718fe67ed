#!/usr/bin/env node
// A random bot for a stored match, in JavaScript (Node 18 or later, no
// packages: the built-in fetch).
//
//     node random_bot.js URL MATCH_ID SEAT TOKEN
//
// It reads the match, and while the match is in progress: on its turn plays
// a random legal move (naming the ply it expects), otherwise waits for the
// other seats with the long-poll (?wait_ply=). It prints the result and exits
// 0 when the match is over.

async function call(url, method = "GET", body = undefined, token = undefined) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return [response.status, await response.json()];
}

async function main() {
  const [url, matchId, seatText, token] = process.argv.slice(2);
  if (!token) {
    console.error("usage: node random_bot.js URL MATCH_ID SEAT TOKEN");
    process.exit(2);
  }
  const seat = Number(seatText);
  const matchUrl = `${url.replace(/\/$/, "")}/v1/matches/${matchId}`;
  let [status, state] = await call(matchUrl);
  if (status !== 200) throw new Error(`cannot read the match: ${status} ${JSON.stringify(state)}`);
  while (state.status === "in_progress") {
    if (state.to_move !== seat) {
      // Not our turn: wait until someone moves (or 25 s pass).
      [status, state] = await call(`${matchUrl}?wait_ply=${state.ply}&timeout_ms=25000`);
      continue;
    }
    const moves = state.legal_moves;
    const move = moves[Math.floor(Math.random() * moves.length)].text;
    const [moveStatus, answer] = await call(`${matchUrl}/moves`, "POST", { ply: state.ply, move }, token);
    if (moveStatus === 200) {
      state = answer.match;
    } else if (moveStatus === 409) {
      [status, state] = await call(matchUrl); // the match moved on: read it again
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
