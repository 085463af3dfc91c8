-- macro: unit_stats
-- The league table: one row per player (per := 'player') or per side (per := 'team'), over
-- the games the filters pick. `auditor stats` is this macro; the views player_stats and
-- team_stats are it without filters.
--
--   SELECT * FROM unit_stats(per := 'team', only_preset := 'partnership', min_hands := 20);
--
-- Parameters (null: no filter): only_game (a game's name or game_id), only_event (Event tag),
-- only_preset (preset name), since / until (DATE, inclusive; games without a Date tag are left
-- out when either is given), min_hands (leave out units with fewer played hands).
--
-- Which hands count:
--   * the auction columns (bid_turns, bids, bid_rate) count every recorded auction, thrown-in
--     hands included: passing is a choice whatever happens next;
--   * every other hand column counts played hands only (status 'played': played out and
--     scored), the denominator `hands`; a misdeal, a thrown-in hand or a record too broken to
--     recompute has no contract to judge and no points to share;
--   * scoring_errors counts S601 and S602 findings in any hand.
-- Attribution (see player_hands): with per := 'player' in partnership presets, the auction,
-- contract and revoke columns are the player's own, while the point, score and set-back
-- columns are the team's (each partner is credited with the team's points in the hands
-- they played). With per := 'team', everything is the side's: a side outside partnership
-- presets is one player, so `--by team` on such games gives the player table.
-- Rates are percentages or counts per 100 hands, rounded to two places; null when the
-- denominator is 0.
--
-- column: unit                the player or side (renamed player or team in the views)
-- column: games               games the unit played in (picked by the filters)
-- column: games_finished      of those, games somebody won on the recomputed scores
-- column: games_won           games the unit's side won (recomputed winner)
-- column: win_pct             100 * games_won / games_finished
-- column: hands               played hands (status 'played') the unit took part in
-- column: bid_turns           turns to bid in recorded auctions (a side: its members' turns)
-- column: bids                turns on which a number or a top-bid word was bid (not pass)
-- column: bid_rate            100 * bids / bid_turns
-- column: auctions_won        played hands in which the unit won the auction (pitched with a contract)
-- column: avg_winning_bid     average contract over auctions_won
-- column: contracts_made      auctions won whose contract the side made
-- column: contracts_made_pct  100 * contracts_made / auctions_won
-- column: times_set           auctions won in which the side fell short and was set back
-- column: points_set_back     points the side lost to set-backs (failed contracts and revoke penalties) over played hands
-- column: smudge_attempts     auctions won at the rule set's named top bid (smudge; moon in setback)
-- column: smudges_made        of those, contracts made
-- column: high_per_100        100 * hands in which the side took High / hands
-- column: low_per_100         100 * hands in which the side got Low / hands
-- column: jack_per_100        100 * hands in which the side took the jack of trumps / hands
-- column: game_per_100        100 * hands in which the side won Game / hands
-- column: points_per_hand     points taken (High, Low, Jack, Game) per played hand, before contracts and penalties
-- column: score_per_hand      recomputed hand score per played hand (set-backs negative, sale points included)
-- column: revokes             played hands in which the unit revoked at least once (R501)
-- column: revokes_per_100     100 * revokes / hands
-- column: scoring_errors      S601 and S602 findings naming the side (the score keeper's mistakes on its entries)
-- column: settlement          settlement units won (+) or paid (-) over finished games of rule sets with a settlement (null: none)
CREATE MACRO unit_stats(per := 'player', only_game := NULL, only_event := NULL, only_preset := NULL,
                        since := NULL, until := NULL, min_hands := 0) AS TABLE
-- Each statistic is added up straight from the raw table that holds it, per unit, rather
-- than through player_hands: one pass over each table and joins against the small
-- game_players only, which is what lets this run over millions of hands. The definitions
-- are player_hands' (a test checks that the two agree).
WITH picked AS (
    SELECT game_id
    FROM games
    WHERE (only_game IS NULL OR game = only_game OR game_id = only_game)
      AND (only_event IS NULL OR event = only_event)
      AND (only_preset IS NULL OR preset = only_preset)
      AND (since IS NULL OR date >= since)
      AND (until IS NULL OR date <= until)
),
members AS (
    -- whom a player's or a side's numbers are credited to
    SELECT gp.*, CASE WHEN per = 'team' THEN gp.side ELSE gp.player END AS unit
    FROM game_players AS gp
    WHERE per IN ('player', 'team') AND gp.game_id IN (SELECT game_id FROM picked)
),
player_unit AS (SELECT game_id, player, side, top_bid, unit FROM members),
side_unit AS (SELECT DISTINCT game_id, side, unit FROM members),
game_stats AS (
    SELECT unit,
           count(*) AS games,
           count(*) FILTER (WHERE finished) AS games_finished,
           count(*) FILTER (WHERE won) AS games_won,
           sum(settlement) FILTER (WHERE settles) AS settlement
    FROM (SELECT DISTINCT game_id, unit, finished, won, settles, settlement FROM members)
    GROUP BY unit
),
bid_stats AS (
    -- every recorded auction, thrown-in hands included
    SELECT pu.unit,
           count(*) FILTER (WHERE b.word NOT IN ('sells', 'keeps')) AS bid_turns,
           count(b.value) AS bids
    FROM bids AS b
    JOIN player_unit AS pu ON pu.game_id = b.game_id AND pu.player = b.player
    GROUP BY pu.unit
),
side_stats AS (
    -- hand_scores has a row per side for played hands only
    SELECT su.unit,
           count(*) AS hands,
           count(*) FILTER (WHERE hs.high) AS high,
           count(*) FILTER (WHERE hs.low) AS low,
           count(*) FILTER (WHERE hs.jack) AS jack,
           count(*) FILTER (WHERE hs.game_point) AS game_point,
           sum(hs.points) AS points,
           sum(hs.score) AS score,
           sum(hs.set_back) AS points_set_back
    FROM hand_scores AS hs
    JOIN side_unit AS su ON su.game_id = hs.game_id AND su.side = hs.side
    GROUP BY su.unit
),
contract_stats AS (
    -- played hands with a contract, credited to the pitcher (or the pitcher's side)
    SELECT pu.unit,
           count(*) AS auctions_won,
           avg(h.contract) AS avg_winning_bid,
           count(*) FILTER (WHERE h.contract_made) AS contracts_made,
           -- set = the pitcher's side lost points for it (player_hands: set_back > 0). By the
           -- engine's rules that is a failed contract unless somebody revoked and the
           -- pitcher's side did not: read from hands.revokers, it needs no join with
           -- hand_scores (a test checks the two agree)
           count(*) FILTER (WHERE NOT h.contract_made
                            AND (len(h.revokers) = 0 OR list_contains(h.revokers, pu.side))) AS times_set,
           count(*) FILTER (WHERE h.contract = pu.top_bid) AS smudge_attempts,
           count(*) FILTER (WHERE h.contract = pu.top_bid AND h.contract_made) AS smudges_made
    FROM hands AS h
    JOIN player_unit AS pu ON pu.game_id = h.game_id AND pu.player = h.pitcher
    WHERE h.status = 'played' AND h.contract > 0
    GROUP BY pu.unit
),
revoke_stats AS (
    -- played hands with at least one revoke by the unit (several in a hand count once);
    -- the SEMI JOIN keeps DuckDB from joining every hand to its players before the few revokes
    SELECT pu.unit, count(DISTINCT (r.game_id, r.hand)) AS revokes
    FROM (SELECT DISTINCT p.game_id, p.hand, p.player
          FROM plays AS p
          SEMI JOIN (SELECT game_id, hand FROM hands WHERE status = 'played') AS h
              ON h.game_id = p.game_id AND h.hand = p.hand
          WHERE p.revoke) AS r
    JOIN player_unit AS pu ON pu.game_id = r.game_id AND pu.player = r.player
    GROUP BY pu.unit
),
error_stats AS (
    SELECT su.unit, count(*) AS scoring_errors
    FROM findings AS f
    JOIN side_unit AS su ON su.game_id = f.game_id AND su.side = f.player
    WHERE f.code IN ('S601', 'S602') AND f.hand IS NOT NULL
    GROUP BY su.unit
)
SELECT g.unit,
       g.games,
       g.games_finished,
       g.games_won,
       round(100 * g.games_won / nullif(g.games_finished, 0)::DOUBLE, 2) AS win_pct,
       coalesce(s.hands, 0) AS hands,
       coalesce(b.bid_turns, 0) AS bid_turns,
       coalesce(b.bids, 0) AS bids,
       round(100 * b.bids / nullif(b.bid_turns, 0)::DOUBLE, 2) AS bid_rate,
       coalesce(c.auctions_won, 0) AS auctions_won,
       round(c.avg_winning_bid, 2) AS avg_winning_bid,
       coalesce(c.contracts_made, 0) AS contracts_made,
       round(100 * c.contracts_made / nullif(c.auctions_won, 0)::DOUBLE, 2) AS contracts_made_pct,
       coalesce(c.times_set, 0) AS times_set,
       CAST(coalesce(s.points_set_back, 0) AS BIGINT) AS points_set_back,
       coalesce(c.smudge_attempts, 0) AS smudge_attempts,
       coalesce(c.smudges_made, 0) AS smudges_made,
       round(100 * s.high / nullif(s.hands, 0)::DOUBLE, 2) AS high_per_100,
       round(100 * s.low / nullif(s.hands, 0)::DOUBLE, 2) AS low_per_100,
       round(100 * s.jack / nullif(s.hands, 0)::DOUBLE, 2) AS jack_per_100,
       round(100 * s.game_point / nullif(s.hands, 0)::DOUBLE, 2) AS game_per_100,
       round(s.points / nullif(s.hands, 0)::DOUBLE, 2) AS points_per_hand,
       round(s.score / nullif(s.hands, 0)::DOUBLE, 2) AS score_per_hand,
       coalesce(r.revokes, 0) AS revokes,
       round(100 * coalesce(r.revokes, 0) / nullif(s.hands, 0)::DOUBLE, 2) AS revokes_per_100,
       coalesce(e.scoring_errors, 0) AS scoring_errors,
       CAST(g.settlement AS BIGINT) AS settlement
FROM game_stats AS g
LEFT JOIN side_stats AS s ON s.unit = g.unit
LEFT JOIN bid_stats AS b ON b.unit = g.unit
LEFT JOIN contract_stats AS c ON c.unit = g.unit
LEFT JOIN revoke_stats AS r ON r.unit = g.unit
LEFT JOIN error_stats AS e ON e.unit = g.unit
WHERE coalesce(s.hands, 0) >= min_hands
ORDER BY g.games_won DESC, win_pct DESC NULLS LAST, points_per_hand DESC NULLS LAST, g.unit;

-- view: player_stats
-- unit_stats per player over the whole dataset, unfiltered.
--
-- column: player  the player
-- columns: as unit_stats
CREATE VIEW player_stats AS SELECT * RENAME (unit AS player) FROM unit_stats(per := 'player');

-- view: team_stats
-- unit_stats per side (the team in partnership presets, else the player) over the whole
-- dataset, unfiltered.
--
-- column: team  the side: a team in partnership presets, else a player
-- columns: as unit_stats
CREATE VIEW team_stats AS SELECT * RENAME (unit AS team) FROM unit_stats(per := 'team');
