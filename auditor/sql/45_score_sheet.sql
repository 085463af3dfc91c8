-- view: score_sheet
-- One row per side per hand recorded (played, thrown in, misdealt or unplayable): the score
-- sheet as the keeper wrote it beside the recomputed one. `auditor report` prints every game's
-- sheet and chart from this view.
--
-- The written figures are the `score` and `total` lines (recorded_scores; the first line of
-- each kind when a hand has two). The recomputed figures of a played hand are the engine's
-- (hand_scores). A hand that was not played out has no hand_scores row, so its figures are read
-- as the engine made them: a misdeal or a thrown-in hand scores what the audit ruled (the
-- expected value of its S601 finding, where the sheet is wrong; else the sheet's own figure,
-- which the audit found right, or 0 where none is written: a smear all-pass set-back is -2
-- whether or not the keeper wrote it), and a hand too broken to recompute carries the sheet's
-- score, as the engine does. The total adds these to the last played hand's. Such rows have
-- `derived` set.
--
-- column: game_id         the game's key (see games)
-- column: hand            hand number within the game
-- column: status          played, thrown-in, misdeal or unplayable (see hands.status)
-- column: side            the team (partnership presets) or the player
-- column: side_order      the side's place on the sheet, from 1: by the seat of its first member
-- column: recorded_score  the score line's entry for the side (null: none written)
-- column: recorded_total  the total line's entry for the side (null: none written); points still needed in count-down presets
-- column: score           the recomputed hand score (set-backs negative); for a hand not played out, the change in the recomputed total
-- column: total           the recomputed running total after the hand (points still needed in count-down presets)
-- column: derived         the hand has no recomputed row of its own: score and total are read off the hands around it
CREATE VIEW score_sheet AS
WITH sides AS (
    SELECT game_id, side, min(seat) AS first_seat
    FROM game_players
    GROUP BY ALL
),
written AS (
    SELECT game_id, hand, key AS side,
           min_by(value, line) FILTER (WHERE kind = 'score') AS recorded_score,
           min_by(value, line) FILTER (WHERE kind = 'total') AS recorded_total
    FROM recorded_scores
    GROUP BY ALL
),
-- the audit's ruling on a written hand score: the recomputed score (S601 names the side)
ruled AS (
    SELECT game_id, hand, player AS side, min(TRY_CAST(expected AS INTEGER)) AS score
    FROM findings
    WHERE code = 'S601' AND game_id IS NOT NULL AND hand IS NOT NULL AND player IS NOT NULL
    GROUP BY ALL
),
sheet AS (
    SELECT h.game_id, h.hand, h.line, h.status, s.side, s.first_seat,
           w.recorded_score, w.recorded_total, hs.total AS played_total,
           CASE WHEN hs.total IS NOT NULL THEN hs.score
                WHEN h.status = 'unplayable' THEN coalesce(w.recorded_score, 0)
                ELSE coalesce(ru.score, w.recorded_score, 0) END AS score,
           CASE WHEN r.count_down THEN -1 ELSE 1 END AS sign,
           CASE WHEN r.count_down THEN r.game_to ELSE 0 END AS start
    FROM hands AS h
    JOIN sides AS s ON s.game_id = h.game_id
    JOIN games AS g ON g.game_id = h.game_id
    LEFT JOIN rule_sets AS r ON r.rules = g.rules
    LEFT JOIN hand_scores AS hs ON hs.game_id = h.game_id AND hs.hand = h.hand AND hs.side = s.side
    LEFT JOIN written AS w ON w.game_id = h.game_id AND w.hand = h.hand AND w.side = s.side
    LEFT JOIN ruled AS ru ON ru.game_id = h.game_id AND ru.hand = h.hand AND ru.side = s.side
),
-- each played hand starts a run of the hands up to the next one; the hands before the first
-- played hand form run 0, which starts from the rule set's starting total
runs AS (
    SELECT *, count(played_total) OVER (PARTITION BY game_id, side ORDER BY hand, line ROWS UNBOUNDED PRECEDING) AS run
    FROM sheet
)
SELECT game_id, hand, status, side,
       CAST(dense_rank() OVER (PARTITION BY game_id ORDER BY first_seat) AS INTEGER) AS side_order,
       recorded_score, recorded_total,
       CAST(score AS INTEGER) AS score,
       CAST(CASE WHEN run = 0 THEN start
                 ELSE first_value(played_total) OVER (PARTITION BY game_id, side, run ORDER BY hand, line) END
            + sign * sum(CASE WHEN played_total IS NULL THEN score ELSE 0 END) OVER (
                PARTITION BY game_id, side, run ORDER BY hand, line ROWS UNBOUNDED PRECEDING) AS INTEGER) AS total,
       played_total IS NULL AS derived
FROM runs;
