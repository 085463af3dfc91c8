-- view: game_player_counters_live
-- The counters behind unit_stats, one row per player per game, computed from the raw tables
-- now. The dataset table game_player_counters holds the same rows, computed by this view
-- over each batch at import (auditor.warehouse.summarize_batch); unit_stats reads that table
-- when every batch has it, else this view, and gives the same numbers either way.
--
-- Every counter is additive, so statistics over any set of games are sums of these columns and
-- rates are ratios of the sums. The player columns (bid_turns .. revokes) are the player's own;
-- the side columns (finished, won, settlement, hands .. scoring_errors) are the side's, the same
-- on each member's row: per player each member is credited with them, per team they are
-- counted on the side_lead row only. The definitions are unit_stats': see 40_stats.sql.
--
-- column: game_id          the game's key (see games)
-- column: game             the game's name (games.game)
-- column: event            Event tag
-- column: date             Date tag as a date (null when absent or partial)
-- column: preset           the preset the game was audited under
-- column: player           the player
-- column: side             who scores for the player: the team in partnership presets, else the player
-- column: side_lead        the side's first member in seat order: the one row per side per game whose side columns count in team totals
-- column: finished         side: somebody went out on the recomputed scores
-- column: won              side: the player's side won the game (recomputed winner)
-- column: settlement       side: settlement units won (+) or paid (-); null if the rule set has no settlement or the game is unfinished
-- column: bid_turns        turns the player had to bid in recorded auctions (every word but sells and keeps), thrown-in hands included
-- column: bids             of those, turns on which the player bid a number or a top-bid word (not pass)
-- column: auctions_won     played hands in which the player won the auction (pitched with a contract)
-- column: contract_sum     sum of the contracts over auctions_won
-- column: contracts_made   auctions won whose contract the side made
-- column: times_set        auctions won in which the side fell short and was set back (not when only somebody else revoked)
-- column: smudge_attempts  auctions won at the rule set's top bid when it has a name or a special rule (smudge; moon in setback and tenpoint52)
-- column: smudges_made     of those, contracts made
-- column: moon_attempts    auctions won at a moon: the top bid under smudge=moon (tenpoint52); also counted in smudge_attempts
-- column: moons_made       of those, contracts made
-- column: revokes          played hands in which the player revoked at least once (R501)
-- column: hands            side: played hands scored for the side (its hand_scores rows)
-- column: high             side: played hands in which the side took High
-- column: low              side: played hands in which the side got Low
-- column: jack             side: played hands in which the side took the jack of trumps
-- column: game_point       side: played hands in which the side won Game on count
-- column: ten_point_hands  side: played hands of a ten-point rule set (those whose hand_scores.high_joker is known; none in batches of schema version 1)
-- column: off_jack_hands   side: played hands of a rule set with the off-jack or the jick (those whose hand_scores.off_jack is known)
-- column: off_jack         side: played hands in which the side took the off-jack (ten-point) or the jick (smear)
-- column: high_joker       side: played hands in which the side took the high joker
-- column: low_joker        side: played hands in which the side took the low joker
-- column: trey_hands       side: played hands of a rule set with trey=on (those whose hand_scores.trey is known)
-- column: trey             side: played hands in which the side took the three of trumps
-- column: points           side: points taken (High, Low, Jack, Game, and the ten-point points or the Jick) over played hands
-- column: points_in_play   side: what all the points of its played hands were worth together (4, 7 or 10 a hand)
-- column: score            side: sum of the recomputed hand scores (null: no hand had one)
-- column: set_back         side: points lost to failed contracts and revoke penalties over played hands
-- column: side_revokes     side: played hands in which some member of the side revoked (each hand once)
-- column: scoring_errors   side: S601 and S602 findings naming the side, in any hand
CREATE VIEW game_player_counters_live AS
-- game_players is read three times below: computed once (it unnests and parses every game's
-- players and teams)
WITH g AS MATERIALIZED (
    SELECT * FROM game_players
),
gp AS (
    SELECT game_id, player, side, top_bid, moon FROM g
),
said AS (
    -- every recorded auction, thrown-in hands included
    SELECT game_id, player,
           count(*) FILTER (WHERE word NOT IN ('sells', 'keeps')) AS bid_turns,
           count(value) AS bids
    FROM bids
    GROUP BY game_id, player
),
pitched AS (
    -- played hands with a contract, credited to the pitcher
    SELECT gp.game_id, gp.player,
           count(*) AS auctions_won,
           sum(h.contract) AS contract_sum,
           count(*) FILTER (WHERE h.contract_made) AS contracts_made,
           -- set = the pitcher's side lost points for it (player_hands: set_back > 0). By the
           -- engine's rules that is a failed contract unless somebody revoked and the
           -- pitcher's side did not: read from hands.revokers, it needs no join with
           -- hand_scores (a test checks the two agree)
           count(*) FILTER (WHERE NOT h.contract_made
                            AND (len(h.revokers) = 0 OR list_contains(h.revokers, gp.side))) AS times_set,
           count(*) FILTER (WHERE h.contract = gp.top_bid) AS smudge_attempts,
           count(*) FILTER (WHERE h.contract = gp.top_bid AND h.contract_made) AS smudges_made,
           -- from the rule set, not hands.moon, so that batches written before that column count too
           count(*) FILTER (WHERE h.contract = gp.top_bid AND gp.moon) AS moon_attempts,
           count(*) FILTER (WHERE h.contract = gp.top_bid AND gp.moon AND h.contract_made) AS moons_made
    FROM hands AS h
    JOIN gp ON gp.game_id = h.game_id AND gp.player = h.pitcher
    WHERE h.status = 'played' AND h.contract > 0
    GROUP BY gp.game_id, gp.player
),
revoked AS (
    -- played hands with a revoke, once per player and hand; the SEMI JOIN keeps DuckDB from
    -- joining every hand to the plays before the filter leaves the few revokes
    SELECT DISTINCT p.game_id, p.hand, p.player
    FROM plays AS p
    SEMI JOIN (SELECT game_id, hand FROM hands WHERE status = 'played') AS h
        ON h.game_id = p.game_id AND h.hand = p.hand
    WHERE p.revoke
),
player_revokes AS (
    SELECT game_id, player, count(*) AS revokes FROM revoked GROUP BY game_id, player
),
side_revokes AS (
    -- a hand in which two partners revoked is one hand for the side
    SELECT gp.game_id, gp.side, count(DISTINCT r.hand) AS side_revokes
    FROM revoked AS r
    JOIN gp ON gp.game_id = r.game_id AND gp.player = r.player
    GROUP BY gp.game_id, gp.side
),
scored AS (
    -- hand_scores has a row per side for played hands only
    SELECT game_id, side,
           count(*) AS hands,
           count(*) FILTER (WHERE high) AS high,
           count(*) FILTER (WHERE low) AS low,
           count(*) FILTER (WHERE jack) AS jack,
           count(*) FILTER (WHERE game_point) AS game_point,
           -- the ten-point flags are null where the rule set has no such point (and in batches
           -- written before they were recorded): their hands are the denominators
           count(high_joker) AS ten_point_hands,
           count(off_jack) AS off_jack_hands,
           count(*) FILTER (WHERE off_jack) AS off_jack,
           count(*) FILTER (WHERE high_joker) AS high_joker,
           count(*) FILTER (WHERE low_joker) AS low_joker,
           count(trey) AS trey_hands,
           count(*) FILTER (WHERE trey) AS trey,
           sum(points) AS points,
           sum(score) AS score,
           sum(set_back) AS set_back
    FROM hand_scores
    GROUP BY game_id, side
),
errors AS (
    SELECT game_id, player AS side, count(*) AS scoring_errors
    FROM findings
    WHERE code IN ('S601', 'S602') AND hand IS NOT NULL AND game_id IS NOT NULL AND player IS NOT NULL
    GROUP BY game_id, player
)
SELECT g.game_id, g.game, g.event, g.date, g.preset, g.player, g.side,
       g.seat = min(g.seat) OVER (PARTITION BY g.game_id, g.side) AS side_lead,
       g.finished, g.won,
       CAST(g.settlement AS INTEGER) AS settlement,
       CAST(coalesce(s.bid_turns, 0) AS INTEGER) AS bid_turns,
       CAST(coalesce(s.bids, 0) AS INTEGER) AS bids,
       CAST(coalesce(c.auctions_won, 0) AS INTEGER) AS auctions_won,
       CAST(coalesce(c.contract_sum, 0) AS INTEGER) AS contract_sum,
       CAST(coalesce(c.contracts_made, 0) AS INTEGER) AS contracts_made,
       CAST(coalesce(c.times_set, 0) AS INTEGER) AS times_set,
       CAST(coalesce(c.smudge_attempts, 0) AS INTEGER) AS smudge_attempts,
       CAST(coalesce(c.smudges_made, 0) AS INTEGER) AS smudges_made,
       CAST(coalesce(c.moon_attempts, 0) AS INTEGER) AS moon_attempts,
       CAST(coalesce(c.moons_made, 0) AS INTEGER) AS moons_made,
       CAST(coalesce(pr.revokes, 0) AS INTEGER) AS revokes,
       CAST(coalesce(sc.hands, 0) AS INTEGER) AS hands,
       CAST(coalesce(sc.high, 0) AS INTEGER) AS high,
       CAST(coalesce(sc.low, 0) AS INTEGER) AS low,
       CAST(coalesce(sc.jack, 0) AS INTEGER) AS jack,
       CAST(coalesce(sc.game_point, 0) AS INTEGER) AS game_point,
       CAST(coalesce(sc.ten_point_hands, 0) AS INTEGER) AS ten_point_hands,
       CAST(coalesce(sc.off_jack_hands, 0) AS INTEGER) AS off_jack_hands,
       CAST(coalesce(sc.off_jack, 0) AS INTEGER) AS off_jack,
       CAST(coalesce(sc.high_joker, 0) AS INTEGER) AS high_joker,
       CAST(coalesce(sc.low_joker, 0) AS INTEGER) AS low_joker,
       CAST(coalesce(sc.trey_hands, 0) AS INTEGER) AS trey_hands,
       CAST(coalesce(sc.trey, 0) AS INTEGER) AS trey,
       CAST(coalesce(sc.points, 0) AS INTEGER) AS points,
       -- the rule set's points in play, a constant per game, for every played hand of the side
       CAST(coalesce(sc.hands, 0) * coalesce(g.points_in_play, 0) AS INTEGER) AS points_in_play,
       -- null, not 0, when no hand had a recomputed score: score_per_hand is then null too
       CAST(sc.score AS INTEGER) AS score,
       CAST(coalesce(sc.set_back, 0) AS INTEGER) AS set_back,
       CAST(coalesce(sr.side_revokes, 0) AS INTEGER) AS side_revokes,
       CAST(coalesce(e.scoring_errors, 0) AS INTEGER) AS scoring_errors
FROM g
LEFT JOIN said AS s ON s.game_id = g.game_id AND s.player = g.player
LEFT JOIN pitched AS c ON c.game_id = g.game_id AND c.player = g.player
LEFT JOIN player_revokes AS pr ON pr.game_id = g.game_id AND pr.player = g.player
LEFT JOIN scored AS sc ON sc.game_id = g.game_id AND sc.side = g.side
LEFT JOIN side_revokes AS sr ON sr.game_id = g.game_id AND sr.side = g.side
LEFT JOIN errors AS e ON e.game_id = g.game_id AND e.side = g.side;
