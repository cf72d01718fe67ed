"""nbgrader's settings for the course in this folder (notebooks/README.md,
"Grading with nbgrader"). Run nbgrader from here: `source/` holds the
instructor versions, one assignment folder per notebook; nbgrader writes
`release/` (the student versions), `submitted/`, `autograded/`,
`feedback/` and `gradebook.db` beside it. A solution region becomes
nbgrader's default stub, `# YOUR CODE HERE` and `raise
NotImplementedError()`.

Every assignment folder holds a link to this file, so the student version
carries a copy of it: a student's `nbgrader validate` run beside the
notebook finds the same cell timeout and message width as the teacher's
autograde."""

c = get_config()  # noqa: F821 (nbgrader defines it)

# Every notebook runs top to bottom in under a minute; a single cell (a
# batch of seeded games) may take most of that on a slow machine.
c.Execute.timeout = 300

# `nbgrader validate` shows a failing test's message cut to this width
# (nbgrader's default, 90, cuts the messages that name the failing case).
c.Validator.width = 120

# `nbgrader zip_collect ASSIGNMENT`: the files a learning platform hands
# back, named `<student>_<notebook>.ipynb` (or zips of them), dropped into
# downloaded/ASSIGNMENT/archive/. The notebook's name starts with its two
# digits, so a student id may hold underscores (`ada_lovelace_03_...`);
# nbgrader matches the whole path.
c.ZipCollectApp.collector_plugin = "nbgrader.plugins.FileNameCollectorPlugin"
c.FileNameCollectorPlugin.named_regexp = (
    r".*/(?P<student_id>[^/]+?)_(?P<file_id>[0-9][0-9]_[^/]+\.ipynb)$"
)

# `nbgrader autograde`: the verdict is decided outside the student's
# process. No cell of a submission runs in nbgrader's process or in a
# kernel of the teacher's: `GradeInSandbox` (in the place of nbgrader's
# `Execute`) runs the submission in a sandbox (bubblewrap, a user without
# rights, no network, no view of this folder) and writes the course's
# verdict on each test cell as its output (docs/grading.md).
from sternhalma.autograde.nbgrader_plugin import AUTOGRADE_PREPROCESSORS

c.Autograde.autograde_preprocessors = AUTOGRADE_PREPROCESSORS
