// Full-turn enumeration in open_spiel's C++ chinese_checkers, timed.
//
// The C++ half of the side-by-side benchmark (benches/sidebyside/cpp_vs_rust.py
// builds it against open_spiel's own sources and runs it; see CPP.md).
//
//   openspiel_turns POSITIONS_FILE [--target-ms MS]
//
// POSITIONS_FILE has one position per line: `SET EXPECTED ACTION...`, where
// SET is `start`, `middle`, `other` or `random`, EXPECTED is the number of
// distinct turn-level (from, to) moves open_spiel allows there, and the
// actions are the open_spiel action history that reaches the position from
// NewInitialState() of `chinese_checkers` with players=2.
//
// open_spiel plays a turn hop by hop: a step, or a hop after which the same
// player stays to move (mid-chain) while the peg can hop on, choosing further
// hops or Pass. A full-turn enumeration, as a user of the C++ API would write
// it, is a depth-first search over the mover's actions: ApplyAction; if the
// same player is still to move, recurse over its actions except Pass (the Pass
// ends the move there, so the hole reached is recorded as a destination);
// UndoAction. Distinct (from, to) moves are collected as one bit set of end
// holes per start hole (the actions of one peg are contiguous, since
// LegalActions is sorted and an action is cell * 6 + direction).
//
// Two variants are timed:
//   dfs   every chain: open_spiel forbids landing on a hole already visited
//         in the chain, so the plain search ends; it walks every simple chain.
//   memo  a chain location already reached from the same start is not
//         expanded again (as explore_turn in tests/crosscheck/crosscheck.py
//         does); the destinations are the same, with less work.
//
// Before timing, every position is replayed with legality checks and both
// variants' move counts are checked against EXPECTED and against each other
// (same count and same checksum of the move sets), so the timing cannot time
// different work. Then, for each set (`all`: the `middle` and `other`
// positions, the first position file; the middle subset; the start; `random`:
// the second position file, turn starts of our seeded uniformly random games),
// each variant enumerates every position of the set K times, K chosen so that
// this takes about --target-ms; the output is one JSON line with ns per
// enumeration.

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "open_spiel/games/chinese_checkers/chinese_checkers.h"
#include "open_spiel/spiel.h"

namespace {

namespace cc = open_spiel::chinese_checkers;
using open_spiel::Action;
using open_spiel::Player;
using open_spiel::State;

// Distinct destinations of one start hole: 121 holes in two words.
struct HoleSet {
  uint64_t bits[2] = {0, 0};
  void Clear() { bits[0] = bits[1] = 0; }
  void Add(int hole) { bits[hole >> 6] |= uint64_t{1} << (hole & 63); }
  bool Has(int hole) const { return (bits[hole >> 6] >> (hole & 63)) & 1; }
  int Count() const {
    return std::popcount(bits[0]) + std::popcount(bits[1]);
  }
};

// Counts and a checksum of the move sets enumerated; the checksum depends on
// every (from, to), so the compiler cannot drop the work.
struct Tally {
  uint64_t moves = 0;
  uint64_t actions = 0;  // actions applied (and undone)
  uint64_t checksum = 0;
  void AddStart(int from, const HoleSet& to) {
    moves += to.Count();
    uint64_t h = (to.bits[0] * 0x9E3779B97F4A7C15ULL) ^
                 (to.bits[1] * 0xC2B2AE3D27D4EB4FULL) ^
                 static_cast<uint64_t>(from);
    checksum = (checksum ^ h) * 0x100000001B3ULL + 1;
  }
};

class TurnEnumerator {
 public:
  explicit TurnEnumerator(bool memo) : memo_(memo) {}

  // Adds the distinct turn-level moves of the player to move in `state` to
  // `tally`; leaves `state` as it was. Returns the number of moves.
  uint64_t Enumerate(State& state, Tally& tally) {
    const auto& board = static_cast<const cc::ChineseCheckersState&>(state);
    const Player mover = state.CurrentPlayer();
    const uint64_t before = tally.moves;
    const std::vector<Action> actions = state.LegalActions();
    if (actions.size() == 1 && actions[0] == cc::kPassAction) {
      return 0;  // no move: open_spiel's turn is a lone Pass
    }
    int from = -1;
    for (Action action : actions) {
      const int cell = static_cast<int>(action / cc::kNumDirections);
      const int dir = static_cast<int>(action % cc::kNumDirections);
      if (cell != from) {
        if (from >= 0) tally.AddStart(from, dest_);
        from = cell;
        dest_.Clear();
        reached_.Clear();
        reached_.Add(cell);
      }
      const int neighbour = cc::kNeighbor[cell][dir];
      const bool step = board.BoardAt(neighbour) == cc::kEmpty;
      const int to = step ? neighbour : cc::kHopDest[cell][dir];
      if (!step && memo_) {
        if (reached_.Has(to)) continue;
        reached_.Add(to);
      }
      state.ApplyAction(action);
      ++tally.actions;
      dest_.Add(to);  // a step, a hop that ends the turn, or hop then Pass
      if (state.CurrentPlayer() == mover) Chain(state, mover, to, tally);
      state.UndoAction(mover, action);
    }
    if (from >= 0) tally.AddStart(from, dest_);
    return tally.moves - before;
  }

 private:
  // Mid-chain at `at`: the legal actions are further hops of this peg and
  // Pass. Pass would end the move at `at`, already recorded.
  void Chain(State& state, Player mover, int at, Tally& tally) {
    const std::vector<Action> actions = state.LegalActions();
    for (Action action : actions) {
      if (action == cc::kPassAction) continue;
      const int to = cc::kHopDest[at][action % cc::kNumDirections];
      if (memo_) {
        if (reached_.Has(to)) continue;
        reached_.Add(to);
      }
      state.ApplyAction(action);
      ++tally.actions;
      dest_.Add(to);
      if (state.CurrentPlayer() == mover) Chain(state, mover, to, tally);
      state.UndoAction(mover, action);
    }
  }

  bool memo_;
  HoleSet dest_;
  HoleSet reached_;
};

struct Position {
  std::string set;
  uint64_t expected = 0;
  std::unique_ptr<State> state;
};

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "openspiel_turns: " << message << "\n";
  std::exit(1);
}

std::vector<Position> ReadPositions(const std::string& path,
                                    const open_spiel::Game& game) {
  std::ifstream in(path);
  if (!in) Fail("cannot read " + path);
  std::vector<Position> positions;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    std::istringstream fields(line);
    Position p;
    if (!(fields >> p.set >> p.expected)) {
      Fail(path + ":" + std::to_string(line_no) + ": expected SET EXPECTED");
    }
    p.state = game.NewInitialState();
    Action action;
    while (fields >> action) {
      if (p.state->IsTerminal()) {
        Fail(path + ":" + std::to_string(line_no) + ": game over early");
      }
      p.state->ApplyActionWithLegalityCheck(action);
    }
    if (!fields.eof()) {
      Fail(path + ":" + std::to_string(line_no) + ": bad action");
    }
    if (p.state->IsTerminal()) {
      Fail(path + ":" + std::to_string(line_no) + ": terminal position");
    }
    positions.push_back(std::move(p));
  }
  return positions;
}

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// One pass: every position of `set` enumerated once.
void Pass(const std::vector<State*>& set, TurnEnumerator& enumerator,
          Tally& tally) {
  for (State* state : set) enumerator.Enumerate(*state, tally);
}

struct Timing {
  uint64_t reps = 0;
  double ns_per_enum = 0;
  double moves_per_enum = 0;
  double actions_per_enum = 0;
  uint64_t checksum = 0;
};

Timing Time(const std::vector<State*>& set, bool memo, double target_s) {
  TurnEnumerator enumerator(memo);
  Tally tally;
  // Warm up and calibrate: passes until 1/8 of the target has gone by.
  uint64_t reps = 0;
  const auto warm_start = Clock::now();
  double warm = 0;
  while (warm < target_s / 8 || reps < 2) {
    Pass(set, enumerator, tally);
    ++reps;
    warm = Seconds(Clock::now() - warm_start);
  }
  Timing t;
  t.reps = std::max<uint64_t>(1, static_cast<uint64_t>(target_s / (warm / reps)));
  Tally timed;
  const auto start = Clock::now();
  for (uint64_t r = 0; r < t.reps; ++r) Pass(set, enumerator, timed);
  const double elapsed = Seconds(Clock::now() - start);
  const double calls = static_cast<double>(t.reps) * set.size();
  t.ns_per_enum = elapsed * 1e9 / calls;
  t.moves_per_enum = static_cast<double>(timed.moves) / calls;
  t.actions_per_enum = static_cast<double>(timed.actions) / calls;
  t.checksum = timed.checksum ^ tally.checksum;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: openspiel_turns POSITIONS_FILE [--target-ms MS]\n";
    return 2;
  }
  double target_s = 0.2;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--target-ms" && i + 1 < argc) {
      target_s = std::stod(argv[++i]) / 1000.0;
    } else {
      Fail("unknown argument " + arg);
    }
  }
  const std::shared_ptr<const open_spiel::Game> game =
      open_spiel::LoadGame("chinese_checkers", {{"players",
                                                  open_spiel::GameParameter(2)}});
  std::vector<Position> positions = ReadPositions(argv[1], *game);

  // The sets: `all` is every `middle` and `other` position (the first
  // position file), `random` the second file's positions.
  std::vector<State*> all, middle, start, random;
  for (Position& p : positions) {
    if (p.set == "start") {
      start.push_back(p.state.get());
    } else if (p.set == "random") {
      random.push_back(p.state.get());
    } else {
      all.push_back(p.state.get());
      if (p.set == "middle") middle.push_back(p.state.get());
      else if (p.set != "other") Fail("unknown set " + p.set);
    }
  }
  if (all.empty() || middle.empty() || start.empty() || random.empty()) {
    Fail("the file needs start, middle, other and random positions");
  }

  // Check the work: each variant's count is the expected one, and both
  // variants find the same move sets.
  TurnEnumerator dfs(false), memo(true);
  for (Position& p : positions) {
    Tally a, b;
    const uint64_t n_dfs = dfs.Enumerate(*p.state, a);
    const uint64_t n_memo = memo.Enumerate(*p.state, b);
    if (n_dfs != p.expected || n_memo != p.expected ||
        a.checksum != b.checksum) {
      Fail("move count mismatch: expected " + std::to_string(p.expected) +
           ", dfs " + std::to_string(n_dfs) + ", memo " +
           std::to_string(n_memo) + "\n" + p.state->ToString());
    }
  }

  struct Named {
    const char* name;
    const std::vector<State*>* set;
  };
  const Named sets[] = {{"all", &all},
                        {"middle", &middle},
                        {"start", &start},
                        {"random", &random}};
  std::printf("{\"engine\": \"open_spiel-cpp\", \"results\": [");
  bool first = true;
  uint64_t checksum = 0;
  for (const Named& s : sets) {
    for (bool use_memo : {false, true}) {
      const Timing t = Time(*s.set, use_memo, target_s);
      checksum ^= t.checksum;
      std::printf(
          "%s{\"set\": \"%s\", \"method\": \"%s\", \"positions\": %zu, "
          "\"reps\": %llu, \"ns_per_enum\": %.2f, \"moves_per_enum\": %.3f, "
          "\"actions_per_enum\": %.3f}",
          first ? "" : ", ", s.name, use_memo ? "memo" : "dfs", s.set->size(),
          static_cast<unsigned long long>(t.reps), t.ns_per_enum,
          t.moves_per_enum, t.actions_per_enum);
      first = false;
    }
  }
  std::printf("], \"checksum\": %llu}\n",
              static_cast<unsigned long long>(checksum));
  return 0;
}
