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
