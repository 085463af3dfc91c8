-- macro: unit_stats
-- The league table: one row per player (per := 'player') or per side (per := 'team'), over
-- the games the filters pick. `auditor stats` is this macro; the views player_stats and
-- team_stats are it without filters.
--
--   SELECT * FROM unit_stats(per := 'team', only_preset := 'partnership', min_hands := 20);
--
-- Parameters (null: no filter): only_game (a game's name or game_id), only_event (Event tag),
-- only_preset (preset name), since / until (DATE, inclusive; games without a Date tag are left
-- out when either is given), min_hands (leave out units with fewer played hands). summaries
-- picks the source of the counters: true the stored table game_player_counters, false the
-- view game_player_counters_live over the raw tables, null (the default) the stored table
-- when every batch of the dataset has it; the numbers are the same either way. per_event
-- makes one table per event (Event tag; the games without one make one more): a row per event
-- and unit, placed within its event (`auditor report` prints its league tables from it).
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
-- column: event               per_event: the event (Event tag; null: the games without one); else null
-- column: unit                the player or side (renamed player or team in the views)
-- column: place               placing in this table (per_event: in its event): by games won, then win %, then points per hand; equal on all three, equal places
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
-- column: smudge_attempts     auctions won at the rule set's top bid when it has a name or a special rule (smudge; moon in setback and tenpoint52)
-- column: smudges_made        of those, contracts made
-- column: moon_attempts       auctions won at a moon: the top bid under smudge=moon (tenpoint52); also counted in smudge_attempts
-- column: moons_made          of those, contracts made
-- column: high_per_100        100 * hands in which the side took High / hands
-- column: low_per_100         100 * hands in which the side got Low / hands
-- column: jack_per_100        100 * hands in which the side took the jack of trumps / hands
-- column: game_per_100        100 * hands in which the side won Game / hands
-- column: off_jack_per_100    100 * hands in which the side took the off-jack (ten-point) or the jick (smear) / played hands of rule sets with that point (null: none)
-- column: jokers_per_100      jokers the side took (high and low, up to two a hand) per 100 played hands of ten-point rule sets (null: none)
-- column: trey_per_100        100 * hands in which the side took the three of trumps / played hands of rule sets with trey=on (null: none)
-- column: points              points taken (High, Low, Jack, Game, and the ten-point points) over played hands, before contracts and penalties
-- column: points_per_hand     points taken (High, Low, Jack, Game, and the ten-point points) per played hand, before contracts and penalties
-- column: points_pct          100 * points taken / points in play over played hands (4, 7 or 10 a hand), comparable across rule sets
-- column: score               the recomputed hand scores added up over played hands (set-backs negative, sale points included)
-- column: score_per_hand      recomputed hand score per played hand (set-backs negative, sale points included)
-- column: revokes             played hands in which the unit revoked at least once (R501)
-- column: revokes_per_100     100 * revokes / hands
-- column: scoring_errors      S601 and S602 findings naming the side (the score keeper's mistakes on its entries)
-- column: settlement          settlement units won (+) or paid (-) over finished games of rule sets with a settlement (null: none)
-- column: cards_analysed      cards the unit played in hands examined under perfect play (the analysis table, `import --analyze`; null: none)
-- column: points_lost_per_100_cards  100 * points its mistakes cost (each card's fall in value for its side under perfect play) / cards_analysed
-- column: mistakes_per_hand   cards that lowered the side's value under perfect play, per hand examined
-- column: unmakeable_bids     examined hands the unit pitched with a contract that par says could not be made (par below 0)
-- column: underbids           examined hands the unit pitched with a contract below par (a higher bid could have been made)
CREATE MACRO unit_stats(per := 'player', only_game := NULL, only_event := NULL, only_preset := NULL,
                        since := NULL, until := NULL, min_hands := 0, summaries := NULL,
                        per_event := false) AS TABLE
-- One source of per-game counters, added up per unit: the dataset table game_player_counters
-- (a few rows per game, written at import) or, when some batch lacks it, the view
-- game_player_counters_live computed from the raw tables now. The choice is a constant when
-- the query is planned (the connection's variable auditor_summaries, which the loader keeps
-- current, unless `summaries` says), so DuckDB drops the other branch of the UNION unread.
WITH counters AS (
    SELECT * FROM game_player_counters
    WHERE coalesce(summaries, getvariable('auditor_summaries'), false)
    UNION ALL
    SELECT * FROM game_player_counters_live
    WHERE NOT coalesce(summaries, getvariable('auditor_summaries'), false)
),
-- read twice below (players, sides): computed once, so that the live view is too
picked AS MATERIALIZED (
    SELECT *,
           CASE WHEN per = 'team' THEN side ELSE player END AS unit,
           -- one table, or one per event
           CASE WHEN per_event THEN event END AS league,
           -- the rows whose side columns count: every row per player (each member is credited
           -- with the side's numbers), one row per side per game per team
           per = 'player' OR side_lead AS lead
    FROM counters
    WHERE per IN ('player', 'team')
      AND (only_game IS NULL OR game = only_game OR game_id = only_game)
      AND (only_event IS NULL OR event = only_event)
      AND (only_preset IS NULL OR preset = only_preset)
      AND (since IS NULL OR date >= since)
      AND (until IS NULL OR date <= until)
),
-- perfect play, from the analysis table (`import --analyze`), over the picked games: each
-- card is its player's (per team: its side's); par and the contract are on the pitcher's lead
picked_games AS (SELECT DISTINCT game_id, league FROM picked),
accuracy AS (
    SELECT g.league,
           CASE WHEN per = 'team' THEN a.side ELSE a.player END AS unit,
           count(*) AS cards_analysed,
           count(DISTINCT (a.game_id, a.hand)) AS hands_analysed,
           count(*) FILTER (WHERE a.mistake) AS mistakes,
           coalesce(sum(a.cost) FILTER (WHERE a.mistake), 0) AS points_lost
    FROM analysis AS a JOIN picked_games AS g USING (game_id)
    GROUP BY ALL
),
bidding AS (
    SELECT g.league,
           CASE WHEN per = 'team' THEN a.pitcher_side ELSE a.pitcher END AS unit,
           count(*) FILTER (WHERE a.contract > 0 AND a.par < 0) AS unmakeable_bids,
           count(*) FILTER (WHERE a.contract > 0 AND a.par > a.contract) AS underbids
    FROM analysis AS a JOIN picked_games AS g USING (game_id)
    WHERE a.trick = 1 AND a.position = 0
    GROUP BY ALL
),
-- the player columns add up over every picked row (per team: over a side's members)
players AS (
    SELECT league, unit,
           sum(bid_turns) AS bid_turns,
           sum(bids) AS bids,
           sum(auctions_won) AS auctions_won,
           sum(contract_sum) AS contract_sum,
           sum(contracts_made) AS contracts_made,
           sum(times_set) AS times_set,
           sum(smudge_attempts) AS smudge_attempts,
           sum(smudges_made) AS smudges_made,
           sum(moon_attempts) AS moon_attempts,
           sum(moons_made) AS moons_made
    FROM picked
    GROUP BY league, unit
),
-- the side columns over the lead rows only. Two aggregations, not one with a FILTER (WHERE lead)
-- on each side column: DuckDB filters every such aggregate apart, which costs more than both.
-- Every unit has lead rows (each side has one per game), so the join loses none.
sides AS (
    SELECT league, unit,
           count(*) AS games,
           count(*) FILTER (WHERE finished) AS games_finished,
           count(*) FILTER (WHERE won) AS games_won,
           sum(settlement) AS settlement,
           -- a hand in which two partners revoked counts once for the side
           sum(CASE WHEN per = 'team' THEN side_revokes ELSE revokes END) AS revokes,
           sum(hands) AS hands,
           sum(high) AS high,
           sum(low) AS low,
           sum(jack) AS jack,
           sum(game_point) AS game_point,
           sum(ten_point_hands) AS ten_point_hands,
           sum(off_jack_hands) AS off_jack_hands,
           sum(off_jack) AS off_jack,
           sum(high_joker + low_joker) AS jokers,
           sum(trey_hands) AS trey_hands,
           sum(trey) AS trey,
           sum(points) AS points,
           sum(points_in_play) AS points_in_play,
           sum(score) AS score,
           sum(set_back) AS points_set_back,
           sum(scoring_errors) AS scoring_errors
    FROM picked
    WHERE lead
    GROUP BY league, unit
),
-- the games without an Event tag are a league of their own: null matches null
totals AS (
    SELECT s.*, p.* EXCLUDE (league, unit), a.* EXCLUDE (league, unit), b.* EXCLUDE (league, unit)
    FROM sides AS s JOIN players AS p ON p.unit = s.unit AND p.league IS NOT DISTINCT FROM s.league
    LEFT JOIN accuracy AS a ON a.unit = s.unit AND a.league IS NOT DISTINCT FROM s.league
    LEFT JOIN bidding AS b ON b.unit = s.unit AND b.league IS NOT DISTINCT FROM s.league
),
rated AS (
SELECT league, unit,
       games,
       games_finished,
       games_won,
       round(100 * games_won / nullif(games_finished, 0)::DOUBLE, 2) AS win_pct,
       CAST(hands AS BIGINT) AS hands,
       CAST(bid_turns AS BIGINT) AS bid_turns,
       CAST(bids AS BIGINT) AS bids,
       round(100 * bids / nullif(bid_turns, 0)::DOUBLE, 2) AS bid_rate,
       CAST(auctions_won AS BIGINT) AS auctions_won,
       round(contract_sum / nullif(auctions_won, 0)::DOUBLE, 2) AS avg_winning_bid,
       CAST(contracts_made AS BIGINT) AS contracts_made,
       round(100 * contracts_made / nullif(auctions_won, 0)::DOUBLE, 2) AS contracts_made_pct,
       CAST(times_set AS BIGINT) AS times_set,
       CAST(points_set_back AS BIGINT) AS points_set_back,
       CAST(smudge_attempts AS BIGINT) AS smudge_attempts,
       CAST(smudges_made AS BIGINT) AS smudges_made,
       CAST(moon_attempts AS BIGINT) AS moon_attempts,
       CAST(moons_made AS BIGINT) AS moons_made,
       round(100 * high / nullif(hands, 0)::DOUBLE, 2) AS high_per_100,
       round(100 * low / nullif(hands, 0)::DOUBLE, 2) AS low_per_100,
       round(100 * jack / nullif(hands, 0)::DOUBLE, 2) AS jack_per_100,
       round(100 * game_point / nullif(hands, 0)::DOUBLE, 2) AS game_per_100,
       round(100 * off_jack / nullif(off_jack_hands, 0)::DOUBLE, 2) AS off_jack_per_100,
       round(100 * jokers / nullif(ten_point_hands, 0)::DOUBLE, 2) AS jokers_per_100,
       round(100 * trey / nullif(trey_hands, 0)::DOUBLE, 2) AS trey_per_100,
       CAST(points AS BIGINT) AS points,
       round(points / nullif(hands, 0)::DOUBLE, 2) AS points_per_hand,
       round(100 * points / nullif(points_in_play, 0)::DOUBLE, 2) AS points_pct,
       CAST(score AS BIGINT) AS score,
       round(score / nullif(hands, 0)::DOUBLE, 2) AS score_per_hand,
       CAST(revokes AS BIGINT) AS revokes,
       round(100 * revokes / nullif(hands, 0)::DOUBLE, 2) AS revokes_per_100,
       CAST(scoring_errors AS BIGINT) AS scoring_errors,
       CAST(settlement AS BIGINT) AS settlement,
       CAST(cards_analysed AS BIGINT) AS cards_analysed,
       round(100 * points_lost / nullif(cards_analysed, 0)::DOUBLE, 2) AS points_lost_per_100_cards,
       round(mistakes / nullif(hands_analysed, 0)::DOUBLE, 2) AS mistakes_per_hand,
       CAST(CASE WHEN cards_analysed > 0 THEN coalesce(unmakeable_bids, 0) END AS BIGINT) AS unmakeable_bids,
       CAST(CASE WHEN cards_analysed > 0 THEN coalesce(underbids, 0) END AS BIGINT) AS underbids
FROM totals
WHERE coalesce(hands, 0) >= min_hands
)

-- the placing is the table's order, so that `ORDER BY place, unit` is the default order
SELECT league AS event,
       unit,
       rank() OVER (PARTITION BY league
                    ORDER BY games_won DESC, win_pct DESC NULLS LAST, points_per_hand DESC NULLS LAST) AS place,
       * EXCLUDE (league, unit)
FROM rated
ORDER BY league NULLS LAST, place, unit;

-- view: player_stats
-- unit_stats per player over the whole dataset, unfiltered.
--
-- column: player  the player
-- columns: as unit_stats
CREATE VIEW player_stats AS SELECT * EXCLUDE (event) RENAME (unit AS player) FROM unit_stats(per := 'player');

-- view: team_stats
-- unit_stats per side (the team in partnership presets, else the player) over the whole
-- dataset, unfiltered.
--
-- column: team  the side: a team in partnership presets, else a player
-- columns: as unit_stats
CREATE VIEW team_stats AS SELECT * EXCLUDE (event) RENAME (unit AS team) FROM unit_stats(per := 'team');
