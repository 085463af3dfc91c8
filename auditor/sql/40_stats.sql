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
WITH hand_rows AS (
    SELECT player AS unit, game_id, game, event, date, preset, status,
           CAST(bid_turn AS BIGINT) AS bid_turns, CAST(bid IS NOT NULL AS BIGINT) AS bids,
           won_auction, contract, contract_made, was_set, top_bid,
           high, low, jack, game_point, points, score, set_back, revoked, scoring_errors
    FROM player_hands
    WHERE per = 'player'
    UNION ALL
    SELECT side AS unit, game_id, game, event, date, preset, status,
           bid_turns, bids,
           won_auction, contract, contract_made, was_set, top_bid,
           high, low, jack, game_point, points, score, set_back, revoked, scoring_errors
    FROM side_hands
    WHERE per = 'team'
),
game_rows AS (
    SELECT player AS unit, game_id, game, event, date, preset, finished, won, settles, settlement
    FROM game_players
    WHERE per = 'player'
    UNION ALL
    SELECT DISTINCT side AS unit, game_id, game, event, date, preset, finished, won, settles, settlement
    FROM game_players
    WHERE per = 'team'
),
hand_stats AS (
    SELECT unit,
           count(*) FILTER (WHERE status = 'played') AS hands,
           sum(bid_turns) AS bid_turns,
           sum(bids) AS bids,
           count(*) FILTER (WHERE status = 'played' AND won_auction) AS auctions_won,
           avg(contract) FILTER (WHERE status = 'played' AND won_auction) AS avg_winning_bid,
           -- contract_made and was_set are only ever true in played hands
           count(*) FILTER (WHERE contract_made) AS contracts_made,
           count(*) FILTER (WHERE was_set) AS times_set,
           coalesce(sum(set_back) FILTER (WHERE status = 'played'), 0) AS points_set_back,
           count(*) FILTER (WHERE status = 'played' AND top_bid) AS smudge_attempts,
           count(*) FILTER (WHERE status = 'played' AND top_bid AND contract_made) AS smudges_made,
           count(*) FILTER (WHERE status = 'played' AND high) AS high,
           count(*) FILTER (WHERE status = 'played' AND low) AS low,
           count(*) FILTER (WHERE status = 'played' AND jack) AS jack,
           count(*) FILTER (WHERE status = 'played' AND game_point) AS game_point,
           sum(points) FILTER (WHERE status = 'played') AS points,
           sum(score) FILTER (WHERE status = 'played') AS score,
           count(*) FILTER (WHERE status = 'played' AND revoked) AS revokes,
           sum(scoring_errors) AS scoring_errors
    FROM hand_rows
    WHERE (only_game IS NULL OR game = only_game OR game_id = only_game)
      AND (only_event IS NULL OR event = only_event)
      AND (only_preset IS NULL OR preset = only_preset)
      AND (since IS NULL OR date >= since)
      AND (until IS NULL OR date <= until)
    GROUP BY unit
),
game_stats AS (
    SELECT unit,
           count(DISTINCT game_id) AS games,
           count(DISTINCT game_id) FILTER (WHERE finished) AS games_finished,
           count(DISTINCT game_id) FILTER (WHERE won) AS games_won,
           sum(settlement) FILTER (WHERE settles) AS settlement
    FROM game_rows
    WHERE (only_game IS NULL OR game = only_game OR game_id = only_game)
      AND (only_event IS NULL OR event = only_event)
      AND (only_preset IS NULL OR preset = only_preset)
      AND (since IS NULL OR date >= since)
      AND (until IS NULL OR date <= until)
    GROUP BY unit
)
SELECT g.unit,
       g.games,
       g.games_finished,
       g.games_won,
       round(100 * g.games_won / nullif(g.games_finished, 0)::DOUBLE, 2) AS win_pct,
       coalesce(h.hands, 0) AS hands,
       CAST(coalesce(h.bid_turns, 0) AS BIGINT) AS bid_turns,
       CAST(coalesce(h.bids, 0) AS BIGINT) AS bids,
       round(100 * h.bids / nullif(h.bid_turns, 0)::DOUBLE, 2) AS bid_rate,
       coalesce(h.auctions_won, 0) AS auctions_won,
       round(h.avg_winning_bid, 2) AS avg_winning_bid,
       coalesce(h.contracts_made, 0) AS contracts_made,
       round(100 * h.contracts_made / nullif(h.auctions_won, 0)::DOUBLE, 2) AS contracts_made_pct,
       coalesce(h.times_set, 0) AS times_set,
       CAST(coalesce(h.points_set_back, 0) AS BIGINT) AS points_set_back,
       coalesce(h.smudge_attempts, 0) AS smudge_attempts,
       coalesce(h.smudges_made, 0) AS smudges_made,
       round(100 * h.high / nullif(h.hands, 0)::DOUBLE, 2) AS high_per_100,
       round(100 * h.low / nullif(h.hands, 0)::DOUBLE, 2) AS low_per_100,
       round(100 * h.jack / nullif(h.hands, 0)::DOUBLE, 2) AS jack_per_100,
       round(100 * h.game_point / nullif(h.hands, 0)::DOUBLE, 2) AS game_per_100,
       round(h.points / nullif(h.hands, 0)::DOUBLE, 2) AS points_per_hand,
       round(h.score / nullif(h.hands, 0)::DOUBLE, 2) AS score_per_hand,
       coalesce(h.revokes, 0) AS revokes,
       round(100 * h.revokes / nullif(h.hands, 0)::DOUBLE, 2) AS revokes_per_100,
       CAST(coalesce(h.scoring_errors, 0) AS BIGINT) AS scoring_errors,
       CAST(g.settlement AS BIGINT) AS settlement
FROM game_stats AS g
LEFT JOIN hand_stats AS h ON h.unit = g.unit
WHERE coalesce(h.hands, 0) >= min_hands
ORDER BY g.games_won DESC, win_pct DESC NULLS LAST, points_per_hand DESC NULLS LAST, g.unit;

-- view: player_stats
-- unit_stats per player over the whole dataset; the columns are unit_stats' with unit renamed player.
CREATE VIEW player_stats AS SELECT * RENAME (unit AS player) FROM unit_stats(per := 'player');

-- view: team_stats
-- unit_stats per side (team in partnership presets, else player) over the whole dataset;
-- the columns are unit_stats' with unit renamed team.
CREATE VIEW team_stats AS SELECT * RENAME (unit AS team) FROM unit_stats(per := 'team');
