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
