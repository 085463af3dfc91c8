"""Arrow schemas and the rows an audited game contributes."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from auditor.cards import CARD_NAMES, SUITS
from auditor.dataset import import_paths, read_table, table_files
from auditor.notation import parse_text
from auditor.rules import parse_rules
from auditor.simulate import simulate
from auditor.tables import SCHEMAS, TABLES

from .conftest import ROOT


def test_every_column_is_documented_and_versioned():
    for name, schema in SCHEMAS.items():
        assert schema.metadata[b"schema_version"] == b"7"
        for f in schema:
            assert f.metadata[b"doc"], (name, f.name)


def test_import_writes_every_table_with_its_schema(tmp_path, example_file):
    stats = import_paths([str(example_file)], tmp_path / "ds")
    assert (stats.games_new, stats.hands) == (1, 1)
    for t in TABLES:
        for f in table_files(tmp_path / "ds", t):
            assert pq.read_schema(f).remove_metadata() == SCHEMAS[t].remove_metadata()
    plays = read_table(tmp_path / "ds", "plays").to_pylist()
    assert len(plays) == 24
    first = plays[0]
    assert (first["trick"], first["position"], first["player"], first["card"], first["rank"], first["suit"],
            first["trump"], first["trick_winner"]) == (1, 1, "Ann", "AS", "A", "S", True, "Ann")
    findings = read_table(tmp_path / "ds", "findings").to_pylist()
    assert [(f["code"], f["player"], f["line"]) for f in findings] == [("S601", "Cal", 15), ("S601", "Dee", 15)]
    scores = {r["key"]: r["value"] for r in read_table(tmp_path / "ds", "recorded_scores").to_pylist()
              if r["kind"] == "score"}
    assert scores == {"Ann": 3, "Bob": 0, "Cal": 1, "Dee": 0}
    recomputed = {r["side"]: (r["score"], r["points"], r["count"]) for r in
                  read_table(tmp_path / "ds", "hand_scores").to_pylist()}
    assert recomputed == {"Ann": (3, 3, 18), "Bob": (0, 0, 6), "Cal": (0, 0, 16), "Dee": (1, 1, 0)}


def test_empty_tables_read_back_with_their_schema(tmp_path):
    t = read_table(tmp_path / "nothing", "plays")
    assert t.num_rows == 0 and t.schema.names == SCHEMAS["plays"].names


# --------------------------------------------------------------------------- ten-point games, recounted

TENPOINT = ROOT / "tests" / "fixtures" / "tenpoint"
SAME_COLOUR = {"S": "C", "C": "S", "H": "D", "D": "H"}
RANK_ORDER = "23456789TJQKA"
GAME_COUNT = {"A": 4, "K": 3, "Q": 2, "J": 1, "T": 10}  # the off-jack counts as a jack; jokers count 0


def tenpoint_logs(folder: Path) -> list[Path]:
    """Simulated ten-point games (both presets, trey on and off) and the edited fixture, as files."""
    out = []
    for preset, games, seed in (("tenpoint", 3, 1), ("tenpoint52", 2, 3), ("tenpoint trey=off", 1, 2)):
        p = folder / f"{preset.replace(' ', '_').replace('=', '_')}.pitch"
        p.write_text(simulate(preset, games=games, seed=seed)[0], encoding="utf-8")
        out.append(p)
    return out + [TENPOINT / "variations.pitch"]


def trump_order(trump: str, deck_kind: str) -> list[str]:
    """The trumps, highest first, as card tokens: the jick, or the off-jack and jokers, below the jack."""
    plain = [r + trump for r in "AKQJT98765432"]
    extra = {"plain": [], "jick": ["J" + SAME_COLOUR[trump]], "jokers": ["J" + SAME_COLOUR[trump], "JKH", "JKL"]}
    return plain[:4] + extra[deck_kind] + plain[4:]


def trick_winner(cards: list[str], trumps: list[str]) -> int:
    """Position of the card that takes the trick: the highest trump, else the highest of the suit led."""
    played = [c for c in cards if c in trumps]
    if played:
        return cards.index(min(played, key=trumps.index))
    led = cards[0][-1]
    return cards.index(max((c for c in cards if c[-1] == led and c not in trumps), key=lambda c: RANK_ORDER.index(c[0])))


def bid_number(word: str, rules) -> int:
    if word.isdigit():
        return int(word)
    if word in rules.top_bid_words:
        return rules.top_bid
    return 4 if word.split()[0] == "pitch" else 0


def recount_hand(game, hand, rules) -> dict:
    """One played hand replayed from its record alone: who took each point, the points each side made."""
    seats = list(game.players)
    team_of = {p: t for t, ps in game.teams.items() for p in ps}
    side = lambda p: team_of.get(p, p)  # noqa: E731
    first = hand.tricks[0].plays[0].card
    trump = SUITS[hand.trump.suit] if hand.trump else CARD_NAMES[first][-1]
    trumps = trump_order(trump, rules.deck_kind)
    # the pitcher leads first: the highest bid, the first to make it (no steals in the ten-point presets)
    words = [(b.player, bid_number(b.word, rules)) for b in hand.bids.bids]
    leader = max(words, key=lambda pb: pb[1])[0]
    played_by, taken_by = {}, {}
    for t in sorted(hand.tricks, key=lambda t: t.number):
        cards = [CARD_NAMES[p.card] for p in t.plays]
        if all(p.player for p in t.plays):
            order = [p.player for p in t.plays]
        else:  # the short form: everybody, clockwise from the leader (no drop-outs outside trumps_only)
            assert not rules.trumps_only
            i = seats.index(leader)
            order = [seats[(i + k) % len(seats)] for k in range(len(cards))]
        winner = order[trick_winner(cards, trumps)]
        for p, c in zip(order, cards):
            played_by[c], taken_by[c] = p, winner
        leader = winner  # the long form names the next leader itself
    took = lambda card: side(taken_by[card]) if card in taken_by else None  # noqa: E731
    in_play = [c for c in trumps if c in played_by]
    points = {"high": side(played_by[in_play[0]]),
              "low": side(played_by[in_play[-1]]) if rules.low == "holder" else took(in_play[-1]),
              "jack": took("J" + trump)}
    if rules.ten_point:
        points.update(off_jack=took("J" + SAME_COLOUR[trump]), high_joker=took("JKH"), low_joker=took("JKL"))
    elif rules.jick:  # smear's jick: the same card as the off-jack, recorded in the same column
        points["off_jack"] = took("J" + SAME_COLOUR[trump])
    if rules.trey:
        points["trey"] = took("3" + trump)
    count: dict[str, int] = {}
    for c, p in taken_by.items():
        if c not in ("JKH", "JKL"):
            count[side(p)] = count.get(side(p), 0) + GAME_COUNT.get(c[0], 0)
    best = max(count.values())
    points["game_point"] = next(s for s, v in count.items() if v == best) if list(count.values()).count(best) == 1 \
        else None
    made = {side(p): 0 for p in seats}
    for name, owner in points.items():
        if owner is not None:
            made[owner] += 3 if name == "trey" else 1
    words = {b.word for b in hand.bids.bids}
    return {"trump": trump, "trumps": set(trumps), "points": points, "made": made,
            "moon": rules.smudge == "moon" and bool(words & {"moon", str(rules.top_bid)})}


def recount_logs(paths) -> dict[tuple[str, int], tuple]:
    """(game, hand) -> (game, hand record, rules, recount) for every hand of the logs, all played."""
    out = {}
    for p in paths:
        games, problems = parse_text(Path(p).read_text(encoding="utf-8"), str(p))
        assert not problems
        for game in games:
            rules = parse_rules(game.tag("Rules"))
            for hand in game.hands:
                out[game.name, hand.number] = (game, hand, rules,
                                               recount_hand(game, hand, rules) if hand.tricks else None)
    return out


@pytest.fixture(scope="module")
def tenpoint_ds(tmp_path_factory) -> tuple[Path, dict]:
    logs = tenpoint_logs(tmp_path_factory.mktemp("tenpoint-logs"))
    out = tmp_path_factory.mktemp("tenpoint") / "ds"
    stats = import_paths([str(p) for p in logs], out)
    assert stats.findings == []  # every game audits clean: every hand is played and scored
    return out, recount_logs(logs)


def rows_by_hand(root: Path, table: str) -> dict[tuple, list[dict]]:
    names = {g["game_id"]: g["game"] for g in read_table(root, "games").to_pylist()}
    out: dict[tuple, list[dict]] = {}
    for r in read_table(root, table).to_pylist():
        out.setdefault((names[r["game_id"]], r["hand"]), []).append(r)
    return out


def test_ten_point_hands_match_a_recount_of_the_records(tenpoint_ds):
    root, recounted = tenpoint_ds
    hands = {k: v[0] for k, v in rows_by_hand(root, "hands").items()}
    assert set(hands) == set(recounted)
    seen = {"off_jack": 0, "high_joker": 0, "low_joker": 0, "trey": 0, "not in play": 0, "widow": 0}
    for key, (game, hand, rules, rc) in recounted.items():
        row = hands[key]
        assert row["status"] == "played" and row["trump"] == rc["trump"], key
        assert row["points_in_play"] == (10 if rules.trey else 7) if rules.ten_point else 4, key
        for col in ("off_jack", "high_joker", "low_joker", "trey"):
            assert row[col] == rc["points"].get(col), (key, col)  # null: not in play, or not in the rule set
            seen[col] += row[col] is not None
            seen["not in play"] += col in rc["points"] and row[col] is None
        for col in ("high", "low", "jack", "game_point"):
            assert row[col] == rc["points"][col], (key, col)
        assert row["moon"] == rc["moon"] and row["smudge"] >= row["moon"], key
        assert row["widow"] == ([CARD_NAMES[c] for c in hand.widow.cards] if hand.widow else None), key
        seen["widow"] += row["widow"] is not None
    # every new column was really exercised, nulls included
    assert all(seen.values()), seen


def test_ten_point_hand_scores_match_a_recount_of_the_records(tenpoint_ds):
    root, recounted = tenpoint_ds
    scores = rows_by_hand(root, "hand_scores")
    for key, (game, hand, rules, rc) in recounted.items():
        rows = {r["side"]: r for r in scores[key]}
        assert set(rows) == set(rc["made"]), key
        for s, r in rows.items():
            assert r["points"] == rc["made"][s], (key, s)
            for col in ("off_jack", "high_joker", "low_joker"):
                assert r[col] == (rc["points"][col] == s if rules.ten_point else None), (key, s, col)
            assert r["trey"] == (rc["points"]["trey"] == s if rules.trey else None), (key, s)
    assert max(r["points"] for rs in scores.values() for r in rs) == 10  # the made moon


def test_plays_mark_the_off_jack_and_jokers_as_trumps(tenpoint_ds):
    root, recounted = tenpoint_ds
    plays = rows_by_hand(root, "plays")
    extra = 0
    for key, (game, hand, rules, rc) in recounted.items():
        for r in plays[key]:
            assert r["trump"] == (r["card"] in rc["trumps"]), (key, r["card"])
            if r["card"] in ("JKH", "JKL"):
                assert (r["rank"], r["suit"], r["trump"]) == ("JK", None, rules.ten_point)
                extra += 1
            elif r["card"] == "J" + SAME_COLOUR[rc["trump"]] and rules.ten_point:
                assert r["suit"] == r["card"][-1] and r["trump"]  # the off-jack keeps its printed suit
                extra += 1
    assert extra


def test_exchanges_store_every_discard_and_draw(tenpoint_ds):
    root, recounted = tenpoint_ds
    rows = rows_by_hand(root, "exchanges")
    total = 0
    for key, (game, hand, rules, rc) in recounted.items():
        expected = [(i + 1, x.kind, x.holding.player, [CARD_NAMES[c] for c in x.holding.cards], x.line)
                    for i, x in enumerate(hand.exchanges)]
        got = sorted((r["position"], r["kind"], r["player"], r["cards"], r["line"]) for r in rows.get(key, []))
        assert got == expected, key
        total += len(expected)
    assert total and {r["kind"] for rs in rows.values() for r in rs} == {"discard", "draw"}


def test_moons_pitches_and_takeovers(tenpoint_ds):
    root, recounted = tenpoint_ds
    hands = {k: v[0] for k, v in rows_by_hand(root, "hands").items()}
    # tests/fixtures/tenpoint/variations.pitch: the two moons and the one takeover
    assert sorted(k for k, h in hands.items() if h["moon"]) == [("moon-failed", 2), ("moon-made", 12)]
    assert hands["moon-made", 12]["contract_made"] and hands["moon-failed", 2]["contract_made"] is False
    assert sorted(k for k, h in hands.items() if h["takeover"]) == [("pitching", 3)]
    assert hands["pitching", 3]["pitcher"] == "Cal" and hands["pitching", 3]["contract"] == 4
    bids = rows_by_hand(root, "bids")
    got = [(r["player"], r["word"], r["value"]) for k in (("pitching", 1), ("pitching", 3)) for r in
           sorted(bids[k], key=lambda r: r["position"]) if r["word"] != "pass"]
    assert got == [("Dee", "pitch H", 4), ("Dee", "pitch", 4), ("Cal", "pitch D", 4)]
    (moon,) = [r for r in bids["moon-made", 12] if r["word"] == "moon"]
    assert moon["value"] == 10


# --------------------------------------------------------------------------- smear, recounted


def test_smear_hands_match_a_recount_of_the_records(tmp_path):
    """The jick in the dataset: a trump in `plays` (keeping its printed suit), the Jick point in the
    `off_jack` columns, five points in play, the all-pass hands not played, all as recounted."""
    log = tmp_path / "smear.pitch"
    log.write_text(simulate("smear", games=4, seed=2)[0], encoding="utf-8")  # seed 2: one all-pass
    root = tmp_path / "ds"
    assert import_paths([str(log)], root).findings == []
    recounted = recount_logs([log])
    hands, scores, plays = (rows_by_hand(root, t) for t in ("hands", "hand_scores", "plays"))
    seen = {"jick taken": 0, "jick not in play": 0, "jick played": 0, "all passed": 0}
    for key, (game, hand, rules, rc) in recounted.items():
        (row,) = hands[key]
        if rc is None:  # everybody passed: not played, the dealer's side set back 2
            assert row["status"] == "thrown-in" and key not in scores, key
            dealer_side = next(t for t, ps in game.teams.items() if hand.dealer.name in ps)
            assert {e.key: e.value for e in hand.score.entries} == {t: -2 if t == dealer_side else 0
                                                                     for t in game.teams}, key
            seen["all passed"] += 1
            continue
        assert row["points_in_play"] == 5 and row["off_jack"] == rc["points"]["off_jack"], key
        assert row["high_joker"] is None and row["trey"] is None, key
        seen["jick taken" if rc["points"]["off_jack"] else "jick not in play"] += 1
        for r in scores[key]:
            assert r["points"] == rc["made"][r["side"]], key
            assert r["off_jack"] == (rc["points"]["off_jack"] == r["side"]), key
        jick = "J" + SAME_COLOUR[rc["trump"]]
        for r in plays[key]:
            assert r["trump"] == (r["card"] in rc["trumps"]), (key, r["card"])
            if r["card"] == jick:
                assert r["suit"] == jick[-1] and r["trump"]  # a trump that keeps its printed suit
                seen["jick played"] += 1
    assert all(seen.values()), seen
