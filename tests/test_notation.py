"""The parser never raises; every problem is a finding with code, line and column."""

from __future__ import annotations

import io
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.notation import (Bid, Bids, Deal, Exchange, Game, Hand, Holding, Marker, Named, Note, Play,
                              RevokeCall, ScoreEntry, ScoreLine, Tag, Trick, TrumpLine, Widow, parse_file,
                              parse_stream, parse_text, strip_positions, write_game, write_games)

from .conftest import NOTATION_EXAMPLE, SAMPLE_LOGS

HEAD = '[Rules "auction"]\n[Players "Ann Bob Cal Dee"]\n'


def codes(problems):
    return [(p.code, p.line, p.column) for p in problems]


def test_the_notation_example_reads_cleanly():
    games, problems = parse_text(NOTATION_EXAMPLE, "club.pitch")
    assert problems == []
    (g,) = games
    h = g.hands[0]
    assert g.name == "club.pitch#1" and g.tag("Event") == "Thursday club"
    assert [b.word for b in h.bids.bids] == ["2", "pass", "3", "3"]
    assert h.bids.remark == " the dealer takes it at 3"
    assert len(h.tricks) == 6 and h.tricks[3].plays[0].player == "Bob"
    assert h.score.as_dict() == {"Ann": 3, "Bob": 0, "Cal": 1, "Dee": 0}


def test_bad_card_token_reports_line_and_column_and_keeps_the_rest():
    text = HEAD + "hand 1\ndealer Ann\nbids Bob 2, Cal pass, Dee pass, Ann pass\n1. Bob:AS Cal:QX Dee:2S Ann:4S\n" \
        "score Ann 0, Bob 2, Cal 0, Dee 0\n"
    games, problems = parse_text(text)
    assert codes(problems) == [("E103", 6, 15)]
    assert games[0].hands[0].score is not None
    assert [p.card for p in games[0].hands[0].tricks[0].plays] == [12, 0, 2]


def test_unknown_statement_and_unknown_player():
    text = HEAD + "hand 1\ndealr Ann\ndealer Eve\n"
    _, problems = parse_text(text)
    assert codes(problems) == [("E102", 4, 1), ("E104", 5, 8)]
    assert "Eve" in problems[1].message


def test_bad_rules_tag_points_at_the_bad_word():
    _, problems = parse_text('[Rules "auction game=seven"]\n[Players "Ann Bob Cal"]\n')
    assert codes(problems) == [("E105", 1, 22)]


def test_missing_required_tags():
    _, problems = parse_text('[Event "x"]\nhand 1\ndealer Ann\n')
    assert [(p.code, p.line) for p in problems] == [("E107", 1), ("E107", 1)]


def test_hand_numbering():
    text = HEAD + "hand 1\ndealer Ann\nhand 3\ndealer Bob\n"
    _, problems = parse_text(text)
    assert codes(problems) == [("E106", 5, 6)]


def test_statement_out_of_order_and_repeated():
    text = HEAD + "hand 1\ndealer Ann\nbids Bob 2, Cal pass, Dee pass, Ann pass\ndealer Bob\n"
    _, problems = parse_text(text)
    assert codes(problems) == [("E108", 6, 1)]


def test_broken_game_does_not_lose_the_next_game():
    text = '[Rules "nonsense"]\n[Players "Ann Bob Cal"]\nhand 1\n%%%\nfoo bar\n' + NOTATION_EXAMPLE
    games, problems = parse_text(text)
    assert len(games) == 2 and len(games[1].hands[0].tricks) == 6
    assert [p.code for p in problems] == ["E105", "E102"]


def test_non_utf8_bytes_are_reported_and_the_line_still_read():
    data = (HEAD + "hand 1\ndealer Ann  % caf").encode() + b"\xe9\n" + b"note \"ok\"\n"
    games, problems = parse_stream(io.BytesIO(data), "latin.pitch")
    assert codes(problems) == [("E109", 4, 18)]
    assert games[0].hands[0].dealer.name == "Ann" and games[0].hands[0].notes[0].text == "ok"


def test_bytes_that_are_not_utf8_in_a_name_or_card_are_their_e109_alone():
    """The name or card they spoil is not said again (E101, E103), and the play it hides accuses
    nobody of a revoke: one mistake, one finding."""
    from auditor.engine import audit_games
    from auditor.simulate import simulate

    text, _ = simulate("auction", games=1, seed=5)
    clean = text.encode()
    games, problems = parse_stream(io.BytesIO(clean), "t.pitch")
    assert problems == [] and all(not r.findings for r in audit_games(games))
    lines = clean.split(b"\n")
    n = next(i for i, line in enumerate(lines) if line.startswith(b"1. ")) + 1
    trick = lines[n - 1]
    second = trick.index(b" ", 3) + 1  # the second play of the first trick
    for at in (3, second, trick.index(b":", second) + 1, len(trick) - 2):
        flawed = b"\n".join(lines[:n - 1] + [trick[:at] + b"\xff\xfe" + trick[at:]] + lines[n:])
        games, problems = parse_stream(io.BytesIO(flawed), "t.pitch")
        found = problems + [f for r in audit_games(games) for f in r.findings]
        assert [(f.code, f.line) for f in found] == [("E109", n)], (at, [f.message for f in found])


def test_nul_bytes_are_reported_and_removed():
    data = (HEAD + "hand 1\ndeal").encode() + b"er\x00 Ann\n"
    games, problems = parse_stream(io.BytesIO(data), "nul.pitch")
    assert codes(problems) == [("E109", 4, 7)]
    assert games[0].hands[0].dealer.name == "Ann"


def test_crlf_and_missing_final_newline_parse_like_lf():
    crlf = NOTATION_EXAMPLE.replace("\n", "\r\n").rstrip("\r\n")
    a, pa = parse_text(NOTATION_EXAMPLE)
    b, pb = parse_stream(io.BytesIO(crlf.encode()), "<text>")
    assert pa == pb == [] and [strip_positions(g) for g in a] == [strip_positions(g) for g in b]


def test_empty_file_has_no_games_and_no_findings(tmp_path):
    p = tmp_path / "empty.pitch"
    p.write_bytes(b"")
    assert parse_file(p) == ([], [])


def test_a_file_of_random_bytes_is_one_finding_not_a_traceback(tmp_path):
    p = tmp_path / "noise.pitch"
    p.write_bytes(random.Random(1).randbytes(200_000))
    games, problems = parse_file(p)
    assert games == [] and codes(problems) == [("E109", 1, 1)]


def test_random_text_never_raises():
    rng = random.Random(5)
    alphabet = "hand dealer bids 1. Ann:AS %\"[]:;,\n\t 0123456789 score total winner note misdeal ♠"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(400)))
        parse_text(HEAD + text)


def test_a_ten_megabyte_line_is_one_finding(tmp_path):
    p = tmp_path / "huge.pitch"
    p.write_bytes((HEAD + "hand 1\n" + "1. " + "AS " * 3_500_000 + "\nnote \"after\"\n").encode())
    games, problems = parse_file(p)
    assert games[0].hands[0].notes[0].text == "after"
    assert len(games[0].hands[0].tricks[0].plays) == 3_500_000
    assert problems == []
    p.write_bytes((HEAD + "hand 1\n" + "x" * 10_000_000 + "\nnote \"after\"\n").encode())
    games, problems = parse_file(p)
    assert codes(problems) == [("E102", 4, 1)] and len(problems[0].message) < 300
    assert games[0].hands[0].notes[0].text == "after"


def test_several_tricks_on_one_line_and_the_short_form():
    text = HEAD + "hand 1\ndealer Ann\nbids Bob 2, Cal pass, Dee pass, Ann pass\n1. AS 3S 9S KS 2. Bob:JS Cal:4S\n"
    games, problems = parse_text(text)
    t1, t2 = games[0].hands[0].tricks
    assert problems == [] and t1.short and not t2.short and t2.plays[1].player == "Cal"
    assert t2.column == 16


def test_comments_and_notes_with_percent_signs_survive_formatting():
    text = HEAD + '% before the hand\nhand 1  % first\ndealer Ann\nnote "50% luck"  % really\n'
    games, _ = parse_text(text)
    again, _ = parse_text(write_game(games[0]))
    assert strip_positions(games[0]) == strip_positions(again[0])
    assert '% before the hand' in write_game(games[0]) and 'note "50% luck"  % really' in write_game(games[0])


def test_every_sample_log_round_trips():
    files = sorted(SAMPLE_LOGS.glob("*.pitch"))
    assert files, "sample_logs/ has no .pitch files"
    for f in files:
        games, _ = parse_file(f)
        again, problems = parse_text(write_games(games), str(f))
        assert [strip_positions(g) for g in games] == [strip_positions(g) for g in again], f
        assert write_games(again) == write_games(games)


# --------------------------------------------------------------------------- property test

NAMES = ["Ann", "Bob", "Cal", "Dee", "Eve"]
text_chars = st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\r\n\x85")
comment = st.text(text_chars, max_size=20).map(str.rstrip)
remark = st.none() | comment
comments = st.lists(comment, max_size=2).map(tuple)
cards = st.lists(st.integers(0, 53), max_size=7).map(tuple)
card = st.integers(0, 53)
name = st.sampled_from(NAMES)


@st.composite
def hands(draw, number):
    h = dict(number=number, comments=draw(comments), remark=draw(remark))
    if draw(st.booleans()):
        h["dealer"] = Named(draw(name), comments=draw(comments), remark=draw(remark))
    if draw(st.booleans()):
        h["deal"] = Deal(tuple(Holding(n, draw(cards)) for n in draw(st.lists(name, min_size=1, max_size=4))),
                         remark=draw(remark))
    if draw(st.booleans()):
        h["widow"] = Widow(draw(cards))
    if draw(st.booleans()):
        words = st.sampled_from(["pass", "2", "3", "4", "10", "smudge", "moon", "sells", "keeps", "pitch", "pitch H"])
        h["bids"] = Bids(tuple(Bid(n, draw(words)) for n in draw(st.lists(name, min_size=1, max_size=5))))
    if draw(st.booleans()):
        h["trump"] = TrumpLine(draw(st.integers(0, 3)))
    h["exchanges"] = tuple(Exchange(k, Holding(n, c)) for k, n, c in draw(st.lists(
        st.tuples(st.sampled_from(["discard", "draw"]), name, cards), max_size=2)))
    h["revokes"] = tuple(RevokeCall(n, t) for n, t in draw(st.lists(
        st.tuples(name, st.none() | st.integers(1, 9)), max_size=2)))
    tricks = []
    for i in range(draw(st.integers(0, 6))):
        short = draw(st.booleans())
        plays = tuple(Play(None if short else draw(name), draw(card)) for _ in range(draw(st.integers(1, 5))))
        tricks.append(Trick(i + 1, plays, short, comments=draw(comments), remark=draw(remark)))
    h["tricks"] = tuple(tricks)
    for kind in ("score", "total"):
        if draw(st.booleans()):
            h[kind] = ScoreLine(kind, tuple(ScoreEntry(n, draw(st.integers(-30, 30)))
                                            for n in draw(st.lists(name, min_size=1, max_size=4))))
    h["notes"] = tuple(Note(t) for t in draw(st.lists(st.text(text_chars, max_size=15), max_size=2)))
    if draw(st.booleans()):
        h["misdeal"] = Marker("misdeal")
    return Hand(**h)


@st.composite
def games(draw):
    tags = [Tag("Rules", draw(st.sampled_from(["auction", "setback game=11", "partnership", "tenpoint52",
                                               "partnership players=6 pitching=on"]))),
            Tag("Players", " ".join(NAMES))]
    tags += [Tag(n, draw(st.text(text_chars, max_size=12)), comments=draw(comments), remark=draw(remark))
             for n in draw(st.lists(st.sampled_from(["Event", "Site", "Round", "Custom_tag"]), max_size=3, unique=True))]
    hs = tuple(draw(hands(i + 1)) for i in range(draw(st.integers(0, 3))))
    winner = Named(draw(name)) if draw(st.booleans()) else None
    return Game(tuple(tags), hs, winner, draw(comments))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(games(), min_size=1, max_size=3))
def test_parse_write_parse_gives_the_same_records(gs):
    # comment lines before a tag block belong to that game, so only the last game can end with comments
    gs = [g if i == len(gs) - 1 else Game(g.tags, g.hands, g.winner) for i, g in enumerate(gs)]
    text = write_games(gs)
    parsed, problems = parse_text(text)
    # cards outside a preset's deck and such are the engine's business; the notation itself is clean
    assert problems == []
    assert [strip_positions(g) for g in parsed] == [strip_positions(g) for g in gs]
    assert write_games(parsed) == text
