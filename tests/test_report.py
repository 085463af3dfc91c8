"""`auditor report`: the numbers against the warehouse and the engine, the rulings, the page.

sample_logs/ is imported once for the module, and its report written once through the command
line; every test reads them. The page is then opened in one headless Chromium (Debian's), shared
by the browser tests at the end.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from auditor import report as rp
from auditor.cli import app
from auditor.dataset import import_paths
from auditor.engine import audit_games
from auditor.findings import CATALOG
from auditor.notation import expand_paths, parse_file
from auditor.warehouse import connect, open_data, stats, summarize_batch

from .conftest import GOLDEN, NOTATION_EXAMPLE, SAMPLE_LOGS

runner = CliRunner()
# hands not played out, whose recomputed figures the score_sheet view reads off the hands around them
UNPLAYED = [GOLDEN / "smear" / "clean_all_pass_dealer_set_back.pitch", GOLDEN / "auction" / "D201_card_twice.pitch",
            GOLDEN / "sell" / "P402_not_clockwise.pitch"]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("report") / "club.parquet"
    import_paths([str(SAMPLE_LOGS)], root, summarize=summarize_batch)
    return root


@pytest.fixture(scope="module")
def wh(dataset):
    w = connect(dataset)
    yield w
    w.con.close()


@pytest.fixture(scope="module")
def sample(wh) -> rp.Report:
    """The report of the sample logs: nine events."""
    return rp.collect(wh)


@pytest.fixture(scope="module")
def page(tmp_path_factory, dataset) -> tuple[Path, str]:
    """`auditor report club.parquet -o report.html`, run once (the logs give the same page: see below)."""
    out = tmp_path_factory.mktemp("page") / "report.html"
    r = runner.invoke(app, ["report", str(dataset), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert re.search(r"wrote .*report\.html: 27 games in 9 events, 34 findings, \d+ kB", r.stderr)  # 26 verdicts and the R503 beside each of the 8 revokes
    return out, out.read_text("utf-8")


@pytest.fixture(scope="module")
def analysed(tmp_path_factory) -> tuple[Path, str, rp.Report]:
    """The sample logs imported with --analyze, and `auditor report DATASET -o report.html`: the page with
    the section on perfect play, and its report."""
    root = tmp_path_factory.mktemp("analysed-ds") / "club.parquet"
    import_paths([str(SAMPLE_LOGS)], root, summarize=summarize_batch, analyze=True)
    out = root.parent / "report.html"
    r = runner.invoke(app, ["report", str(root), "-o", str(out)])
    assert r.exit_code == 0, r.output
    w = connect(root)
    try:
        report = rp.collect(w)
    finally:
        w.con.close()
    return out, out.read_text("utf-8"), report


def test_report_analyze_reads_logs_as_import_analyze_does(tmp_path, analysed):
    """`report LOGS --analyze` gives the page a dataset imported with --analyze gives."""
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SAMPLE_LOGS / "setback.pitch", logs / "setback.pitch")
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["import", str(logs), "--out", str(ds), "--analyze"]).exit_code == 0
    a = runner.invoke(app, ["report", str(ds), "-o", "-", "--format", "md"])
    b = runner.invoke(app, ["report", str(logs), "--analyze", "-o", "-", "--format", "md"])
    assert a.exit_code == b.exit_code == 0 and a.stdout == b.stdout
    assert "| Hand | Pitcher | Bid | Par | Result | Bid against par | Decided | Mistakes |" in a.stdout


def audited(paths) -> list[tuple]:
    """Every finding the engine reports on ``paths``, as (file, line, column, code)."""
    files, _ = expand_paths([str(p) for p in paths])
    out = []
    for f in files:
        games, problems = parse_file(f)
        out += [(p.source, p.line, p.column, p.code) for p in problems]
        for res in audit_games(games):
            out += [(x.source, x.line, x.column, x.code) for x in res.findings]
    return sorted(out)


# --------------------------------------------------------------------------- the numbers


def test_the_league_tables_are_the_stats_of_each_event(wh, sample):
    """One definition: every row of every league table is `auditor stats --event E` (the same function)."""
    assert len(sample.events) == 9
    # players alone; teams of two; three teams of two (a team table and a player table each)
    for ev in (e for e in sample.events if e.name in ("Thursday club", "Partnership night", "Tuesday ten-point")):
        for unit, rows in (("player", ev.players), ("team", ev.teams)):
            if rows is None:
                continue
            alone = stats(wh, unit, event=ev.name).to_pylist()
            assert [{k: v for k, v in r.items() if k != "event"} for r in rows] == alone
        assert {g.event for g in ev.games} == {ev.name}
    # teams only where teams play, and then with the teams of the Teams tag
    teams = {ev.name: {r["team"] for r in ev.teams} for ev in sample.events if ev.teams is not None}
    assert set(teams) == {"Partnership night", "Partnership league", "Prairie Smear Club, Tuesday",
                          "Tuesday ten-point", "Fifty-two league"}
    assert {"NS", "EW", "Us", "Them"} <= teams["Partnership night"]


def test_places_rank_by_games_won_then_win_pct_then_points_per_hand(sample):
    for ev in sample.events:
        rows = ev.players
        key = [(-r["games_won"], -(r["win_pct"] if r["win_pct"] is not None else -1),
                -(r["points_per_hand"] if r["points_per_hand"] is not None else -1e9)) for r in rows]
        assert key == sorted(key)
        for i, r in enumerate(rows):  # equal keys share a place; the next place skips (1, 2, 2, 4)
            assert r["place"] == 1 + sum(1 for k in key if k < key[i])
    thursday = next(e for e in sample.events if e.name == "Thursday club")
    assert [(r["player"], r["place"], r["games_won"], r["score"]) for r in thursday.players[:2]] == \
        [("Hal", 1, 1, 6), ("Ann", 2, 1, 7)]


def test_games_without_an_event_make_a_table_of_their_own(tmp_path):
    log = tmp_path / "night.pitch"
    untagged = NOTATION_EXAMPLE.replace('[Event "Thursday club"]\n', "").replace('[Date "2026.11.19"]\n', "")
    log.write_text(NOTATION_EXAMPLE + "\n" + untagged.replace("Dee 3, Ann 3", "Dee 3, Ann pass")
                   .replace("score Ann 3, Bob 0, Cal 1, Dee 0", "score Ann 3, Bob 0, Cal 1, Dee -3"), "utf-8")
    with open_data([str(log)]) as w:
        report = rp.collect(w)
        assert [e.name for e in report.events] == ["Thursday club", None]
        assert [e.label for e in report.events][1] == "Games without an Event tag"
        assert [len(e.games) for e in report.events] == [1, 1]
        assert [r["hands"] for r in report.events[1].players] == [1, 1, 1, 1]
        assert report.events[0].players == [dict(r, event="Thursday club") for r in stats(w, event="Thursday club")
                                            .to_pylist()]
        # the dates pick games as stats does: a game without a Date tag is left out
        assert [g.event for g in rp.collect(w, since=dt.date(2026, 11, 19)).games] == ["Thursday club"]


def test_every_score_sheet_is_the_engines(sample):
    """Written and recomputed, hand by hand, side by side, for every hand (not played out ones too)."""
    with open_data([str(p) for p in UNPLAYED]) as w:
        unplayed = rp.collect(w)
    games = {(g.source, g.name): g for g in sample.games + unplayed.games}
    files, _ = expand_paths([str(SAMPLE_LOGS), *map(str, UNPLAYED)])
    seen = Counter()
    for f in files:
        parsed, _ = parse_file(f)
        for game, res in zip(parsed, audit_games(parsed)):
            mine = games[(f, game.name)]
            assert mine.sides == list(res.sides)
            assert mine.winner == res.winner and mine.won_in_hand == res.won_in_hand
            assert [h.hand for h in mine.hands] == [h.number for h in game.hands]
            for h, hs, row in zip(game.hands, res.hands, mine.hands):
                for side in res.sides:
                    c = row.cells[side]
                    assert (c.total, c.score) == (hs.total[side], hs.score.get(side, c.score)), (f, h.number, side)
                    assert c.recorded_score == (h.score.as_dict().get(side) if h.score else None)
                    assert c.recorded_total == (h.total.as_dict().get(side) if h.total else None)
                    seen[hs.status] += 1
    assert {"played", "misdeal", "thrown-in", "unplayable"} <= set(seen)


def test_the_summary_counts(sample):
    assert (len(sample.games), sample.hands, sample.played, len(sample.players)) == (27, 191, 183, 92)
    assert Counter(f.code for f in sample.findings)["R501"] == 8
    kinds = {k: n for k, n, _ in sample.kinds()}
    assert sum(kinds.values()) == len(sample.findings)


# --------------------------------------------------------------------------- the rulings


def test_every_finding_of_the_audit_has_a_ruling_with_its_rule(sample):
    assert sorted((f.file, f.line, f.column, f.code) for f in sample.findings) == audited([SAMPLE_LOGS])
    for f in sample.findings:
        code = CATALOG[f.code]
        rule = sample.rules[code.section]
        assert rule.title and rule.body, code.section  # the text of the section, from docs/
        assert rule.anchor.startswith("rule-")


def test_rulings_say_what_the_score_should_be(sample):
    by = {(f.game, f.code, f.hand): f for f in sample.findings}
    game = {g.name: g for g in sample.games}
    s601 = by["sb-0210-r1", "S601", 3]
    assert rp.score_ruling(game["sb-0210-r1"], s601) == (
        "Hand 3 should read Kai: score -3 and total 0 (the sheet has +2 and 5). Kai's later totals carry the "
        "difference to the end of the sheet (-2, not 3, after hand 4).")
    # the revoke was scored right: only the total carried from hand 3 is off
    assert rp.score_ruling(game["sb-0210-r1"], by["sb-0210-r1", "R501", 4]) == (
        "The sheet's scores for hand 4 are right (Ike +1, Jan +2, Kai -2); Kai's total is off by what hand 3 left.")
    # a smear all-pass: not played, the dealer's side set back 2, which the sheet forgot
    assert rp.score_ruling(game["prairie-0105-2"], by["prairie-0105-2", "S601", 7]).startswith(
        "Hand 7 should read EW: score -2 and total 4 (the sheet has 0 and 6).")
    assert rp.score_ruling(game["grange-1102-b"], by["grange-1102-b", "S602", 4]).startswith(
        "Hand 4 should read Abe: still needed 8 (the sheet has 4).")


def test_a_revoke_is_shown_in_its_hand_and_trick(sample):
    f = next(f for f in sample.findings if (f.game, f.code, f.hand) == ("sb-0210-r1", "R501", 4))
    d = sample.diagrams[f.number]
    names = {p: " ".join(rp.CARD_NAMES[c] for c in cards) for p, cards in d.held}
    # sample_logs/setback.pitch, hand 4 before trick 2; spades are trump, so they sort first
    assert names == {"Jan": "QS 3S KD 9D 4C", "Kai": "QH 9H AC 9C 3C", "Ike": "KH JH 7H 4D KC"}
    assert [p for p, _ in d.held] == ["Jan", "Kai", "Ike"]  # in the order they played to the trick
    assert (d.leader, d.winner, d.player, rp.CARD_NAMES[d.card]) == ("Jan", "Ike", "Kai", "9H")
    assert {rp.CARD_NAMES[c] for c in d.could} == {"AC", "9C", "3C"} and d.or_trump
    # every revoke and illegal play has a diagram, and nothing else does
    assert {n for n in sample.diagrams} == {f.number for f in sample.findings if f.kind in ("revoke", "play") and f.severity != "info"}


def test_the_rules_text_links_only_within_the_page():
    rules = {"rules.md#revokes-r501-r502": rp.RuleText("rules.md#revokes-r501-r502", "Revokes (R501, R502)", "x")}
    out = rp._markdown_html("[R](#revokes-r501-r502), [S](rules.md#revokes-r501-r502), [T](notation.md#tricks), "
                            "[web](https://example.org), ![a hand](hand.png)", rules, "rules.md")
    assert out.count('<a href="#rule-rules-md-revokes-r501-r502">') == 2
    assert '<span class="xref">T</span>' in out and '<span class="xref">web</span>' in out
    assert "<img" not in out and "a hand" in out and "example.org" not in out


# --------------------------------------------------------------------------- the page


def test_the_page_is_one_self_contained_file(page):
    _, text = page
    assert text.count("<style>") == 1 and text.count("<script>") == 1
    # nothing to load: no src, no stylesheet or font link, no url() or @import
    assert not re.search(r"\bsrc\s*=|<link\b|url\(\s*(?!['\"]?#)|@import|@font-face", text)
    assert not re.search(r"""href\s*=\s*(?!["']?#)""", text), "every link is within the page"
    ids = re.findall(r'\bid="([^"]+)"', text)
    dupes = [i for i, n in Counter(ids).items() if n > 1]
    assert not dupes, dupes[:5]
    for ref in set(re.findall(r'href="#([^"]+)"', text)):
        assert ref in ids, ref


def test_the_page_shows_every_game_finding_and_chart(page, sample):
    _, text = page
    assert text.count('<section class="game"') == 27 and '<details class="game"' not in text  # short: every game shown
    numbers = [int(n) for n in re.findall(r'<article class="ruling" id="f(\d+)"', text)]
    assert numbers == list(range(1, 35))  # numbered down the page (26 verdicts, and an R503 with each of 8 R501)
    charts = re.findall(r'<figure class="chart" data-series="(\d+)">(.*?)</figure>', text, flags=re.S)
    assert len(charts) == 27
    for n, svg in charts:  # a series per player or team, each a line drawn by matplotlib
        assert len(set(re.findall(r'id="chart-\d+-series-(\d+)"', svg))) == int(n)
    assert "setback.pitch:251:21" in text and "Kai plays 9H to trick 2 (4C led)" in text
    # the rules cited are quoted once each, and every ruling links to its rule's text
    cited = set(re.findall(r'<strong>The rule.</strong> <a href="#(rule-[^"]+)"', text))
    assert len(re.findall(r"<strong>The rule.</strong> <a ", text)) == 34  # 26 verdicts and the R503 beside each of the 8 revokes
    assert cited == set(re.findall(r'<article class="rule" id="(rule-[^"]+)"', text))
    assert '<article class="rule" id="rule-rules-md-revokes-r501-r502">' in text


def test_markdown_for_a_forum_post(wh, sample):
    text = rp.to_markdown(sample)
    for ev in sample.events:
        assert f"### {rp._md(ev.label)}" in text
    for f in sample.findings:
        assert f"**{f.number}. {f.code} " in text
    assert "| 1 | Hal | 1 | 1 | 100.0 |" in text
    assert "| 3 | Kai 3 set | +1 3 | +1 3 | +1 2 | +1 2 | +2 5 ✗ | -3 0 |" in text
    # a slip on a total line, in a sheet that counts down (sell): Abe was set back 2
    assert "1. Hand 4, Abe: the sheet's still needed 4 is not its own previous 6 + 2 = 8; the audit's still needed " \
           "is 8." in text
    assert not re.search(r"<(span|a|svg|table)\b", text)  # Markdown, not HTML


# --------------------------------------------------------------------------- the command


def test_a_dataset_and_the_logs_give_the_same_report(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(SAMPLE_LOGS / "setback.pitch", logs / "setback.pitch")
    ds = tmp_path / "ds"
    assert runner.invoke(app, ["import", str(logs), "--out", str(ds)]).exit_code == 0
    a = runner.invoke(app, ["report", str(ds), "-o", "-", "--format", "md", "--event", "Setback league"])
    b = runner.invoke(app, ["report", str(logs), "-o", "-", "--format", "md", "--event", "Setback league"])
    assert a.exit_code == b.exit_code == 0
    assert a.stdout == b.stdout and a.stdout.startswith("# Setback league: results\n")
    assert "wrote stdout: 3 games in 1 event, 4 findings" in a.stderr  # the R501 with its R503


def test_command_errors(dataset, tmp_path):
    r = runner.invoke(app, ["report", str(dataset), "-o", str(tmp_path / "x.html"), "--event", "Nobody's night"])
    assert r.exit_code == 2 and "no games match" in r.stderr and not (tmp_path / "x.html").exists()
    r = runner.invoke(app, ["report", str(dataset), "-o", "x", "--format", "pdf"])
    assert r.exit_code == 2 and "--format must be html or md" in r.stderr
    r = runner.invoke(app, ["report", str(dataset), "-o", "x", "--since", "last week"])
    assert r.exit_code == 2 and "YYYY-MM-DD" in r.stderr
    r = runner.invoke(app, ["report", str(tmp_path / "nowhere.pitch"), "-o", "x"])
    assert r.exit_code == 2 and "nowhere.pitch" in r.stderr and "Traceback" not in r.output
    r = runner.invoke(app, ["report", str(dataset)])
    assert r.exit_code == 2 and "--output" in r.output


def test_charts_for_every_game_or_the_games_with_findings_only(sample, page):
    assert rp.chart_games(sample, "auto") == rp.chart_games(sample, "all") == {g.index for g in sample.games}
    disputed = rp.chart_games(sample, "findings")
    assert disputed == {g.index for g in sample.games if g.findings or rp.sheet_differences(g)}
    assert 0 < len(disputed) < len(sample.games) and rp.chart_games(sample, "none") == set()
    assert "<svg" not in rp.to_html(sample, charts="none")


# --------------------------------------------------------------------------- errors apart from information


def test_errors_and_information_are_counted_apart(sample, page):
    _, text = page
    sev = sample.severities()
    assert sev["info"] == 8 and sev["error"] + sev.get("warning", 0) == 26 and sum(sev.values()) == 34
    figures = dict(re.findall(r'<div class="sev-(\w+)"><dt>\w+</dt><dd>(\d+)</dd>', text))
    assert figures == {k: str(n) for k, n in sev.items()}
    # the findings table: a group per code, under its kind, each with its severity
    groups = re.findall(r'<details class="code-group" data-code="(\w+)" data-severity="(\w+)"', text)
    assert Counter(c for c, _ in groups) == Counter(set(f.code for f in sample.findings))
    assert dict(groups)["R503"] == "info" and dict(groups)["R501"] == "error"
    kinds = re.findall(r'<section class="kind" id="findings-(\w+)">', text)
    assert kinds == [k for k, _ in rp._by_kind(sample.findings)] and kinds[0] == "input"
    for code, _ in groups:  # each group lists its findings, and only those, each linking to its ruling
        body = text[text.index(f'data-code="{code}" data-severity'):]
        body = body[:body.index("</details>")]
        assert sorted(map(int, re.findall(r'<a href="#f(\d+)">', body))) == \
            sorted(f.number for f in sample.findings if f.code == code)
    # the games' results count errors, not examinations
    assert "Findings and rulings (34 findings: 26 errors, 8 information)" in text


def test_a_season_folds_its_findings_groups(sample):
    text = rp.to_html(sample, charts="none")
    assert re.search(r'data-code="R501" data-severity="error" open>', text)  # 34 findings: open
    assert re.search(r'data-code="R503" data-severity="info">', text)  # information folded
    many = rp.Report(**{**sample.__dict__, "findings": sample.findings * 2})
    assert not re.search(r'class="code-group"[^>]* open>', rp.to_html(many, charts="none"))


# --------------------------------------------------------------------------- a mixed event


MIXED = NOTATION_EXAMPLE.replace('[Date "2026.11.19"]', '[Date "2026.11.19"]\n[GameId "solo"]') + """
[Event "Thursday club"]
[Date "2026.11.19"]
[GameId "pairs"]
[Rules "partnership"]
[Players "Ann Bob Cal Dee"]
[Teams "NS: Ann Cal; EW: Bob Dee"]

hand 1
dealer Ann
bids Bob 2, Cal pass, Dee pass, Ann pass
1. Bob:AS Cal:3S Dee:9S Ann:KS
2. Bob:JS Cal:4S Dee:TD Ann:2S
3. Bob:7H Cal:KH Dee:2H Ann:5H
4. Cal:QC Dee:AC Ann:3C Bob:6C
5. Dee:TH Ann:8H Bob:9H Cal:4H
6. Dee:5D Ann:6D Bob:9D Cal:KD
score NS 0, EW 4
total NS 0, EW 4
"""


def test_a_mixed_event_keeps_solo_players_out_of_the_team_table(tmp_path):
    log = tmp_path / "thursday.pitch"
    log.write_text(MIXED, "utf-8")
    with open_data([str(log)]) as w:
        report = rp.collect(w)
        everyone = stats(w, "team", event="Thursday club").to_pylist()
    (ev,) = report.events
    assert ev.mixed and {g.name for g in ev.games} == {"solo", "pairs"}
    assert {r["team"] for r in everyone} > {"NS", "EW"}  # stats --by team counts a player alone as a side
    assert [r["team"] for r in ev.teams] == ["EW", "NS"] and [r["place"] for r in ev.teams] == [1, 2]
    for row in ev.teams:  # the figures are stats' own
        assert {k: v for k, v in row.items() if k not in ("place", "event")} == \
            {k: v for k, v in next(r for r in everyone if r["team"] == row["team"]).items() if k != "place"}
    text = rp.to_html(report, charts="none")
    assert "<caption>Teams, Thursday club: the sides of the 1 partnership game only (of 2)</caption>" in text
    assert "<caption>Players, Thursday club: every game, each partner credited with the team" in text


# --------------------------------------------------------------------------- perfect play


def test_par_beside_each_result_is_the_analysis_of_every_hand(analysed):
    from auditor.engine import analyze_games

    _, _, report = analysed
    games = {(g.source, g.name): g for g in report.games}
    files, _ = expand_paths([str(SAMPLE_LOGS)])
    seen = 0
    for f in files:
        parsed, _ = parse_file(f)
        for game, hands in zip(parsed, analyze_games(parsed)):
            mine = games[(f, game.name)]
            for a in hands:
                if a.not_analysable:
                    assert a.hand not in mine.played
                    continue
                p = mine.played[a.hand]
                assert (p.par, p.result, p.claim, p.contract, p.pitcher) == (a.par, a.result, a.claim, a.contract,
                                                                             a.pitcher), (game.name, a.hand)
                assert (p.mistakes, p.lost) == (len(a.mistakes), sum(m.cost for m in a.mistakes))
                seen += 1
            # the costliest mistakes of the game, most costly first
            every = sorted(((m.cost, a.hand, m.trick, m.player, m.card) for a in hands if not a.not_analysable
                            for m in a.mistakes), key=lambda m: (-m[0], m[1], m[2]))
            assert [(m.cost, m.hand, m.trick, m.player, m.card) for m in mine.mistakes] == \
                every[:rp.MISTAKES_SHOWN]
    assert seen == report.analysed > 150


def test_who_bid_under_or_over_par_agrees_with_the_stats(analysed):
    _, _, report = analysed
    for ev in report.events:
        over, under = Counter(), Counter()
        for g in ev.games:
            for p in g.played.values():
                who = p.pitcher
                over[who] += p.bid_vs_par == "over"
                under[who] += p.bid_vs_par == "under"
        for row in ev.players:
            if row["cards_analysed"]:
                assert (row["unmakeable_bids"], row["underbids"]) == (over[row["player"]], under[row["player"]])


def test_the_section_on_perfect_play(analysed):
    _, text, report = analysed
    assert text.count('<section class="perfect"') == len([g for g in report.games if g.played]) > 20
    # accuracy in the standings, as stats computes it
    assert "Lost /100 cards</th>" in text and "Mistakes /hand</th>" in text
    thursday = next(e for e in report.events if e.name == "Thursday club")
    ann = next(r for r in thursday.players if r["player"] == "Ann")
    assert ann["points_lost_per_100_cards"] is not None and ann["mistakes_per_hand"] is not None
    assert len(re.findall(r'<figure class="chart accuracy" data-bars="(\d+)">', text)) == len(report.events)
    # claims, in the words of replay
    claims = [(g, p) for g in report.games for p in g.played.values() if p.claim]
    assert claims and len(re.findall(r'title="from trick (\d+) the hand was decided: claim">from trick \1: claim<',
                                     text)) == len(claims)
    # each costliest mistake: the cards that kept the value, and (a short report) its hand and trick
    g = next(g for g in report.games if g.mistakes)
    m = g.mistakes[0]
    d = report.mistake_diagrams[m.number]
    assert (d.hand, d.trick, d.player, rp.CARD_NAMES[d.card]) == (m.hand, m.trick, m.player, m.card)
    assert {rp.CARD_NAMES[c] for c in d.could} == set(m.better) and d.kind == "mistake"
    assert f'<li id="{m.anchor}" value="{m.number}">' in text
    assert "underlined, the cards that kept the value" in text
    assert "is not in this report" not in text
    md = rp.to_markdown(report)
    assert "| Hand | Pitcher | Bid | Par | Result | Bid against par | Decided | Mistakes |" in md


def test_a_report_without_analysis_says_how_to_get_it(page, wh):
    _, text = page  # from a dataset imported without --analyze
    assert "Perfect play (par beside each hand's result" in text
    assert ("<code>auditor report LOGS --analyze</code> examines them; for a dataset, "
            "<code>auditor import LOGS --out DATASET --analyze</code> before the report.") in text
    r = runner.invoke(app, ["report", str(SAMPLE_LOGS / "setback.pitch"), "-o", "-", "--format", "md"])
    assert "`auditor report LOGS --analyze` examines them" in r.stdout
    r = runner.invoke(app, ["report", str(wh.dataset), "--analyze", "-o", "-"])
    assert r.exit_code == 2 and "--analyze reads logs" in r.stderr


# --------------------------------------------------------------------------- in a real browser

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium (Debian's, installed by .ci/run) for every browser test."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        if os.environ.get("CI"):
            pytest.fail("chromium and chromium-driver are missing: .ci/run installs them")
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,900", "--hide-scrollbars", "--disable-extensions"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def opened(browser, page):
    """The sample logs' report, opened once: the console's messages and every request the page made."""
    browser.get(page[0].as_uri())
    console = browser.get_log("browser")
    requests = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    urls = [m["params"]["request"]["url"] for m in requests if m["method"] == "Network.requestWillBeSent"]
    return browser, console, urls


def test_the_page_opens_offline_with_no_error_and_no_request(opened, page):
    _, console, urls = opened
    assert [m for m in console if m["level"] in ("SEVERE", "WARNING")] == []
    assert urls == [page[0].as_uri()]  # the document itself, and nothing else: no font, image or script


def test_the_browser_shows_the_standings_and_every_finding(opened, sample):
    browser = opened[0]
    league = {(ev.label, unit): rows for ev in sample.events
              for unit, rows in (("player", ev.players), ("team", ev.teams)) if rows is not None}
    tables = browser.execute_script("""
        return [...document.querySelectorAll('table.standings')].map(t => [t.caption.textContent,
            [...t.tBodies[0].rows].map(r => [...r.cells].map(c => c.textContent))]);""")
    assert len(tables) == 9 + 5  # a player table per event, and a team table where teams play
    for caption, rows in tables:
        unit, event = caption.split(", ", 1)
        unit = "team" if unit == "Teams" else "player"
        want = league[event, unit]  # the rows of auditor stats (see the first test)
        assert [r[1] for r in rows] == [w[unit] for w in want], caption
        assert [(int(r[2]), int(r[3])) for r in rows] == [(w["games"], w["games_won"]) for w in want]
        assert [r[0].rstrip("=") for r in rows] == [str(w["place"]) for w in want]
    shown = browser.execute_script("""
        return [...document.querySelectorAll('article.ruling')].filter(a => a.getClientRects().length)
            .map(a => a.dataset.code);""")
    assert Counter(shown) == Counter(code for *_, code in audited([SAMPLE_LOGS]))


def test_the_charts_render_with_a_line_per_player_or_team(opened):
    charts = opened[0].execute_script("""
        return [...document.querySelectorAll('figure.chart')].map(f => {
            const svg = f.querySelector('svg'), box = svg.getBoundingClientRect();
            const lines = [...svg.querySelectorAll('g[id*="-series-"] > path')].map(p => p.getTotalLength());
            return [Number(f.dataset.series), lines.length, Math.min(...lines), box.width, box.height];
        });""")
    assert len(charts) == 27
    for series, lines, shortest, width, height in charts:
        assert lines == series and shortest > 10, (series, lines, shortest)
        assert width > 300 and height > 100


def _printed(browser):
    """Chromium's print-to-PDF of the open page (what driver.print_page() calls), with the headings as the
    PDF's outline: the reader, and each game heading's (title, page, top)."""
    import base64
    import io

    from pypdf import PdfReader

    pdf = PdfReader(io.BytesIO(base64.b64decode(browser.execute_cdp_cmd(
        "Page.printToPDF", {"generateDocumentOutline": True, "generateTaggedPDF": True})["data"])))
    heads = []

    def walk(items):
        for it in items:
            if isinstance(it, list):
                walk(it)
            elif it.title.startswith("Game "):
                heads.append((it.title, pdf.get_destination_page_number(it), float(it.top)))
    walk(pdf.outline)
    return pdf, heads


def _page_fill(page) -> float:
    """How much of a printed page's height holds text: from its highest line to its lowest."""
    ys: list[float] = []
    page.extract_text(visitor_text=lambda text, cm, tm, *_: ys.append(cm[5] + tm[5] * cm[3]) if text.strip() else None)
    height = float(page.mediabox.height)
    return (max(ys) - min(ys)) / height if ys else 0.0


def test_printing_packs_short_games_and_strands_no_heading(opened, sample):
    browser = opened[0]
    pdf, heads = _printed(browser)
    games = browser.execute_script("return [...document.querySelectorAll('.game .game-title')].map(h => h.textContent)")
    assert [t for t, _, _ in heads] == games and len(games) == 27
    height = float(pdf.pages[0].mediabox.height)
    # a heading never sits at the foot of a page with its game on the next
    assert all(top > 0.2 * height for _, _, top in heads), heads
    # games follow one another down the pages, not each from a page of its own: a game that ends part way
    # down a page is followed there by the next (the sample's games are mostly a page or more long)
    firsts = {ev.games[0].name for ev in sample.events}
    following = [(t, n, top) for t, n, top in heads if t.removeprefix("Game ") not in firsts]
    packed = [h for h in following if h[2] < 0.85 * height]
    assert len(packed) >= len(following) // 4, following
    # no page is mostly blank but the last of a part: the front matter, each event, the rules cited
    sparse = [i for i, page in enumerate(pdf.pages[:-1]) if _page_fill(page) < 0.3]
    assert len(sparse) <= len(sample.events) + 2, sparse


PHONE_CHECKS = """
const tables = arguments[0];
const vw = window.innerWidth, out = {unreachable: [], dates: [], loose_dates: [], small: [], boxes: [], nocue: [],
                                      cells: 0, texts: 0, wide: 0};
for (const d of document.querySelectorAll('details')) d.open = true;
// every cell's text can be brought into view by scrolling its table's box, and nothing covers it there
for (const t of document.querySelectorAll(tables)) {
  const wrap = t.closest('.table-wrap');
  for (const row of t.rows) {
    wrap.scrollLeft = 0;
    row.scrollIntoView({block: 'center'});
    const left = wrap.getBoundingClientRect().left;
    // where each cell ends with the box scrolled back: scrolling its right edge to the box's brings it in
    const ends = [...row.cells].map(c => c.getBoundingClientRect().right - left);
    [...row.cells].forEach((cell, i) => {
    if (!cell.textContent.trim()) return;
    out.cells++;
    wrap.scrollLeft = Math.max(0, ends[i] - wrap.clientWidth);
    const r = cell.getBoundingClientRect();
    const hit = document.elementFromPoint(Math.min(vw - 1, Math.max(0, r.left + r.width / 2)), r.top + r.height / 2);
    if (r.left < -0.5 || r.right > vw + 0.5 || !hit || !(hit === cell || cell.contains(hit)))
      out.unreachable.push([t.className, cell.textContent.trim().slice(0, 30), r.left, r.right,
                            hit ? hit.tagName + '.' + hit.className : null]);
    });
  }
  wrap.scrollLeft = 0;
}
// a box whose table is wider shows that it scrolls
for (const w of document.querySelectorAll('.table-wrap')) {
  if (w.scrollWidth <= w.clientWidth + 1) continue;
  out.wide++;
  const st = getComputedStyle(w);
  if (!['auto', 'scroll'].includes(st.overflowX) || !st.backgroundImage.includes('radial-gradient'))
    out.nocue.push(w.firstElementChild.className);
}
// a date is one piece on one line, and every date shown is such a piece
for (const t of document.querySelectorAll('time.date')) if (t.getClientRects().length !== 1) out.dates.push(t.textContent);
const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (/\\b\\d{4}-\\d\\d-\\d\\d\\b/.test(n.textContent) && !n.parentElement.closest('time, code, pre, article.rule, title'))
    out.loose_dates.push(n.textContent.slice(0, 40));
}
// a chart's text, labels and legend, at least the body's size on the screen
const body = parseFloat(getComputedStyle(document.body).fontSize);
for (const text of document.querySelectorAll('figure.chart svg text')) {
  const svg = text.ownerSVGElement, vb = svg.viewBox.baseVal, r = svg.getBoundingClientRect();
  const px = parseFloat(getComputedStyle(text).fontSize) * Math.min(r.width / vb.width, r.height / vb.height);
  out.texts++;
  if (px < body - 0.01) out.small.push([text.textContent, px]);
}
for (const el of document.querySelectorAll('figure.chart figcaption, figure.chart ul.legend li'))
  if (parseFloat(getComputedStyle(el).fontSize) < body - 0.01) out.small.push([el.textContent.slice(0, 30), 0]);
// the names kept in view on a striped row have the row's own shade: no white box
function rgba(c) { const p = c.match(/rgba?\\(([^)]+)\\)/)[1].split(',').map(Number); return p.length > 3 ? p : p.concat([1]); }
function shade(el) {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  let col = [255, 255, 255];
  for (const l of layers.reverse()) col = col.map((v, i) => l[i] * l[3] + v * (1 - l[3]));
  return col;
}
for (const th of document.querySelectorAll('tbody th')) {
  if (getComputedStyle(th).position !== 'sticky') continue;
  const a = shade(th), b = shade(th.parentElement);
  if (a.some((v, i) => Math.abs(v - b[i]) > 2)) out.boxes.push([th.textContent, a, b]);
}
window.scrollTo(0, 0);
return out;
"""


def _at_phone_width(browser, uri: str,
                    tables: str = "table.standings, table.sheet, table.findings, table.par, table.results") -> dict:
    """At 390 pixels: the page does not scroll sideways, and what PHONE_CHECKS finds in ``tables``."""
    browser.set_script_timeout(120)
    browser.set_window_size(390, 844)
    browser.get(uri)
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    return browser.execute_script(PHONE_CHECKS, tables)


def test_at_phone_width_every_cell_reads_no_date_breaks_and_charts_read(browser, page):
    try:
        seen = _at_phone_width(browser, page[0].as_uri())
    finally:
        browser.set_window_size(1200, 900)
    assert seen["cells"] > 2000 and seen["texts"] > 27 * 8 and seen["wide"] > 10
    assert seen["unreachable"] == [], seen["unreachable"][:10]
    assert seen["nocue"] == [] and seen["boxes"] == [] and seen["small"] == [], (seen["nocue"], seen["boxes"][:3],
                                                                                    seen["small"][:5])
    assert seen["dates"] == [] and seen["loose_dates"] == [], (seen["dates"], seen["loose_dates"][:5])


def test_the_section_on_perfect_play_in_the_browser(browser, analysed, tmp_path):
    """Visible, no console error, the same checks at 390 pixels, and printed to PDF with its pages."""
    path, text, report = analysed
    browser.set_window_size(1200, 900)
    browser.get(path.as_uri())
    assert [m for m in browser.get_log("browser") if m["level"] in ("SEVERE", "WARNING")] == []
    shown = browser.execute_script("""
        return [...document.querySelectorAll('section.perfect')].filter(s => s.getClientRects().length
            && s.querySelector('table.par').getBoundingClientRect().height > 20).length""")
    assert shown == text.count('<section class="perfect"')
    bars = browser.execute_script("""
        return [...document.querySelectorAll('figure.accuracy svg')].map(s => s.querySelectorAll('[id*="-bar-"]').length)""")
    assert len(bars) == len(report.events) and all(n >= 2 for n in bars)
    pdf, heads = _printed(browser)
    assert len(heads) == 27 and "Perfect play, game" in "".join(p.extract_text() for p in pdf.pages[8:12])
    try:  # the rest of the page is the one checked above
        seen = _at_phone_width(browser, path.as_uri(), "table.par, #standings > section:first-of-type table.standings")
        shot = tmp_path / "perfect.png"
        browser.execute_script("document.querySelector('section.perfect').scrollIntoView()")
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 20_000
    finally:
        browser.set_window_size(1200, 900)
    assert seen["unreachable"] == [] and seen["boxes"] == [] and seen["small"] == [] and seen["dates"] == [], \
        (seen["unreachable"][:5], seen["boxes"][:3], seen["small"][:5])


def test_the_filter_shows_one_severity(browser, page):
    browser.set_window_size(1200, 900)
    browser.get(page[0].as_uri())
    state = browser.execute_script("""
        const count = sel => [...document.querySelectorAll(sel)].filter(e => e.getClientRects().length).length;
        const before = [count('details.code-group'), count('article.ruling')];
        document.querySelector('p.filter button[data-show="info"]').click();
        const info = [count('details.code-group'), count('article.ruling'), count('article.ruling[data-severity="error"]')];
        document.querySelector('p.filter button[data-show="all"]').click();
        return [document.querySelector('p.filter').hidden, before, info, count('article.ruling')];""")
    hidden, before, info, after = state
    assert not hidden and before[1] == 34 and after == 34
    assert info == [1, 8, 0]  # R503's group, its eight rulings, no error


def test_at_phone_width_nothing_spills_and_the_screenshot_shows_it(opened, tmp_path):
    browser = opened[0]
    try:
        browser.set_window_size(390, 844)
        assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        shot = tmp_path / "phone.png"
        assert browser.save_screenshot(str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    finally:
        browser.set_window_size(1200, 900)


def test_a_season_shows_in_full_the_games_the_audit_has_something_to_say_about(sample, monkeypatch):
    everyone = {g.index for g in sample.games}
    argued = {g.index for g in sample.games if rp.disputed(g)}
    assert rp.detail_games(sample, "auto") == rp.detail_games(sample, "all") == everyone
    assert 0 < len(argued) < len(everyone) and rp.detail_games(sample, "disputed") == argued
    monkeypatch.setattr(rp, "CHART_GAMES", 10)  # a "season" of 27 games
    assert rp.detail_games(sample, "auto") == argued
    text = rp.to_html(sample, charts="none")
    assert len(re.findall(r'<(?:section|details) class="game"', text)) == len(argued)
    assert f"{len(argued)} of the 27 games are shown in full" in text
    ids = set(re.findall(r'\bid="([^"]+)"', text))
    assert all(ref in ids for ref in re.findall(r'href="#([^"]+)"', text))  # no link to a game not shown
    for g in sample.games:  # every game keeps its line in its event's results
        assert f'<tr><th scope="row">{"<a href=" if g.index in argued else ""}' in text and g.name in text
    for f in sample.findings:  # every finding is still ruled on, with its game
        assert f'<article class="ruling" id="{f.anchor}"' in text
    md = rp.to_markdown(sample)
    assert md.count("#### Game ") == len(argued)
