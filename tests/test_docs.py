"""Generated documents stay in step with the code they are made from."""

from auditor.findings import catalog_markdown
from auditor.tables import schema_markdown

from .conftest import ROOT


def test_findings_doc_is_current():
    assert (ROOT / "docs" / "findings.md").read_text() == catalog_markdown(), \
        "regenerate: auditor explain --all --format markdown > docs/findings.md"


def test_schema_doc_is_current():
    assert (ROOT / "docs" / "schema.md").read_text() == schema_markdown(), \
        "regenerate: python -c 'from auditor.tables import schema_markdown; print(schema_markdown(), end=\"\")' > docs/schema.md"


def test_readme_shows_the_test_command_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest" in ci and "python -m pytest" in (ROOT / "README.md").read_text()


def test_rules_doc_shows_every_preset_value():
    from auditor.rules import presets_markdown

    assert presets_markdown() in (ROOT / "docs" / "rules.md").read_text(), \
        "paste the output of auditor.rules.presets_markdown() into docs/rules.md"


def test_the_smear_example_of_the_notation_doc_audits_clean():
    from auditor.engine import audit_games
    from auditor.notation import parse_text

    doc = (ROOT / "docs" / "notation.md").read_text()
    block = doc[doc.index("### Smear needs nothing new"):]
    example = block[block.index("```\n") + 4:block.index("\n```", block.index("```\n") + 4)]
    games, problems = parse_text(example + "\n")
    (result,) = audit_games(games)
    assert problems == [] and result.findings == []
    assert [dict(h.score) for h in result.hands] == [{"NS": -2, "EW": 0}, {"NS": 3, "EW": 1}]


def _anchors(doc: str) -> set[str]:
    """The GitHub anchors of a Markdown file's headings."""
    import re

    text = (ROOT / "docs" / doc).read_text()
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.*)$", text, flags=re.M)}


def test_every_code_links_to_a_section_that_exists_and_names_it_where_it_can():
    from auditor.findings import CATALOG

    anchors = {doc: _anchors(doc) for doc in ("rules.md", "notation.md")}
    for c in CATALOG.values():
        doc, _, anchor = c.section.partition("#")
        assert anchor in anchors[doc], f"{c.code}: {c.section} is no heading of docs/{doc}"
    # a code that a heading of rules.md lists links to one of the sections listing it
    listed: dict[str, set[str]] = {}
    for anchor in anchors["rules.md"]:
        for word in anchor.split("-"):
            listed.setdefault(word.upper(), set()).add(f"rules.md#{anchor}")
    for code, sections in listed.items():
        if code in CATALOG:
            assert CATALOG[code].section in sections, (code, sections)


# --------------------------------------------------------------------------- the README's quoted outputs


def _console_blocks(text: str) -> list[list[tuple[str, list[str]]]]:
    """Each ```console block of a Markdown text as its commands, each with the lines quoted after it."""
    import re

    blocks = []
    for body in re.findall(r"^```console\n(.*?)^```$", text, flags=re.S | re.M):
        steps: list[tuple[str, list[str]]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            elif steps:
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def _quoted_in(quoted: list[str], actual: list[str]) -> str | None:
    """Whether the quoted lines are the actual output, a line ``...`` standing for lines left out;
    else what differs."""
    parts: list[list[str]] = [[]]
    for line in quoted:
        if line.strip() == "...":
            parts.append([])
        else:
            parts[-1].append(line)
    while actual and not actual[-1].strip():
        actual = actual[:-1]

    def same(q: str, a: str) -> bool:  # a quoted line cut short with " ..." quotes the start of the line
        return a == q or (q.endswith(" ...") and a.startswith(q[:-3]))

    at = 0
    for i, part in enumerate(parts):
        if not part:
            continue
        starts = [j for j in range(at, len(actual) - len(part) + 1)
                  if all(same(q, a) for q, a in zip(part, actual[j:j + len(part)]))]
        if i == 0:
            starts = [j for j in starts if j == 0]
        if i == len(parts) - 1:
            starts = [j for j in starts if j + len(part) == len(actual)]
        if not starts:
            near = next((j for j in range(at, len(actual)) if actual[j] == part[0]), at)
            return "\n".join(["quoted:", *part[:12], "printed:", *actual[near:near + 12]])
        at = starts[0] + len(part)
    return None


def test_the_readme_quotes_what_the_commands_print(tmp_path):
    """Every ```console block of the README, run in a copy of the tour's setting: each command's output
    (stdout and stderr, as a terminal shows them) is what the README quotes, `...` marking lines left out.
    A `cat FILE` block writes FILE, as the README has it."""
    import os
    import subprocess
    import sys

    for name in ("sample_logs", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR")}
    env.update(PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{env.get('PATH', '')}", PYTHONUNBUFFERED="1",
               LANG="C.UTF-8")
    failures = []
    for steps in _console_blocks((ROOT / "README.md").read_text("utf-8")):
        for command, quoted in steps:
            if command.startswith("cat ") and quoted:
                (tmp_path / command[4:]).write_text("\n".join(quoted) + "\n", "utf-8")
                continue
            done = subprocess.run(command + " 2>&1", shell=True, cwd=tmp_path, env=env, capture_output=True,
                                  text=True, encoding="utf-8", timeout=120)
            diff = _quoted_in(quoted, done.stdout.splitlines())
            if diff is not None:
                failures.append(f"$ {command}\n{diff}")
    assert not failures, "\n\n".join(failures)
