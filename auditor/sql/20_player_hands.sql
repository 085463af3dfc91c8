-- view: player_hands
-- One row per player per hand recorded (played, thrown in, misdealt or unplayable): seat,
-- side, what the player said in the auction, the contract if they won it, the points their
-- side took, the hand's recomputed score, revokes, and the findings against the hand.
--
-- Attribution: the auction columns (bid_turn .. top_bid) and the revoke columns belong to the
-- player; the point and score columns (high .. set_back, scoring_errors) belong to the side,
-- because in partnership presets the team, not the player, takes points and scores. Point and
-- score columns are null in hands that were not played out and scored (status <> 'played').
--
-- column: game_id         the game's key (see games)
-- column: game            the game's name
-- column: event           Event tag
-- column: date            Date tag as a date
-- column: preset          the preset the game was audited under
-- column: hand            hand number within the game
-- column: status          played, thrown-in, misdeal or unplayable (see hands.status)
-- column: player          the player
-- column: seat            seat in clockwise order, from 1
-- column: team            the player's team in partnership presets (null elsewhere)
-- column: side            who scores for the player: the team in partnership presets, else the player
-- column: was_dealer      the player dealt this hand
-- column: bid_turn        the player had a turn to bid (said a number, a top-bid word or pass; the eldest hand's `sells`/`keeps` in the selling auction is not a turn to bid)
-- column: bid_words       everything the player said in the auction, in order, space-separated (null: nothing)
-- column: bid             the highest number the player bid (null: passed or did not speak)
-- column: pitched         the player pitched (led first): the auction's winner, or who had to pitch with no contract
-- column: won_auction     the player won the auction: pitched with a contract (a bid to make)
-- column: contract        the bid the player had to make (null unless won_auction)
-- column: contract_made   the player's side made the contract (null unless won_auction in a played hand)
-- column: was_set         the player won the auction, did not make the contract and the side was set back (a pitcher saved by another player's revoke is not set)
-- column: top_bid         the contract was the rule set's top bid with a name or a special rule (smudge; moon in setback and tenpoint52)
-- column: moon            the contract was a moon: the top bid under smudge=moon (tenpoint52)
-- column: takeover        pitching=on: the player, the dealer, took over another player's pitch (null in batches of schema version 1)
-- column: high            the player's side took High
-- column: low             the player's side got Low
-- column: jack            the player's side took the jack of trumps
-- column: off_jack        the player's side took the off-jack (ten-point) or the jick (smear) (null: no such point in the rule set)
-- column: high_joker      ten-point: the player's side took the high joker (null: no such point)
-- column: low_joker       ten-point: the player's side took the low joker (null: no such point)
-- column: trey            trey=on: the player's side took the three of trumps, worth three (null: trey=off)
-- column: game_point      the player's side won Game on count
-- column: points          points the side took: High, Low, Jack, Game (0-4), and the ten-point points (0-10)
-- column: points_in_play  what all the points of the hand were worth together: 4, 7 or 10 (null unless played)
-- column: tricks          tricks the side took
-- column: score           the side's recomputed hand score (set-backs negative, sale points included)
-- column: set_back        points the side lost this hand to a failed contract or a revoke penalty (0 if none)
-- column: revoked         the player revoked (broke the follow rule, R501) at least once in this hand
-- column: revokes         number of the player's plays that broke the follow rule in this hand
-- column: hand_findings   findings of any code against this hand, whoever they name
-- column: player_findings findings against this hand that name the player or the player's side
-- column: scoring_errors  score-sheet errors on this hand naming the side: S601 (hand score) and S602 (total)
CREATE VIEW player_hands AS
WITH said AS (
    SELECT game_id, hand, player,
           bool_or(word NOT IN ('sells', 'keeps')) AS bid_turn,
           string_agg(word, ' ' ORDER BY position) AS bid_words,
           max(value) AS bid
    FROM bids
    GROUP BY game_id, hand, player
),
revoking AS (
    SELECT game_id, hand, player, count(*) AS revokes
    FROM plays
    WHERE revoke
    GROUP BY game_id, hand, player
),
hand_found AS (
    SELECT game_id, hand, count(*) AS n
    FROM findings
    WHERE game_id IS NOT NULL AND hand IS NOT NULL
    GROUP BY game_id, hand
),
named_found AS (
    SELECT game_id, hand, player AS named, count(*) AS n,
           count(*) FILTER (WHERE code IN ('S601', 'S602')) AS scoring
    FROM findings
    WHERE game_id IS NOT NULL AND hand IS NOT NULL AND player IS NOT NULL
    GROUP BY game_id, hand, player
)
SELECT gp.game_id, gp.game, gp.event, gp.date, gp.preset, h.hand, h.status,
       gp.player, gp.seat, gp.team, gp.side,
       coalesce(h.dealer = gp.player, false) AS was_dealer,
       coalesce(s.bid_turn, false) AS bid_turn,
       s.bid_words,
       s.bid,
       coalesce(h.pitcher = gp.player, false) AS pitched,
       coalesce(h.pitcher = gp.player AND h.contract > 0, false) AS won_auction,
       CASE WHEN h.pitcher = gp.player AND h.contract > 0 THEN h.contract END AS contract,
       CASE WHEN h.pitcher = gp.player AND h.contract > 0 AND h.status = 'played' THEN h.contract_made END
           AS contract_made,
       coalesce(h.pitcher = gp.player AND h.contract > 0 AND h.status = 'played'
                AND NOT h.contract_made AND hs.set_back > 0, false) AS was_set,
       coalesce(h.pitcher = gp.player AND h.contract > 0 AND h.contract = gp.top_bid, false) AS top_bid,
       coalesce(h.pitcher = gp.player AND h.contract > 0 AND h.contract = gp.top_bid AND gp.moon, false) AS moon,
       -- hands.takeover is null in batches written before it was recorded
       CASE WHEN h.takeover IS NOT NULL THEN coalesce(h.pitcher = gp.player AND h.takeover, false) END AS takeover,
       hs.high, hs.low, hs.jack, hs.off_jack, hs.high_joker, hs.low_joker, hs.trey, hs.game_point,
       hs.points, CASE WHEN hs.side IS NOT NULL THEN gp.points_in_play END AS points_in_play,
       hs.tricks, hs.score, hs.set_back,
       coalesce(rv.revokes, 0) > 0 AS revoked,
       coalesce(rv.revokes, 0) AS revokes,
       coalesce(hf.n, 0) AS hand_findings,
       coalesce(fp.n, 0) + coalesce(fs.n, 0) AS player_findings,
       coalesce(fs.scoring, 0) AS scoring_errors
FROM game_players AS gp
JOIN hands AS h ON h.game_id = gp.game_id
LEFT JOIN hand_scores AS hs
    ON hs.game_id = h.game_id AND hs.hand = h.hand AND hs.side = gp.side AND h.status = 'played'
LEFT JOIN said AS s ON s.game_id = h.game_id AND s.hand = h.hand AND s.player = gp.player
LEFT JOIN revoking AS rv ON rv.game_id = h.game_id AND rv.hand = h.hand AND rv.player = gp.player
LEFT JOIN hand_found AS hf ON hf.game_id = h.game_id AND hf.hand = h.hand
-- findings naming the player; in partnership presets also those naming the team (fs), counted once
LEFT JOIN named_found AS fp
    ON fp.game_id = h.game_id AND fp.hand = h.hand AND fp.named = gp.player AND gp.side <> gp.player
LEFT JOIN named_found AS fs ON fs.game_id = h.game_id AND fs.hand = h.hand AND fs.named = gp.side;
