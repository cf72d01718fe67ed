// A class started by scripts/classroom, as its students and teacher see it,
// in Debian's headless Chromium (playwright-core). run.sh starts the class
// and runs this twice:
//
//   node class.mjs work SETTINGS.json      every student, at once: the first
//       login (the password they choose becomes theirs), their server starts,
//       the Assignment List fetches the assignments, their kernel imports
//       sternhalma and reaches the game server, a student who solved it saves
//       the solutions, each runs the notebooks in a kernel (the solver's to
//       the end, the others' to the first exercise left undone) and submits
//       from the Assignment List.
//   node class.mjs feedback SETTINGS.json  after the teacher graded: each
//       student logs in again with their password and fetches the feedback
//       (its score); the teacher has the formgrader, students do not.
//   TOURNAMENT_ID=N node class.mjs tournament SETTINGS.json  a student's
//       bot plays the class tournament N from their kernel; the projector
//       shows its page on the web board through the hub's port.
//
// Exits non-zero on the first failed check. Writes what it measured to
// SETTINGS.results (JSON) and screenshots to SETTINGS.screenshots.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

import { chromium } from "playwright-core";

const [phase, settingsPath] = process.argv.slice(2);
const settings = JSON.parse(readFileSync(settingsPath, "utf8"));
const { url, assignments } = settings;
const LONG = 180_000;
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

mkdirSync(settings.screenshots, { recursive: true });
const results = { phase, students: {} };

/** Logs in on the hub's page and waits for the user's JupyterLab. */
async function login(browser, username, password, screenshot = null) {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  const page = await context.newPage();
  page.setDefaultTimeout(LONG);
  const started = Date.now();
  await page.goto(`${url}/hub/login`);
  await page.fill("#username_input", username);
  await page.fill("#password_input", password);
  if (screenshot) await page.screenshot({ path: path.join(settings.screenshots, screenshot) });
  await page.click("#login_submit");
  await page.waitForURL(new RegExp(`/user/${username}/lab`), { timeout: LONG });
  // JupyterLab is ready when its menu bar has the Nbgrader menu.
  await page.locator(".lm-MenuBar-item", { hasText: "Nbgrader" }).waitFor();
  return { context, page, seconds: (Date.now() - started) / 1000 };
}

/** What the page's JupyterLab was told to leave out. */
async function disabledExtensions(page) {
  return page.evaluate(() => {
    const data = JSON.parse(document.getElementById("jupyter-config-data").textContent);
    const disabled = data.disabledExtensions || [];
    return Array.isArray(disabled) ? disabled : Object.keys(disabled).filter((k) => disabled[k]);
  });
}

async function openAssignmentList(page) {
  await page.locator(".lm-MenuBar-item", { hasText: "Nbgrader" }).click();
  await page.locator(".lm-Menu-item", { hasText: "Assignment List" }).click();
  await page.locator("#released_assignments_list").waitFor();
}

function row(page, list, text) {
  return page.locator(`#${list} .list_item:not(.nested_list_item)`, { hasText: text });
}

/** A request to the user's own server, from their page (their cookies, the _xsrf token). */
async function serverRequest(page, username, method, urlPath, body) {
  return page.evaluate(
    async ({ username, method, urlPath, body }) => {
      const xsrf = document.cookie
        .split("; ")
        .find((c) => c.startsWith("_xsrf="))
        ?.slice(6);
      const answer = await fetch(`/user/${username}${urlPath}`, {
        method,
        headers: { "Content-Type": "application/json", "X-XSRFToken": decodeURIComponent(xsrf || "") },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: answer.status, text: await answer.text() };
    },
    { username, method, urlPath, body },
  );
}

/** Runs code in a new kernel of the user's server (the REST API and the
 * kernel's websocket, from their page); returns what it printed, and
 * "[the kernel died]" when it died on the way. */
async function runInKernel(page, username, code, seconds = 90) {
  return page.evaluate(
    async ({ username, code, seconds }) => {
      const base = `/user/${username}/api`;
      const xsrf = decodeURIComponent(
        document.cookie
          .split("; ")
          .find((c) => c.startsWith("_xsrf="))
          ?.slice(6) || "",
      );
      const headers = { "Content-Type": "application/json", "X-XSRFToken": xsrf };
      const kernel = await (
        await fetch(`${base}/kernels`, { method: "POST", headers, body: JSON.stringify({ name: "python3" }) })
      ).json();
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      const socket = new WebSocket(`${scheme}://${location.host}${base}/kernels/${kernel.id}/channels`);
      const msgId = crypto.randomUUID();
      const output = await new Promise((resolve, reject) => {
        let text = "";
        const timer = setTimeout(() => reject(new Error(`no answer from the kernel: ${text}`)), seconds * 1000);
        socket.onerror = () => reject(new Error("the kernel's websocket failed"));
        socket.onopen = () =>
          socket.send(
            JSON.stringify({
              header: {
                msg_id: msgId,
                username,
                session: crypto.randomUUID(),
                msg_type: "execute_request",
                version: "5.3",
                date: new Date().toISOString(),
              },
              parent_header: {},
              metadata: {},
              content: { code, silent: false, store_history: false, user_expressions: {}, allow_stdin: false },
              channel: "shell",
            }),
          );
        socket.onmessage = (event) => {
          const message = JSON.parse(event.data);
          const state = message.msg_type === "status" ? message.content.execution_state : "";
          if (state === "restarting" || state === "dead") {
            clearTimeout(timer);
            resolve(`${text}[the kernel died]`);
          }
          if (message.parent_header?.msg_id !== msgId) return;
          if (message.msg_type === "stream") text += message.content.text;
          if (message.msg_type === "error") text += `${message.content.ename}: ${message.content.evalue}`;
          if (message.msg_type === "status" && message.content.execution_state === "idle") {
            clearTimeout(timer);
            resolve(text);
          }
        };
      });
      socket.close();
      await fetch(`${base}/kernels/${kernel.id}`, { method: "DELETE", headers });
      return output;
    },
    { username, code, seconds },
  );
}

/** Runs the notebook at `path` (in the user's home) cell by cell in a new
 * kernel started in its folder, as Run All does, stopping at the first
 * error; answers the number of code cells, how many ran, and the error. */
async function runNotebook(page, username, path, seconds = 300) {
  return page.evaluate(
    async ({ username, path, seconds }) => {
      const base = `/user/${username}/api`;
      const xsrf = decodeURIComponent(
        document.cookie
          .split("; ")
          .find((c) => c.startsWith("_xsrf="))
          ?.slice(6) || "",
      );
      const headers = { "Content-Type": "application/json", "X-XSRFToken": xsrf };
      const notebook = await (await fetch(`${base}/contents/${path}?content=1`, { headers })).json();
      const cells = notebook.content.cells
        .filter((cell) => cell.cell_type === "code")
        .map((cell) => (Array.isArray(cell.source) ? cell.source.join("") : cell.source));
      const folder = path.split("/").slice(0, -1).join("/");
      const kernel = await (
        await fetch(`${base}/kernels`, { method: "POST", headers, body: JSON.stringify({ name: "python3", path: folder }) })
      ).json();
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      const socket = new WebSocket(`${scheme}://${location.host}${base}/kernels/${kernel.id}/channels`);
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = () => reject(new Error("the kernel's websocket failed"));
      });
      const session = crypto.randomUUID();
      const execute = (code) =>
        new Promise((resolve, reject) => {
          const msgId = crypto.randomUUID();
          const timer = setTimeout(() => reject(new Error(`a cell ran over ${seconds} s`)), seconds * 1000);
          let error = null;
          socket.onmessage = (event) => {
            const message = JSON.parse(event.data);
            if (message.msg_type === "status" && ["restarting", "dead"].includes(message.content.execution_state)) {
              clearTimeout(timer);
              resolve({ ename: "KernelDied", evalue: "the kernel died" });
            }
            if (message.parent_header?.msg_id !== msgId) return;
            if (message.msg_type === "error") error = { ename: message.content.ename, evalue: message.content.evalue };
            if (message.msg_type === "execute_reply") {
              clearTimeout(timer);
              resolve(message.content.status === "ok" ? null : error || { ename: "Error", evalue: message.content.status });
            }
          };
          socket.send(
            JSON.stringify({
              header: { msg_id: msgId, username, session, msg_type: "execute_request", version: "5.3", date: new Date().toISOString() },
              parent_header: {},
              metadata: {},
              content: { code, silent: false, store_history: true, user_expressions: {}, allow_stdin: false },
              channel: "shell",
            }),
          );
        });
      let ran = 0;
      let error = null;
      for (const code of cells) {
        error = await execute(code);
        ran += 1;
        if (error) break;
      }
      socket.close();
      await fetch(`${base}/kernels/${kernel.id}`, { method: "DELETE", headers });
      return { cells: cells.length, ran, error };
    },
    { username, path, seconds },
  );
}

const KERNEL_CHECK = (paths) => `
import json, os, sternhalma, requests
url = os.environ["STERNHALMA_URL"]
answer = requests.get(url + "/v1/catalogue", timeout=10)
def readable(path):
    try:
        open(path, "rb").read(1)
        return True
    except OSError:
        return False
print(json.dumps({
    "version": sternhalma.__version__,
    "url": url,
    "catalogue": answer.status_code,
    "cgroup": open("/proc/self/cgroup").read(),
    "user": os.environ.get("USER"),
    "held_out_secret": "STERNHALMA_HELD_OUT" in os.environ,
    "readable": {path: readable(path) for path in ${JSON.stringify(paths)}},
}))
`;

async function work(browser, student, index) {
  const { username, password } = student;
  const mine = {};
  const { context, page, seconds } = await login(
    browser,
    username,
    password,
    index === 0 ? "student-first-login.png" : null,
  );
  mine.login_to_lab_seconds = seconds;
  const disabled = await disabledExtensions(page);
  assert.ok(disabled.includes("@jupyter/nbgrader:formgrader"), `${username} has the formgrader: ${disabled}`);
  assert.ok(disabled.includes("@jupyter/nbgrader:create-assignment"), `${username} has Create Assignment`);

  // Fetch from the Assignment List.
  await openAssignmentList(page);
  for (const assignment of assignments) {
    await row(page, "released_assignments_list", assignment).getByRole("button", { name: "Fetch" }).click();
    await row(page, "fetched_assignments_list", assignment).waitFor();
  }
  if (index === 0) await page.screenshot({ path: path.join(settings.screenshots, "student-assignment-list.png") });

  // The memory limit: a kernel that takes more than the student may have
  // loses (killed by the cgroup, or refused by prlimit); the server lives.
  if (index === 1) {
    const hog = await runInKernel(
      page,
      username,
      `data = b"x" * ${settings.memory_limit} + b"y"\nprint("kept", len(data))`,
    );
    assert.ok(!hog.includes("kept"), `${username} took more memory than the limit: ${hog}`);
    mine.over_the_limit = hog.trim().split("\n").pop();
  }

  // The student's kernel: the module, the game server, the limits, and
  // none of the teacher's files or secrets.
  const started = Date.now();
  // The teacher's files, the hub's secrets, and a classmate's home.
  const classmate = settings.students[(index + 1) % settings.students.length];
  const privatePaths = [...settings.private_paths, `${classmate.home}/.bashrc`];
  const printed = await runInKernel(page, username, KERNEL_CHECK(privatePaths));
  mine.kernel_seconds = (Date.now() - started) / 1000;
  let facts;
  try {
    facts = JSON.parse(printed.trim().split("\n").pop());
  } catch {
    assert.fail(`${username}'s kernel printed: ${printed}`);
  }
  assert.equal(facts.version, settings.version, `${username}: import sternhalma`);
  assert.equal(facts.url, settings.game_url, `${username}: STERNHALMA_URL`);
  assert.equal(facts.catalogue, 200, `${username}: the game server from the kernel`);
  assert.equal(facts.user, username);
  assert.equal(facts.held_out_secret, false, `${username} sees the teacher's held-out secret`);
  for (const [file, readable] of Object.entries(facts.readable)) {
    assert.equal(readable, false, `${username} reads ${file}`);
  }
  if (settings.limit_mode === "cgroup") {
    assert.match(facts.cgroup, new RegExp(`memory:.*/${username}$`, "m"), `${username}'s kernel is not in its cgroup`);
  }
  mine.cgroup = facts.cgroup.split("\n").find((line) => line.includes(":memory:")) || "";

  // A student who solved them saves the solutions (as JupyterLab saves).
  if (student.solved) {
    for (const assignment of assignments) {
      const content = JSON.parse(readFileSync(settings.solved_notebooks[assignment], "utf8"));
      const saved = await serverRequest(page, username, "PUT", `/api/contents/${assignment}/${assignment}.ipynb`, {
        type: "notebook",
        format: "json",
        content,
      });
      assert.equal(saved.status, 200, `saving the solutions: ${saved.text}`);
    }
  }
  // Each student runs the fetched notebooks in their kernel on the hub:
  // the one who solved them to the end, the others up to the first
  // exercise left undone (its stub raises NotImplementedError, or a
  // visible check that called it says so).
  mine.runs = {};
  for (const assignment of assignments) {
    const started = Date.now();
    let run = await runNotebook(page, username, `${assignment}/${assignment}.ipynb`);
    if (run.error?.ename === "KernelDied") {
      // As a student would: start a new kernel and run again, once. Seen
      // once on the 2-core CI machine (no out-of-memory kill in the
      // kernel's log); a second death fails the test.
      console.log(`  ${username}'s kernel died in ${assignment} at cell ${run.ran}: running it again in a new kernel`);
      run = await runNotebook(page, username, `${assignment}/${assignment}.ipynb`);
      run.retried = true;
    }
    run.seconds = (Date.now() - started) / 1000;
    mine.runs[assignment] = run;
    if (student.solved) {
      assert.equal(run.error, null, `${username}'s solved ${assignment} failed at cell ${run.ran}: ${JSON.stringify(run.error)}`);
      assert.equal(run.ran, run.cells, `${username}'s ${assignment} did not run to the end`);
    } else {
      // The stub itself, or a visible check that called it.
      assert.match(
        `${run.error?.ename}: ${run.error?.evalue}`,
        /NotImplementedError/,
        `${username}'s unsolved ${assignment}: ${JSON.stringify(run)}`,
      );
    }
  }
  if (index === 0) {
    // A notebook opens in JupyterLab from the Assignment List's link.
    const assignment = assignments.at(-1);
    await page.locator("#fetched_assignments_list a.assignment-notebooks-link", { hasText: assignment }).click();
    await page.locator("#fetched_assignments_list .assignment-notebooks a", { hasText: assignment }).first().click();
    await page.locator(".jp-NotebookPanel .jp-Cell").first().waitFor();
    await page.waitForTimeout(1000);
    await page.screenshot({ path: path.join(settings.screenshots, "student-notebook.png") });
    await page.locator(".lm-TabBar-tab", { hasText: "Assignments" }).first().click();
  }

  // Submit from the Assignment List.
  for (const assignment of assignments) {
    await row(page, "fetched_assignments_list", assignment).getByRole("button", { name: "Submit" }).click();
    await row(page, "submitted_assignments_list", assignment).waitFor();
  }
  if (index === 0) await page.screenshot({ path: path.join(settings.screenshots, "student-submitted.png") });
  await context.close();
  return mine;
}

async function feedback(browser, student, index) {
  const { username, password } = student;
  const { context, page, seconds } = await login(browser, username, password);
  await openAssignmentList(page);
  const scores = {};
  for (const assignment of assignments) {
    const submitted = row(page, "submitted_assignments_list", assignment);
    await submitted.getByRole("button", { name: "Fetch Feedback" }).click();
    await submitted.getByText("view feedback").first().waitFor();
  }
  if (index === 0) await page.screenshot({ path: path.join(settings.screenshots, "student-feedback.png") });
  for (const assignment of assignments) {
    // The feedback page, as the link opens it: the student's score.
    const listing = await serverRequest(page, username, "GET", `/api/contents/${assignment}/feedback`);
    assert.equal(listing.status, 200, `${username}: no feedback folder for ${assignment}`);
    const stamps = JSON.parse(listing.text).content.map((entry) => entry.name).sort();
    const file = `${assignment}/feedback/${stamps.at(-1)}/${assignment}.html`;
    const report = await serverRequest(page, username, "GET", `/api/contents/${file}?content=1&format=text`);
    assert.equal(report.status, 200, `${username}: no ${file}`);
    const html = JSON.parse(report.text).content;
    const score = html.match(/Score:\s*([\d.]+)\s*\/\s*([\d.]+)/);
    assert.ok(score, `${username}: no score in the feedback of ${assignment}`);
    scores[assignment] = { score: Number(score[1]), max: Number(score[2]) };
    if (index === 0 && assignment === assignments.at(-1)) {
      await page.goto(`${url}/user/${username}/files/${file}`);
      await page.screenshot({ path: path.join(settings.screenshots, "student-feedback-report.png") });
    }
  }
  await context.close();
  return { login_seconds: seconds, feedback: scores };
}

async function teacher(browser) {
  const { username, password } = settings.teacher;
  const { context, page, seconds } = await login(browser, username, password);
  const disabled = await disabledExtensions(page);
  assert.ok(!disabled.includes("@jupyter/nbgrader:formgrader"), `the teacher has no formgrader: ${disabled}`);
  const formgrader = await serverRequest(page, username, "GET", "/formgrader");
  assert.equal(formgrader.status, 200, "the teacher's formgrader");
  // The formgrader's Autograde button (its API) grades in the sandbox too:
  // the teacher's settings load the course's wherever nbgrader runs.
  const solver = settings.students.find((student) => student.solved).username;
  const regraded = await serverRequest(
    page,
    username,
    "POST",
    `/formgrader/api/submission/${assignments[0]}/${solver}/autograde`,
  );
  assert.equal(regraded.status, 200, `the formgrader's autograde: ${regraded.text}`);
  const answer = JSON.parse(regraded.text);
  assert.ok(answer.success, `the formgrader's autograde failed: ${answer.error || answer.log}`);
  assert.match(answer.log, /bubblewrap, /, `the formgrader graded outside the sandbox: ${answer.log}`);
  // The submissions of the assignment, with their scores, as the teacher sees them.
  await page.goto(`${url}/user/${username}/formgrader/manage_submissions/${assignments.at(-1)}`);
  await page.getByText(settings.students[0].username).first().waitFor();
  await page.screenshot({ path: path.join(settings.screenshots, "teacher-formgrader.png") });
  await context.close();
  return { login_to_lab_seconds: seconds };
}

// A student's own bot, from their kernel in the hub: the entry that
// `scripts/classroom tournament new` left in their home names the server,
// the tournament and their token (as notebook 7 reads it).
const TOURNAMENT_BOT = `
import json, sternhalma
from sternhalma.server import class_tournament
entry = class_tournament()
assert entry is not None, "no class tournament entry in the home folder"

def my_bot(position):
    # One ply: the move after which the opponent has the fewest replies
    # (a student's first bot; anything legal will do for the test).
    return min(position.legal_moves, key=lambda move: len(position.play(move).legal_moves))

moves = []
standings = sternhalma.Client(entry.url).play_tournament(
    entry.tournament, entry.token, my_bot, on_move=lambda turn, text: moves.append(text)
)
print(json.dumps({"tournament": entry.tournament, "entrant": entry.entrant, "moves": len(moves),
                  "source": entry.source}))
`;

/** One student's bot plays the class tournament from their kernel while
 * the projector (the teacher's browser, through the hub's port) shows
 * the tournament's page on the web board. */
async function tournament(browser) {
  const id = Number(process.env.TOURNAMENT_ID);
  const student = settings.students[0];
  const { context, page } = await login(browser, student.username, student.password);
  const playing = runInKernel(page, student.username, TOURNAMENT_BOT, 170);
  // The projector: the web board under the hub's prefix, no login.
  const projector = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const board = await projector.newPage();
  board.setDefaultTimeout(LONG);
  const outside = [];
  board.on("request", (request) => {
    const where = new URL(request.url());
    if (!where.pathname.startsWith("/services/game/")) outside.push(where.pathname);
  });
  const errors = [];
  board.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  await board.goto(`${url}/services/game/tournaments/${id}`);
  const printed = await playing;
  let played;
  try {
    played = JSON.parse(printed.trim().split("\n").pop());
  } catch {
    assert.fail(`${student.username}'s bot printed: ${printed}`);
  }
  assert.equal(played.tournament, id);
  assert.equal(played.entrant, student.username);
  assert.ok(played.moves > 0, `${student.username}'s bot made no move`);
  // The page follows the tournament's events: it shows it finished.
  await board.getByText("finished", { exact: false }).first().waitFor();
  await board.getByRole("cell", { name: student.username }).first().waitFor();
  await board.screenshot({ path: path.join(settings.screenshots, "projector-tournament.png"), fullPage: true });
  assert.deepEqual(outside, [], `the web board left /services/game/: ${outside}`);
  assert.deepEqual(errors, [], `the web board's console: ${errors}`);
  await projector.close();
  await context.close();
  return { [student.username]: played };
}

async function studentHasNoFormgrader(browser) {
  const student = settings.students[0];
  const { context, page } = await login(browser, student.username, student.password);
  const answer = await serverRequest(page, student.username, "GET", "/formgrader");
  assert.notEqual(answer.status, 200, "a student opens the formgrader");
  await context.close();
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: FLAGS });
const started = Date.now();
try {
  if (phase === "work") {
    const done = await Promise.all(settings.students.map((student, index) => work(browser, student, index)));
    settings.students.forEach((student, index) => (results.students[student.username] = done[index]));
  } else if (phase === "feedback") {
    const done = await Promise.all(settings.students.map((student, index) => feedback(browser, student, index)));
    settings.students.forEach((student, index) => (results.students[student.username] = done[index]));
    results.teacher = await teacher(browser);
    await studentHasNoFormgrader(browser);
  } else if (phase === "tournament") {
    results.students = await tournament(browser);
  } else {
    throw new Error(`unknown phase ${phase}`);
  }
} finally {
  await browser.close();
}
results.seconds = (Date.now() - started) / 1000;
writeFileSync(settings.results, JSON.stringify(results, null, 1));
console.log(JSON.stringify(results, null, 1));
