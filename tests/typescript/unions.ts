// Type-level checks on the client that openapi-typescript generates from the
// OpenAPI document (check.sh writes it to generated/api.d.ts). Nothing here
// runs: `tsc --noEmit --strict` passing is the test.
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];

// True exactly when A and B are the same type (`string` is not equal to a
// union of literals, nor is a union with one member more or less).
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2
    ? true
    : false;

type BotKind = Schemas["BotSpec"]["kind"];
type MoveKind = Schemas["MoveView"]["kind"];
type OutcomeStatus = Schemas["OutcomeView"]["status"];
type SolvedValue = Schemas["TablebaseProbe"]["value"];
type Verdict = Schemas["PlyView"]["verdict"];

const botKindIsUnion: Equal<
  BotKind,
  "random" | "greedy" | "alphabeta" | "paranoid" | "mcts" | "perfect"
> = true;
const moveKindIsUnion: Equal<MoveKind, "step" | "hop" | "swap" | "pass"> =
  true;
const outcomeStatusIsUnion: Equal<
  OutcomeStatus,
  "in_progress" | "won" | "tie" | "ranking" | "draw"
> = true;
const solvedValueIsUnion: Equal<SolvedValue, "win" | "loss" | "draw"> = true;
const verdictIsUnion: Equal<Verdict, "best" | "slower" | "mistake"> = true;

// A literal outside each set is rejected (with `string` these would compile,
// and the unused @ts-expect-error would then fail the check).
// @ts-expect-error "chess" is not a bot kind
const notABot: BotKind = "chess";
// @ts-expect-error "jump" is not a move kind
const notAMove: MoveKind = "jump";
// @ts-expect-error "lost" is not an outcome status
const notAStatus: OutcomeStatus = "lost";

// A small client: build the body of POST /v1/bots/move and read its answer.
type BotMoveOperation = paths["/v1/bots/move"]["post"];
type BotMoveBody =
  BotMoveOperation["requestBody"]["content"]["application/json"];
type BotMoveAnswer =
  BotMoveOperation["responses"][200]["content"]["application/json"];

function botMoveBody(
  position: string,
  kind: BotKind,
  nodes?: number,
): BotMoveBody {
  return { position, bot: { kind, nodes: nodes ?? null, seed: 1 } };
}

function describeMove(move: Schemas["MoveView"]): string {
  switch (move.kind) {
    case "step":
      return `step ${move.from} to ${move.to}`;
    case "hop":
      return `hop along ${move.path.join("-")}`;
    case "swap":
      return `swap ${move.from} with ${move.to}`;
    case "pass":
      return "pass";
    default: {
      // Every kind is handled: a new one in the document breaks this line.
      const unhandled: never = move.kind;
      return unhandled;
    }
  }
}

function describeOutcome(outcome: Schemas["OutcomeView"]): string {
  switch (outcome.status) {
    case "in_progress":
      return "in progress";
    case "won":
      return `won by player ${outcome.winner}`;
    case "tie":
    case "ranking":
      return outcome.summary;
    case "draw":
      return `drawn (${outcome.reason})`;
    default: {
      const unhandled: never = outcome.status;
      return unhandled;
    }
  }
}

const body: BotMoveBody = botMoveBody(
  "star4 classic south:111-120/north:0-9 0 0 -",
  "alphabeta",
  20000,
);
declare const answer: BotMoveAnswer;
const line: string = describeMove(answer.move);

export {
  botKindIsUnion,
  moveKindIsUnion,
  outcomeStatusIsUnion,
  solvedValueIsUnion,
  verdictIsUnion,
  notABot,
  notAMove,
  notAStatus,
  body,
  line,
  describeOutcome,
};
