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
