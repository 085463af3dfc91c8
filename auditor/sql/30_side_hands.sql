-- view: side_hands
-- One row per side per hand: player_hands added up over the members of a side. A side is a
-- team in partnership presets and a single player elsewhere, so outside partnership presets
-- this is player_hands with counts in place of flags. The base of `auditor stats --by team`.
--
-- column: game_id         the game's key (see games)
-- column: game            the game's name
-- column: event           Event tag
-- column: date            Date tag as a date
-- column: preset          the preset the game was audited under
-- column: hand            hand number within the game
-- column: status          played, thrown-in, misdeal or unplayable
-- column: side            the team (partnership presets) or the player
-- column: players         the side's members, in seat order
-- column: was_dealer      a member dealt this hand
-- column: bid_turns       members who had a turn to bid (see player_hands.bid_turn)
-- column: bids            members who bid a number or a top-bid word (not pass)
-- column: bid             the highest number a member bid (null: nobody on the side bid)
-- column: won_auction     a member won the auction (pitched with a contract)
-- column: contract        the bid the side had to make (null unless won_auction)
-- column: contract_made   the side made its contract (null unless won_auction in a played hand)
-- column: was_set         the side won the auction, did not make it, and was set back
-- column: top_bid         the contract was the rule set's top bid with a name or a special rule (smudge, moon)
-- column: moon            the contract was a moon (smudge=moon, tenpoint52)
-- column: takeover        pitching=on: a member, the dealer, took over another player's pitch (null in batches of schema version 1)
-- column: high            the side took High
-- column: low             the side got Low
-- column: jack            the side took the jack of trumps
-- column: off_jack        the side took the off-jack (ten-point) or the jick (smear) (null: no such point in the rule set)
-- column: high_joker      ten-point: the side took the high joker (null: no such point)
-- column: low_joker       ten-point: the side took the low joker (null: no such point)
-- column: trey            trey=on: the side took the three of trumps (null: trey=off)
-- column: game_point      the side won Game on count
-- column: points          points the side took (0-4; 0-10 in ten-point)
-- column: points_in_play  what all the points of the hand were worth together: 4, 7 or 10 (null unless played)
-- column: tricks          tricks the side took
-- column: score           the side's recomputed hand score
-- column: set_back        points the side lost this hand to a failed contract or a revoke penalty
-- column: revoked         a member revoked in this hand
-- column: revokes         plays by members that broke the follow rule in this hand
-- column: hand_findings   findings of any code against this hand
-- column: scoring_errors  S601 and S602 findings on this hand naming the side
CREATE VIEW side_hands AS
SELECT game_id,
       any_value(game) AS game, any_value(event) AS event, any_value(date) AS date,
       any_value(preset) AS preset, hand, any_value(status) AS status, side,
       list(player ORDER BY seat) AS players,
       bool_or(was_dealer) AS was_dealer,
       count(*) FILTER (WHERE bid_turn) AS bid_turns,
       count(bid) AS bids,
       max(bid) AS bid,
       bool_or(won_auction) AS won_auction,
       max(contract) AS contract,
       -- only the pitcher's row carries contract_made; bool_or skips the members' nulls
       bool_or(contract_made) AS contract_made,
       bool_or(was_set) AS was_set,
       bool_or(top_bid) AS top_bid,
       bool_or(moon) AS moon,
       bool_or(takeover) AS takeover,
       -- the point and score columns are the side's, the same on every member's row
       any_value(high) AS high, any_value(low) AS low, any_value(jack) AS jack,
       any_value(off_jack) AS off_jack, any_value(high_joker) AS high_joker, any_value(low_joker) AS low_joker,
       any_value(trey) AS trey,
       any_value(game_point) AS game_point, any_value(points) AS points,
       any_value(points_in_play) AS points_in_play, any_value(tricks) AS tricks,
       any_value(score) AS score, any_value(set_back) AS set_back,
       bool_or(revoked) AS revoked,
       sum(revokes) AS revokes,
       any_value(hand_findings) AS hand_findings,
       any_value(scoring_errors) AS scoring_errors
FROM player_hands
GROUP BY game_id, hand, side;
